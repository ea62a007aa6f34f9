import { useCallback, useEffect, useMemo, useRef } from 'preact/hooks'
import { isSearching, sameSearch, searchForm, type FormMatch, type FormModel, type SearchQuery } from '../model/index.ts'
import { HistoryPanel } from './HistoryPanel.tsx'
import { useSectionAtTop } from './in-view.ts'
import { sectionView } from './lazy-section.ts'
import { Nav, type NavEntry } from './Nav.tsx'
import { ScopeBar } from './ScopeBar.tsx'
import { SearchBar } from './SearchBar.tsx'
import { SectionList, SectionSlots, useWarmForms, type ListedSection } from './SectionList.tsx'
import type { SectionState, SettingsSession } from './session.ts'
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

/** The search's result per form, kept while neither the form nor the query changes: typing re-judges only what it must. */
const matches = new WeakMap<FormModel, { query: SearchQuery; match: FormMatch | undefined }>()

function matchOf(section: SectionState, query: SearchQuery): FormMatch | undefined {
  const { form } = section
  const known = matches.get(form)
  if (known && sameSearch(known.query, query)) return known.match
  const match = searchForm(form, query)
  matches.set(form, { query, match })
  return match
}

/** Every section in page order (plugins waiting for setup first), with what the search shows of it. */
function listSections(sections: readonly SectionState[], query: SearchQuery): ListedSection[] {
  const searching = isSearching(query)
  const listed = sections.map((section): ListedSection => {
    const view = sectionView(section)
    const match = searching ? matchOf(section, query) : undefined
    return { section, view, match, shown: !searching || match !== undefined }
  })
  // Plugins waiting for setup come first: nothing else on the page matters to them until they are set up.
  return [...listed.filter(({ view }) => view.needsSetup), ...listed.filter(({ view }) => !view.needsSetup)]
}

/** The namespace list's entries, the same array as last time while they are the same, so the list skips its render. */
function useNavEntries(listed: readonly ListedSection[]): readonly NavEntry[] {
  const last = useRef<readonly NavEntry[]>([])
  const next = listed.filter(({ shown }) => shown).map(({ view }) => ({ ns: view.ns, setup: view.needsSetup === true }))
  const previous = last.current
  if (next.length !== previous.length || next.some((entry, index) => entry.ns !== previous[index]!.ns || entry.setup !== previous[index]!.setup)) last.current = next
  return last.current
}

/** Move to a section's heading without touching the address, whose fragment keeps the search; mount it first if it waits. */
function jumpTo(slots: SectionSlots, ns: string): void {
  const go = () => {
    const target = document.getElementById(fieldId(ns, []))
    if (!target) return
    target.scrollIntoView({ block: 'start' })
    target.focus({ preventScroll: true })
  }
  if (document.getElementById(fieldId(ns, []))) return go()
  slots.mountNow(ns)
  requestAnimationFrame(go)
}

/** The forms: scope switcher, search, the namespace list and one section per namespace the search shows. */
function Forms({ session }: { session: SettingsSession }) {
  const state = useSession(session)
  const scoped = state.scope !== undefined
  const searching = isSearching(state.search)
  const slots = useMemo(() => new SectionSlots(), [])
  useEffect(() => () => slots.close(), [slots])
  useWarmForms(state.sections, slots)
  const listed = useMemo(() => listSections(state.sections, state.search), [state.sections, state.search])
  const entries = useNavEntries(listed)
  const order = useMemo(() => entries.map((entry) => entry.ns), [entries])
  const sections = useRef<HTMLElement>(null)
  const current = useSectionAtTop(order, slots.elementOf, sections, slots.mountNear)
  const jump = useCallback((ns: string) => jumpTo(slots, ns), [slots])
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
      {state.status !== 'failed' && <SearchBar session={session} query={state.search} scoped={scoped} tally={searching && state.status === 'ready' ? { shown: entries.length, total: state.sections.length } : undefined} />}
      {state.status === 'loading' && state.sections.length === 0 && <p>{m.loading}</p>}
      {state.status !== 'failed' && (
        <div class="layout">
          {entries.length > 0 && <Nav entries={entries} current={current} onJump={jump} />}
          <main class="sections" ref={sections} aria-busy={state.status === 'loading'}>
            {state.status === 'ready' && state.sections.length === 0 && <p>{m.noneRegistered(scoped)}</p>}
            <SectionList session={session} listed={listed} writable={state.writable} slots={slots} scope={state.scope} />
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
