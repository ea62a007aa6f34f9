import { isSearching, searchForm } from '../model/index.ts'
import { HistoryPanel } from './HistoryPanel.tsx'
import { ScopeBar } from './ScopeBar.tsx'
import { SearchBar } from './SearchBar.tsx'
import { Section } from './Section.tsx'
import type { SettingsSession } from './session.ts'
import { useSession, useStore } from './use-session.ts'
import { fieldId } from './format.ts'
import { m, PAGE_LOCALES, pageLocale, type PageLocale } from './i18n.ts'


/** Shown when the page was opened without the tokened URL `pnpm start` prints. */
export function MissingToken() {
  return (
    <main class="page">
      <h1>{m.settings}</h1>
      <p role="alert">{m.needsToken}</p>
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
  // Plugins waiting for setup come first: nothing else on the page matters to them until they are set up.
  const waiting = shown.filter(({ section }) => section.form.view.needsSetup)
  const ordered = [...waiting, ...shown.filter(({ section }) => !section.form.view.needsSetup)]
  return (
    <>
      <ScopeBar session={session} scope={state.scope} scopes={state.scopes} />
      {!state.writable && state.status === 'ready' && <p class="notice">{m.readOnly}</p>}
      {state.status === 'failed' && (
        <div class="notice notice-error" role="alert">
          <p>{m.readFailed(state.failure ?? '')}</p>
          <button type="button" onClick={() => void session.load()}>
            {m.tryAgain}
          </button>
        </div>
      )}
      {state.status !== 'failed' && <SearchBar session={session} query={state.search} scoped={scoped} tally={searching && state.status === 'ready' ? { shown: shown.length, total: state.sections.length } : undefined} />}
      {state.status === 'loading' && state.sections.length === 0 && <p>{m.loading}</p>}
      {state.status !== 'failed' && (
        <div class="layout">
          {shown.length > 0 && (
            <nav class="toc" aria-label={m.namespaces}>
              {waiting.length > 0 && <p class="toc-head">{m.needsSetupList}</p>}
              <ul>
                {ordered.map(({ section: { form } }) => (
                  <li key={form.ns} class={form.view.needsSetup ? 'toc-setup' : undefined}>
                    <a href={`#${fieldId(form.ns, [])}`} onClick={(event) => jumpTo(event, fieldId(form.ns, []))}>
                      {form.ns}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          )}
          <main class="sections" aria-busy={state.status === 'loading'}>
            {state.status === 'ready' && state.sections.length === 0 && <p>{m.noneRegistered(scoped)}</p>}
            {ordered.map(({ section, match }) => (
              <Section key={`${state.scope ?? ''}\0${section.form.ns}`} session={session} section={section} writable={state.writable} match={match} />
            ))}
          </main>
        </div>
      )}
    </>
  )
}

/** The page's language switch; the pick is kept for the next visit. */
function LanguageSwitch({ session }: { session: SettingsSession }) {
  return (
    <select class="language" value={pageLocale()} aria-label={m.language} onChange={(event) => session.setLocale(event.currentTarget.value as PageLocale)}>
      {PAGE_LOCALES.map(({ locale, name }) => (
        <option key={locale} value={locale} lang={locale}>
          {name}
        </option>
      ))}
    </select>
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
        <h1>{m.settings}</h1>
        <span class={`connection connection-${state.connection}`} role="status">
          {m.connection[state.connection]}
        </span>
        {state.document && (
          <button type="button" onClick={() => void session.openDocument()}>
            {m.openFile}
          </button>
        )}
        {state.history && (
          <button type="button" class="quiet" aria-pressed={showHistory} onClick={() => (showHistory ? session.history.hide() : void session.history.show())}>
            {m.history}
          </button>
        )}
        <LanguageSwitch session={session} />
      </header>
      {showHistory ? <HistoryPanel view={session.history} /> : <Forms session={session} />}
      <p class="status-line" aria-live="polite">
        {state.notice}
      </p>
    </div>
  )
}
