/** The page's entry: take the token, connect, render. */
import { render } from 'preact'
import { createRemote } from 'dsh-remote/client'
import type { SettingsRemote } from 'dsh-settings-controller'
import { keepSearchInAddress, searchInAddress } from './address.ts'
import { App, MissingToken } from './App.tsx'
import { SettingsSession, type PageRemote } from './session.ts'
import { takeToken } from './token.ts'
import './styles.css'
import { initialPageLocale, setPageLocale } from './i18n.ts'

/** `localStorage`, or nothing where the browser refuses it (storage turned off). */
function safeStorage(): Storage | undefined {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

const mount = document.getElementById('app')!
// The reader's earlier pick, else the browser's languages; `lang` follows.
setPageLocale(initialPageLocale(safeStorage(), navigator.languages ?? [navigator.language]))
// The token leaves the address first; whatever else the fragment holds (a search) stays.
const token = takeToken({ location: window.location, history: window.history, storage: window.sessionStorage })
if (!token) {
  render(<MissingToken />, mount)
} else {
  const remote: PageRemote = createRemote<{ settings: SettingsRemote }>({ url: window.location.origin, token })
  const session = new SettingsSession(remote, safeStorage())
  const address = { location: window.location, history: window.history }
  session.setSearch(searchInAddress(address))
  session.subscribe(() => keepSearchInAddress(address, session.state.search))
  // A fragment edited by hand (or a link followed within the page) asks for another search.
  window.addEventListener('hashchange', () => session.setSearch(searchInAddress(address)))
  session.start()
  window.addEventListener('pagehide', () => session.close())
  render(<App session={session} />, mount)
}
