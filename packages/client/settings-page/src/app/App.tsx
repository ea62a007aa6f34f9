import { ScopeBar } from './ScopeBar.tsx'
import { Section } from './Section.tsx'
import type { SettingsSession } from './session.ts'
import { useSession } from './use-session.ts'
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

/** The whole page: header, scope switcher, one section per namespace, a status line. */
export function App({ session }: { session: SettingsSession }) {
  const state = useSession(session)
  const scoped = state.scope !== undefined
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
      </header>
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
      {state.status === 'loading' && state.sections.length === 0 && <p>Loading…</p>}
      {state.status !== 'failed' && (
        <div class="layout">
          {state.sections.length > 0 && (
            <nav class="toc" aria-label="Namespaces">
              <ul>
                {state.sections.map(({ form }) => (
                  <li key={form.ns}>
                    <a href={`#${fieldId(form.ns, [])}`}>{form.ns}</a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <main class="sections" aria-busy={state.status === 'loading'}>
            {state.status === 'ready' && state.sections.length === 0 && <p>No plugin registered settings{scoped ? ' that this scope can hold' : ''}.</p>}
            {state.sections.map((section) => (
              <Section key={`${state.scope ?? ''}\0${section.form.ns}`} session={session} section={section} writable={state.writable} />
            ))}
          </main>
        </div>
      )}
      <p class="status-line" aria-live="polite">
        {state.notice}
      </p>
    </div>
  )
}
