/** The page's entry: take the token, connect, render. */
import { render } from 'preact'
import { createRemote } from 'dsh-remote/client'
import type { SettingsRemote } from 'dsh-settings-controller'
import { App, MissingToken } from './App.tsx'
import { SettingsSession, type PageRemote } from './session.ts'
import { takeToken } from './token.ts'
import './styles.css'

const mount = document.getElementById('app')!
const token = takeToken({ location: window.location, history: window.history, storage: window.sessionStorage })
if (!token) {
  render(<MissingToken />, mount)
} else {
  const remote: PageRemote = createRemote<{ settings: SettingsRemote }>({ url: window.location.origin, token })
  const session = new SettingsSession(remote)
  session.start()
  window.addEventListener('pagehide', () => session.close())
  render(<App session={session} />, mount)
}
