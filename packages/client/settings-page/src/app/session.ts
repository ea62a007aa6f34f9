/**
 * The page's state and every call it makes, with no DOM: which scope is
 * shown, the form of each namespace, writes with the revision the page read,
 * conflicts, and live refreshes from the event stream. Components render
 * {@link SessionState} and call the methods; nothing else talks to the server.
 */
import { RemoteError } from 'dsh-remote/client'
import type { SettingsDescribeValue, SettingsNamespaceView, SettingsPathOpView } from 'dsh-settings-controller'
import { buildForm, changedFields, NO_SEARCH, planEdit, type Edit, type FormModel, type SearchQuery } from '../model/index.ts'
import { Drafts, type StagedSection } from './drafts.ts'
import { HistoryView } from './history.ts'
import { lazySection, rebuiltSection, sectionView } from './lazy-section.ts'
import { LiveRefresh } from './live-refresh.ts'
import { m, pageLocale, setPageLocale, type PageLocale } from './i18n.ts'
import { errorOf, isScopeId, messageOf, sameRead, type PageRemote, type SectionState, type SessionState } from './section-state.ts'
import { SerialWrites } from './serial-writes.ts'

export { isScopeId } from './section-state.ts'
export type { PageRemote, SectionConflict, SectionDraft, SectionError, SectionState, SessionState } from './section-state.ts'

/**
 * The most namespaces one refresh names; beyond it the page reads everything,
 * which then costs about the same. At most the controller's `MAX_DESCRIBE_NAMESPACES`
 * (a type-only import here: the controller's code is the server's).
 */
export const MAX_NAMED_READ = 200

/** How long to gather bursts of events before one `describe` of the namespaces they name. */
const REFRESH_DELAY_MS = 40

/** What a conflict's "re-apply" sends again: the one edit, or a draft's staged ops. */
type Retry = { edit: Edit } | { ops: SettingsPathOpView[] }

/** The page session: construct, `start()`, render `state`, call the actions. */
export class SettingsSession {
  state: SessionState = { status: 'loading', connection: 'connecting', scopes: [], writable: false, document: false, history: false, sections: [], search: NO_SEARCH }
  /** The history view (offered when {@link SessionState.history} is true). */
  readonly history: HistoryView
  private readonly listeners = new Set<() => void>()
  private readonly editing = new Map<string, Set<string>>()
  private readonly opened = new Set<string>()
  /** What each open conflict would re-apply, kept here so a secret's value never enters the state. */
  private readonly conflicted = new Map<string, Retry>()
  /** Each section's staged edits, kept here for the same reason. */
  private readonly drafts = new Drafts()
  /** Each section's writes, one at a time, for {@link apply}'s order. */
  private readonly writes = new SerialWrites()
  /** Per section, how many write answers the form has taken: a read sent before the latest one may be older than it. */
  private readonly answers = new Map<string, number>()
  private readonly stop = new AbortController()
  /** Counts loads, so an answer for a scope the page has left is dropped. */
  private generation = 0
  private refreshTimer: ReturnType<typeof setTimeout> | undefined
  /** What the events since the last read ask to read again. */
  private readonly live = new LiveRefresh()

  /**
   * @param storage - where the reader's language pick is kept (the browser's `localStorage`); none in tests.
   */
  constructor(
    private readonly remote: PageRemote,
    private readonly storage?: Pick<Storage, 'setItem'>,
  ) {
    this.history = new HistoryView(remote, {
      revisionOf: (ns, scope) => (scope === this.state.scope ? this.section(ns)?.form.revision : undefined),
      announce: (notice) => this.set({ notice }),
    })
  }

  /** Hear every state change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** The form of a view, with descriptions in the page's language. */
  private formOf(view: SettingsNamespaceView): FormModel {
    return buildForm(view, { locale: pageLocale() })
  }

  /** Speak `locale` from now on (kept for the next visit): the page's texts and every form's descriptions. */
  setLocale(locale: PageLocale): void {
    setPageLocale(locale, this.storage)
    this.set({ sections: this.state.sections.map((section) => rebuiltSection(section, (view) => this.formOf(view))) })
  }

  private set(next: Partial<SessionState>): void {
    this.state = { ...this.state, ...next }
    for (const listener of this.listeners) listener()
  }

  private patchSection(ns: string, patch: (section: SectionState) => SectionState): void {
    this.set({ sections: this.state.sections.map((section) => (sectionView(section).ns === ns ? patch(section) : section)) })
  }

  private section(ns: string): SectionState | undefined {
    return this.state.sections.find((section) => sectionView(section).ns === ns)
  }

  /** A section as a read brings it, its form built when first rendered. */
  private fresh(view: SettingsNamespaceView): SectionState {
    return lazySection<SectionState>(view, (read) => this.formOf(read), { busy: false })
  }

  /** The newest revision the page holds of a section in the shown scope: its read, a newer one, a conflict's. */
  private heldRevision(ns: string): number | undefined {
    const held = this.section(ns)
    if (!held) return undefined
    return Math.max(this.readOf(ns, held).revision, held.newer?.revision ?? -1, held.conflict?.latest.revision ?? -1)
  }

  /** Load the global scope and follow the event stream until {@link close}. */
  start(): void {
    void this.load()
    void this.remote
      .events(
        (event) => {
          const read = this.live.hear(event, { scope: this.state.scope, revisionOf: (ns) => this.heldRevision(ns) })
          // Every stored change (a save of this page's too) may have kept a version: an open history view reads its list again.
          if (read || (event.event === 'settings/document-updated' && this.history.state.open)) this.scheduleRefresh()
        },
        {
          signal: this.stop.signal,
          connected: () => this.set({ connection: 'live' }),
          // Events may have been missed while the stream was down: read everything again.
          reconnected: () => void this.refreshAll(),
          error: () => this.set({ connection: 'reconnecting' }),
        },
      )
      .catch((error: unknown) => this.set({ connection: 'closed', failure: messageOf(error) }))
  }

  /** Stop the event stream and any pending refresh. */
  close(): void {
    clearTimeout(this.refreshTimer)
    this.stop.abort()
    this.set({ connection: 'closed' })
  }

  /**
   * Describe the shown scope, or only the namespaces `only` names. Answers
   * `undefined`, and swallows a failure, when the page moved on (another
   * scope, a newer load) while it was asked.
   */
  private async describe(only?: readonly string[]): Promise<SettingsDescribeValue | undefined> {
    const generation = this.generation
    try {
      const settings = this.remote.settings
      const value = await (only ? settings.describe(this.state.scope ?? null, only) : settings.describe(this.state.scope as string))
      return generation === this.generation ? value : undefined
    } catch (error) {
      if (generation === this.generation) throw error
      return undefined
    }
  }

  private scopesFrom(value: SettingsDescribeValue): string[] {
    const scopes: string[] = [...value.scopes]
    for (const id of this.opened) if (!scopes.includes(id)) scopes.push(id)
    if (this.state.scope !== undefined && !scopes.includes(this.state.scope)) scopes.push(this.state.scope)
    return scopes
  }

  /** Read the shown scope afresh, replacing every form. */
  async load(): Promise<void> {
    this.generation++
    this.set({ status: 'loading' })
    try {
      const value = await this.describe()
      if (!value) return
      this.conflicted.clear()
      this.drafts.clear()
      this.live.reset()
      this.set({
        status: 'ready',
        failure: undefined,
        scopes: this.scopesFrom(value),
        writable: value.writable,
        document: value.document,
        history: value.history,
        sections: value.namespaces.map((view) => this.fresh(view)),
      })
      if (!value.history) this.history.hide()
    } catch (error) {
      this.set({ status: 'failed', failure: messageOf(error) })
    }
  }

  /** Read what the events gathered (and `names`) ask for, once the burst is over. */
  private scheduleRefresh(names: readonly string[] = []): void {
    for (const ns of names) this.live.mark(ns)
    clearTimeout(this.refreshTimer)
    this.refreshTimer = setTimeout(() => void this.refreshPending(), REFRESH_DELAY_MS)
  }

  /** After a change somewhere: read the namespaces it named again, and the history view's list and difference when it is shown. */
  private refreshPending(): Promise<unknown> {
    const pending = this.live.take(MAX_NAMED_READ)
    const forms = pending.kind === 'all' ? this.refresh() : pending.kind === 'some' ? this.reread(pending.names) : undefined
    return Promise.all([forms, this.history.refresh()])
  }

  /** After the event stream came back (events may have been missed): read everything again. */
  private refreshAll(): Promise<unknown> {
    this.live.markAll()
    return this.refreshPending()
  }

  /**
   * What the page holds of one section after a new read of it: a section
   * nobody is editing takes the read, one somebody is editing keeps its form
   * and is flagged with it, and a conflict offers it as the latest.
   * @param asked - the write answers counted when the read was sent.
   * @returns the held section when a write answered meanwhile (`overtaken`: read again).
   */
  private merge(view: SettingsNamespaceView, asked: ReadonlyMap<string, number>): { section: SectionState; overtaken?: true } {
    const held = this.section(view.ns)
    if (!held) return { section: this.fresh(view) }
    // A write answered while this read was on its way: the read may predate it, so keep the answer and read again.
    if (this.answers.get(view.ns) !== asked.get(view.ns)) return { section: held, overtaken: true }
    // An open conflict always offers the newest read, and lists what changed against the form.
    const read = this.readOf(view.ns, held)
    if (held.conflict) return { section: sameRead(held.conflict.latest, view) ? held : { ...held, conflict: { latest: view, changes: changedFields(read, view) } } }
    if (sameRead(read, view)) return { section: held }
    if (this.isEditing(view.ns) || held.busy) return { section: { ...held, newer: view } }
    return { section: this.fresh(view) }
  }

  /**
   * Read the shown scope again after an outside change: a section nobody is
   * editing takes the new read, one that somebody is editing keeps its form
   * and is flagged with the newer read.
   */
  refresh(): Promise<void> {
    return this.reread()
  }

  /**
   * Read the shown scope again, or only the namespaces `names` lists (one the
   * answer leaves out is no longer registered and goes; one registered since
   * the last read comes last). Each read is merged as {@link merge} says.
   */
  private async reread(names?: readonly string[]): Promise<void> {
    if (this.state.status !== 'ready') return this.load()
    const asked = new Map(this.answers)
    let value
    try {
      value = await this.describe(names)
    } catch (error) {
      this.set({ notice: m.refreshFailed(messageOf(error)) })
      return
    }
    if (!value) return
    const overtaken: string[] = []
    const merged = (view: SettingsNamespaceView): SectionState => {
      const { section, overtaken: again } = this.merge(view, asked)
      if (again) overtaken.push(view.ns)
      return section
    }
    let sections: SectionState[]
    if (names) {
      const read = new Map(value.namespaces.map((view) => [view.ns, view]))
      const asking = new Set(names)
      sections = this.state.sections.flatMap((section) => {
        const ns = sectionView(section).ns
        if (!asking.has(ns)) return [section]
        const view = read.get(ns)
        read.delete(ns)
        return view ? [merged(view)] : []
      })
      for (const view of read.values()) sections.push(merged(view))
    } else sections = value.namespaces.map(merged)
    this.set({ scopes: this.scopesFrom(value), writable: value.writable, document: value.document, history: value.history, sections })
    if (!value.history) this.history.hide()
    if (overtaken.length) this.scheduleRefresh(overtaken)
  }

  /** Filter the forms by a search text and, with `modified`, to the fields the shown section sets. */
  setSearch(query: SearchQuery): void {
    if (query.text === this.state.search.text && query.modified === this.state.search.modified) return
    this.set({ search: { text: query.text, modified: query.modified } })
  }

  /** Show another scope (`undefined`: the global scope). */
  async showScope(scope: string | undefined): Promise<void> {
    if (scope === this.state.scope) return
    this.editing.clear()
    this.drafts.clear()
    this.set({ scope, sections: [], notice: undefined })
    await this.load()
  }

  /**
   * Open a named scope by id, even one nothing is registered under yet.
   * @returns why the id was refused, or `undefined` once the scope is shown.
   */
  async openScope(id: string): Promise<string | undefined> {
    const trimmed = id.trim()
    if (!isScopeId(trimmed)) return m.badScope
    this.opened.add(trimmed)
    await this.showScope(trimmed)
    return undefined
  }

  /** Mark one control of a section as holding an unsent draft (or not any more). */
  setEditing(ns: string, control: string, editing: boolean): void {
    let controls = this.editing.get(ns)
    if (editing) {
      if (!controls) this.editing.set(ns, (controls = new Set()))
      controls.add(control)
    } else controls?.delete(control)
  }

  /** Whether some control of the section holds an unsent draft, or the section holds staged edits. */
  isEditing(ns: string): boolean {
    return (this.editing.get(ns)?.size ?? 0) > 0 || this.drafts.has(ns)
  }

  /** The last read of a section: under a draft, the view the staged edits were made on. */
  private readOf(ns: string, section: SectionState): SettingsNamespaceView {
    return this.drafts.readOf(ns)?.view ?? section.form.view
  }

  /**
   * Send one edit with the revision its form was read at. Writes of one
   * section go one at a time: an edit made while another is on its way is
   * planned against that write's answer, so the two do not conflict.
   * @returns a reason when the edit was refused before sending (show it at the field), else `undefined`.
   */
  apply(ns: string, edit: Edit): Promise<string | undefined> {
    return this.writes.run(ns, () => this.send(ns, edit))
  }

  /**
   * Save a section's staged edits in one write, after the writes before it.
   * While the draft still lacks required values nothing is sent: the section's
   * draft lists them (`missing`) for their fields to show.
   */
  saveDraft(ns: string): Promise<void> {
    return this.writes.run(ns, () => this.sendDraft(ns))
  }

  /** Drop a section's staged edits: the form shows the last read again. */
  discardDraft(ns: string): void {
    const read = this.drafts.readOf(ns)
    if (!read) return
    this.drafts.drop(ns)
    this.patchSection(ns, (s) => ({ form: this.formOf(read.view), busy: s.busy }))
  }

  private async send(ns: string, edit: Edit): Promise<string | undefined> {
    const section = this.section(ns)
    if (!section) return m.sectionGone
    if (section.conflict) return m.resolveFirst
    const { form } = section
    const plan = planEdit(form, edit)
    if (plan.kind === 'refused') return m.refusal[plan.code]
    if (plan.kind === 'mutate') {
      const staged = this.drafts.stage(ns, form, plan.ops)
      if (staged) return void this.showStaged(ns, staged)
    }
    // A reset replaces the whole section, staged edits included.
    const read = this.drafts.readOf(ns) ?? form
    this.drafts.drop(ns)
    await this.write(ns, read, plan, { edit })
    return undefined
  }

  /** Show a section as its staged edits leave it; answers its form. */
  private showStaged(ns: string, { view, draft }: StagedSection): FormModel {
    const form = this.formOf(view)
    this.patchSection(ns, (s) => ({ ...s, form, draft, error: undefined }))
    return form
  }

  private async sendDraft(ns: string): Promise<void> {
    const section = this.section(ns)
    if (!section || section.conflict) return
    const save = this.drafts.save(ns, section.form, (shown) => this.showStaged(ns, shown))
    if ('send' in save) return this.write(ns, save.send.read, { kind: 'mutate', ops: save.send.ops }, { ops: save.send.ops })
    this.patchSection(ns, (s) => ({ ...s, draft: { setup: save.setup, missing: save.missing, staged: s.draft?.staged ?? [] } }))
  }

  /**
   * Send one planned write with the revision `read` was read at; on success
   * the section shows the write's answer and its draft is gone.
   */
  private async write(ns: string, read: FormModel, plan: { kind: 'mutate'; ops: SettingsPathOpView[] } | { kind: 'replace'; section: Record<string, never> }, retry: Retry): Promise<void> {
    // The answer belongs to the scope and load it was sent from; a page that moved on only hears that it was saved.
    const generation = this.generation
    const current = () => generation === this.generation
    const where = read.scope === undefined ? ns : m.sectionIn(ns, read.scope)
    this.patchSection(ns, (s) => ({ ...s, busy: true, error: undefined }))
    // Until it answers, the events of this section are most likely its own: they wait for the answer.
    this.live.sent(ns)
    let answered: number | undefined
    try {
      const settings = this.remote.settings
      const view =
        plan.kind === 'replace'
          ? await settings.replace(ns, plan.section, read.revision, read.scope as string)
          : await settings.mutate(ns, plan.ops, read.revision, read.scope as string)
      answered = view.revision
      if (current()) {
        // A read that arrived while the write was on its way may be newer than the write's answer: read again.
        if (this.section(ns)?.newer) this.scheduleRefresh([ns])
        this.answers.set(ns, (this.answers.get(ns) ?? 0) + 1)
        this.drafts.drop(ns)
        this.patchSection(ns, () => ({ form: this.formOf(view), busy: false }))
      }
      this.set({ notice: m.saved(where) })
    } catch (error) {
      if (!current()) this.set({ notice: m.saveFailed(where, messageOf(error)) })
      else if (error instanceof RemoteError && error.code === 'settings/conflict') await this.enterConflict(ns, retry)
      else this.patchSection(ns, (s) => ({ ...s, busy: false, error: errorOf(error) }))
    } finally {
      // The answer is the section's new view: only what events named beyond it is read again.
      if (this.live.answered(ns, answered)) this.scheduleRefresh()
    }
  }

  private async enterConflict(ns: string, retry: Retry): Promise<void> {
    try {
      const value = await this.describe([ns])
      // The page moved on to another scope or load while asking: nothing here to flag.
      if (!value) return
      const latest = value.namespaces.find((view) => view.ns === ns)
      if (!latest) {
        this.patchSection(ns, (s) => ({ ...s, busy: false, error: { message: m.noLongerDescribed, code: 'settings/conflict' } }))
        return
      }
      this.conflicted.set(ns, retry)
      this.patchSection(ns, (s) => ({ ...s, busy: false, newer: undefined, conflict: { latest, changes: changedFields(this.readOf(ns, s), latest) } }))
    } catch (error) {
      this.patchSection(ns, (s) => ({ ...s, busy: false, error: errorOf(error) }))
    }
  }

  /** Drop the section's form (and any conflict, edit or draft) for the newest read. */
  async reload(ns: string): Promise<void> {
    const section = this.section(ns)
    const latest = section?.conflict?.latest ?? section?.newer
    this.editing.delete(ns)
    this.conflicted.delete(ns)
    this.discardDraft(ns)
    if (latest) this.patchSection(ns, () => ({ form: this.formOf(latest), busy: false }))
    else await this.reread([ns])
  }

  /** After a conflict: take the newest read and send the same edit (or the draft's ops) again, planned against it. */
  async reapply(ns: string): Promise<string | undefined> {
    const conflict = this.section(ns)?.conflict
    const retry = this.conflicted.get(ns)
    if (!conflict || !retry) return undefined
    this.conflicted.delete(ns)
    this.drafts.drop(ns)
    this.patchSection(ns, () => ({ form: this.formOf(conflict.latest), busy: false }))
    if ('ops' in retry) {
      const read = this.section(ns)!.form
      await this.writes.run(ns, () => this.write(ns, read, { kind: 'mutate', ops: retry.ops }, retry))
      return undefined
    }
    const refused = await this.apply(ns, retry.edit)
    if (refused) this.patchSection(ns, (s) => ({ ...s, error: { message: m.editNoLonger(refused) } }))
    return refused
  }

  /** Hand the settings document to the host's editor. */
  async openDocument(): Promise<void> {
    try {
      await this.remote.settings.openSettingsDocument()
      this.set({ notice: m.openedFile })
    } catch (error) {
      this.set({ notice: m.openFailed(messageOf(error)) })
    }
  }
}
