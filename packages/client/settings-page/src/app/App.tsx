import { isSearching, searchForm } from '../model/index.ts'
import { HistoryPanel } from './HistoryPanel.tsx'
import { ScopeBar } from './ScopeBar.tsx'
import { SearchBar } from './SearchBar.tsx'
import { Section } from './Section.tsx'
import type { SettingsSession } from './session.ts'
import { useSession, useStore } from './use-session.ts'
import { fieldId } from './format.ts'

const CONNECTION_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
} as const

/** Shown when the page was opened without the tokened URL `pnpm start` prints. */
export function MissingToken() {
  return (
    <main class="page">
      <h1>Settings</h1>
      <p role="alert">
        This page needs its access token. Open the address that <code>pnpm start</code> printed (it ends in <code>#token=…</code>).
      </p>
    </main>
  )
}

/** Move to a section's heading without touching the address, whose fragment keeps the search. */
function jumpTo(event: MouseEvent, id: string): void {
  const target = document.getElementById(id)
  if (!target) return
  event.preventDefault()
  target.scrollIntoView({ block: 'start' })
  target.focus({ preventScroll: true })
}

/** The forms: scope switcher, search, the namespace list and one section per namespace the search shows. */
function Forms({ session }: { session: SettingsSession }) {
  const state = useSession(session)
  const scoped = state.scope !== undefined
  const searching = isSearching(state.search)
  const matched = state.sections.map((section) => ({ section, match: searching ? searchForm(section.form, state.search) : undefined }))
  const shown = searching ? matched.filter(({ match }) => match !== undefined) : matched
  return (
    <>
      <ScopeBar session={session} scope={state.scope} scopes={state.scopes} />
      {!state.writable && state.status === 'ready' && <p class="notice">The settings provider cannot save changes; the forms are read-only.</p>}
      {state.status === 'failed' && (
        <div class="notice notice-error" role="alert">
          <p>Could not read the settings: {state.failure}</p>
          <button type="button" onClick={() => void session.load()}>
            Try again
          </button>
        </div>
      )}
      {state.status !== 'failed' && <SearchBar session={session} query={state.search} scoped={scoped} tally={searching && state.status === 'ready' ? { shown: shown.length, total: state.sections.length } : undefined} />}
      {state.status === 'loading' && state.sections.length === 0 && <p>Loading…</p>}
      {state.status !== 'failed' && (
        <div class="layout">
          {shown.length > 0 && (
            <nav class="toc" aria-label="Namespaces">
              <ul>
                {shown.map(({ section: { form } }) => (
                  <li key={form.ns}>
                    <a href={`#${fieldId(form.ns, [])}`} onClick={(event) => jumpTo(event, fieldId(form.ns, []))}>
                      {form.ns}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <main class="sections" aria-busy={state.status === 'loading'}>
            {state.status === 'ready' && state.sections.length === 0 && <p>No plugin registered settings{scoped ? ' that this scope can hold' : ''}.</p>}
            {shown.map(({ section, match }) => (
              <Section key={`${state.scope ?? ''}\0${section.form.ns}`} session={session} section={section} writable={state.writable} match={match} />
            ))}
          </main>
        </div>
      )}
    </>
  )
}

/** The whole page: header, then the forms or the history view, and a status line. */
export function App({ session }: { session: SettingsSession }) {
  const state = useSession(session)
  const history = useStore(session.history)
  const showHistory = state.history && history.open
  return (
    <div class="page">
      <header class="top">
        <h1>Settings</h1>
        <span class={`connection connection-${state.connection}`} role="status">
          {CONNECTION_TEXT[state.connection]}
        </span>
        {state.document && (
          <button type="button" onClick={() => void session.openDocument()}>
            Open settings file
          </button>
        )}
        {state.history && (
          <button type="button" class="quiet" aria-pressed={showHistory} onClick={() => (showHistory ? session.history.hide() : void session.history.show())}>
            History
          </button>
        )}
      </header>
      {showHistory ? <HistoryPanel view={session.history} /> : <Forms session={session} />}
      <p class="status-line" aria-live="polite">
        {state.notice}
      </p>
    </div>
  )
}
