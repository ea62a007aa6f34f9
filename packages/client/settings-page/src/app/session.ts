/**
 * The page's state and every call it makes, with no DOM: which scope is
 * shown, the form of each namespace, writes with the revision the page read,
 * conflicts, and live refreshes from the event stream. Components render
 * {@link SessionState} and call the methods; nothing else talks to the server.
 */
import type { Remote } from 'dsh-remote/client'
import { RemoteError } from 'dsh-remote/client'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import type { SettingsDescribeValue, SettingsNamespaceView, SettingsRemote } from 'dsh-settings-controller'
import { buildForm, changedFields, NO_SEARCH, planEdit, type Edit, type FieldChange, type FormModel, type SearchQuery } from '../model/index.ts'
import { HistoryView } from './history.ts'
import { m, pageLocale, setPageLocale, type PageLocale } from './i18n.ts'

/** The remote client the page uses. */
export type PageRemote = Remote<{ settings: SettingsRemote }>

/**
 * A write that met a newer section: what changed, and the newest read. The
 * edit itself stays out of the rendered state (it may carry a secret's new value).
 */
export interface SectionConflict {
  changes: FieldChange[]
  latest: SettingsNamespaceView
}

/** A refusal to show next to a field (`path`) or at the top of its section. */
export interface SectionError {
  message: string
  code?: string
  path?: string[]
}

/** One namespace as the page holds it. */
export interface SectionState {
  form: FormModel
  /** A newer read that arrived while somebody was editing this section; shown as a notice. */
  newer?: SettingsNamespaceView
  conflict?: SectionConflict
  error?: SectionError
  /** A write of this section is on its way. */
  busy: boolean
}

/** Everything the page renders. Replaced, never changed in place, so a render can compare by identity. */
export interface SessionState {
  status: 'loading' | 'ready' | 'failed'
  /** Why the last full load failed, or why the event stream stopped for good. */
  failure?: string
  connection: 'connecting' | 'live' | 'reconnecting' | 'closed'
  /** The scope shown; `undefined` for the global scope. */
  scope?: string
  /** Scopes to offer: those `describe` reported, plus any the person opened. */
  scopes: string[]
  writable: boolean
  document: boolean
  /** Whether the provider keeps replaced versions, so the history view is offered. */
  history: boolean
  sections: SectionState[]
  /** The search and "modified" filter applied to the forms. */
  search: SearchQuery
  /** A short announcement for the status line (opened the file, saved, …). */
  notice?: string
}

/** How long to gather bursts of events before one `describe`. */
const REFRESH_DELAY_MS = 40

/** Whether `id` is a well-formed named scope id (`<kind>/<id>`). */
export function isScopeId(id: string): boolean {
  return SCOPE_ID_PATTERN.test(id)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function errorOf(error: unknown): SectionError {
  if (!(error instanceof RemoteError)) return { message: messageOf(error) }
  const details = error.details as { path?: unknown } | undefined
  const path = Array.isArray(details?.path) && details.path.every((key) => typeof key === 'string') ? (details.path as string[]) : undefined
  return { message: error.message, code: error.code, ...(path ? { path } : {}) }
}

function sameRead(a: SettingsNamespaceView, b: SettingsNamespaceView): boolean {
  return a.revision === b.revision && changedFields(a, b).length === 0 && a.registered === b.registered
}

/** The page session: construct, `start()`, render `state`, call the actions. */
export class SettingsSession {
  state: SessionState = { status: 'loading', connection: 'connecting', scopes: [], writable: false, document: false, history: false, sections: [], search: NO_SEARCH }
  /** The history view (offered when {@link SessionState.history} is true). */
  readonly history: HistoryView
  private readonly listeners = new Set<() => void>()
  private readonly editing = new Map<string, Set<string>>()
  private readonly opened = new Set<string>()
  /** The edit each open conflict would re-apply, kept here so a secret's value never enters the state. */
  private readonly conflicted = new Map<string, Edit>()
  /** The last write of each section still on its way, for {@link apply}'s one-at-a-time order. */
  private readonly writes = new Map<string, Promise<void>>()
  /** Per section, how many write answers the form has taken: a read sent before the latest one may be older than it. */
  private readonly answers = new Map<string, number>()
  private readonly stop = new AbortController()
  /** Counts loads, so an answer for a scope the page has left is dropped. */
  private generation = 0
  private refreshTimer: ReturnType<typeof setTimeout> | undefined

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
    this.set({ sections: this.state.sections.map((section) => ({ ...section, form: this.formOf(section.form.view) })) })
  }

  private set(next: Partial<SessionState>): void {
    this.state = { ...this.state, ...next }
    for (const listener of this.listeners) listener()
  }

  private patchSection(ns: string, patch: (section: SectionState) => SectionState): void {
    this.set({ sections: this.state.sections.map((section) => (section.form.ns === ns ? patch(section) : section)) })
  }

  private section(ns: string): SectionState | undefined {
    return this.state.sections.find((section) => section.form.ns === ns)
  }

  /** Load the global scope and follow the event stream until {@link close}. */
  start(): void {
    void this.load()
    void this.remote
      .events(
        (event) => {
          if (event.event === 'settings/document-updated' || event.event === 'settings/updated') this.scheduleRefresh()
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
   * Describe the shown scope. Answers `undefined`, and swallows a failure,
   * when the page moved on (another scope, a newer load) while it was asked.
   */
  private async describe(): Promise<SettingsDescribeValue | undefined> {
    const generation = this.generation
    try {
      const value = await this.remote.settings.describe(this.state.scope as string)
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
      this.set({
        status: 'ready',
        failure: undefined,
        scopes: this.scopesFrom(value),
        writable: value.writable,
        document: value.document,
        history: value.history,
        sections: value.namespaces.map((view) => ({ form: this.formOf(view), busy: false })),
      })
      if (!value.history) this.history.hide()
    } catch (error) {
      this.set({ status: 'failed', failure: messageOf(error) })
    }
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer)
    this.refreshTimer = setTimeout(() => void this.refreshAll(), REFRESH_DELAY_MS)
  }

  /** After a change somewhere: read the forms again, and the history view's list and difference when it is shown. */
  private refreshAll(): Promise<unknown> {
    return Promise.all([this.refresh(), this.history.refresh()])
  }

  /**
   * Read the shown scope again after an outside change: a section nobody is
   * editing takes the new read, one that somebody is editing keeps its form
   * and is flagged with the newer read.
   */
  async refresh(): Promise<void> {
    if (this.state.status !== 'ready') return this.load()
    const asked = new Map(this.answers)
    let value
    try {
      value = await this.describe()
    } catch (error) {
      this.set({ notice: m.refreshFailed(messageOf(error)) })
      return
    }
    if (!value) return
    let overtaken = false
    const sections = value.namespaces.map((view): SectionState => {
      const held = this.section(view.ns)
      if (!held) return { form: this.formOf(view), busy: false }
      // A write answered while this read was on its way: the read may predate it, so keep the answer and read again.
      if (this.answers.get(view.ns) !== asked.get(view.ns)) {
        overtaken = true
        return held
      }
      // An open conflict always offers the newest read, and lists what changed against the form.
      if (held.conflict) return sameRead(held.conflict.latest, view) ? held : { ...held, conflict: { latest: view, changes: changedFields(held.form.view, view) } }
      if (sameRead(held.form.view, view)) return held
      if (this.isEditing(view.ns) || held.busy) return { ...held, newer: view }
      return { form: this.formOf(view), busy: false }
    })
    this.set({ scopes: this.scopesFrom(value), writable: value.writable, document: value.document, history: value.history, sections })
    if (!value.history) this.history.hide()
    if (overtaken) this.scheduleRefresh()
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

  /** Whether some control of the section holds an unsent draft. */
  isEditing(ns: string): boolean {
    return (this.editing.get(ns)?.size ?? 0) > 0
  }

  /**
   * Send one edit with the revision its form was read at. Writes of one
   * section go one at a time: an edit made while another is on its way is
   * planned against that write's answer, so the two do not conflict.
   * @returns a reason when the edit was refused before sending (show it at the field), else `undefined`.
   */
  apply(ns: string, edit: Edit): Promise<string | undefined> {
    const previous = this.writes.get(ns)
    const run = previous ? previous.then(() => this.send(ns, edit)) : this.send(ns, edit)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.writes.set(ns, tail)
    void tail.then(() => {
      if (this.writes.get(ns) === tail) this.writes.delete(ns)
    })
    return run
  }

  private async send(ns: string, edit: Edit): Promise<string | undefined> {
    const section = this.section(ns)
    if (!section) return m.sectionGone
    if (section.conflict) return m.resolveFirst
    const { form } = section
    const plan = planEdit(form, edit)
    if (plan.kind === 'refused') return plan.reason
    // The answer belongs to the scope and load it was sent from; a page that moved on only hears that it was saved.
    const generation = this.generation
    const current = () => generation === this.generation
    const where = form.scope === undefined ? ns : m.sectionIn(ns, form.scope)
    this.patchSection(ns, (s) => ({ ...s, busy: true, error: undefined }))
    try {
      const settings = this.remote.settings
      const view =
        plan.kind === 'replace'
          ? await settings.replace(ns, plan.section, form.revision, form.scope as string)
          : await settings.mutate(ns, plan.ops, form.revision, form.scope as string)
      if (current()) {
        // A read that arrived while the write was on its way may be newer than the write's answer: read again.
        if (this.section(ns)?.newer) this.scheduleRefresh()
        this.answers.set(ns, (this.answers.get(ns) ?? 0) + 1)
        this.patchSection(ns, () => ({ form: this.formOf(view), busy: false }))
      }
      this.set({ notice: m.saved(where) })
    } catch (error) {
      if (!current()) this.set({ notice: m.saveFailed(where, messageOf(error)) })
      else if (error instanceof RemoteError && error.code === 'settings/conflict') await this.enterConflict(ns, edit)
      else this.patchSection(ns, (s) => ({ ...s, busy: false, error: errorOf(error) }))
    }
    return undefined
  }

  private async enterConflict(ns: string, edit: Edit): Promise<void> {
    try {
      const value = await this.describe()
      // The page moved on to another scope or load while asking: nothing here to flag.
      if (!value) return
      const latest = value.namespaces.find((view) => view.ns === ns)
      if (!latest) {
        this.patchSection(ns, (s) => ({ ...s, busy: false, error: { message: m.noLongerDescribed, code: 'settings/conflict' } }))
        return
      }
      this.conflicted.set(ns, edit)
      this.patchSection(ns, (s) => ({ ...s, busy: false, newer: undefined, conflict: { latest, changes: changedFields(s.form.view, latest) } }))
    } catch (error) {
      this.patchSection(ns, (s) => ({ ...s, busy: false, error: errorOf(error) }))
    }
  }

  /** Drop the section's form (and any conflict or edit) for the newest read. */
  async reload(ns: string): Promise<void> {
    const section = this.section(ns)
    const latest = section?.conflict?.latest ?? section?.newer
    this.editing.delete(ns)
    this.conflicted.delete(ns)
    if (latest) this.patchSection(ns, () => ({ form: this.formOf(latest), busy: false }))
    else await this.refresh()
  }

  /** After a conflict: take the newest read and send the same edit again, planned against it. */
  async reapply(ns: string): Promise<string | undefined> {
    const conflict = this.section(ns)?.conflict
    const edit = this.conflicted.get(ns)
    if (!conflict || !edit) return undefined
    this.conflicted.delete(ns)
    this.patchSection(ns, () => ({ form: this.formOf(conflict.latest), busy: false }))
    const refused = await this.apply(ns, edit)
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
