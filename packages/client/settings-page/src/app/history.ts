/**
 * The history view's state and calls, with no DOM: the kept versions of the
 * settings document (paged back with `before`), the field-level difference
 * between one of them and the current document (`compare`), and restoring
 * it whole or one section at a time (`restore`). Values of secrets are never
 * on the wire; a diff says only whether a secret was set, changed or unset.
 */
import { RemoteError } from 'dsh-remote/client'
import type { SettingsHistoryVersion, SettingsSectionDiff } from 'dsh-settings'
import type { SettingsRestoreValue } from 'dsh-settings-controller'
import type { PageRemote } from './session.ts'
import { m } from './i18n.ts'

/** How many versions one page of the list asks for. */
export const HISTORY_PAGE = 20
/** The most versions `history` answers in one call. */
const MAX_PAGE = 200


/**
 * The time that names a kept version wherever one is shown (the list, the
 * difference's heading, and `dsh settings history`): when it was written,
 * which is what a person means by "this version"; not when a later write
 * replaced it, which can be minutes later.
 */
export function versionTime(version: Pick<SettingsHistoryVersion, 'writtenAt'>): string {
  return version.writtenAt
}

/** Who made a version, in words: `this host (plugin)`, `an outside edit`, … joined with "and". */
export function whoMadeIt(by: readonly SettingsHistoryVersion['by'][number][]): string {
  const names = [...new Set(by.map((who) => m.who[who] ?? who))]
  if (names.length === 0) return m.who.unknown!
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')}${m.and}${names.at(-1)}`
}

/** A section as people read it: `search`, or `search in preset/coder`. */
export function sectionName(section: { ns: string; scope?: string | undefined }): string {
  return section.scope === undefined ? section.ns : m.sectionIn(section.ns, section.scope)
}

/** A key for one section (namespace and scope), for maps and for rendering. */
export function sectionKey(section: { ns: string; scope?: string | undefined }): string {
  return `${section.scope ?? ''}\u0000${section.ns}`
}

/** The difference between one kept version and the current document. */
export interface HistoryDiff {
  /** The version compared. */
  version: string
  status: 'loading' | 'ready' | 'failed'
  /** Per section: what changed from the version to now (secrets without values). */
  sections: SettingsSectionDiff[]
  failure?: string
}

/** A restore the server refused, shown in the view. */
export interface HistoryError {
  message: string
  code?: string
  /** The section whose restore was refused; absent for a whole-version restore. */
  section?: { ns: string; scope?: string }
}

/** Everything the history view renders. Replaced, never changed in place. */
export interface HistoryState {
  /** Whether the view is shown. */
  open: boolean
  status: 'idle' | 'loading' | 'ready' | 'failed'
  /** Kept versions, newest first. */
  versions: SettingsHistoryVersion[]
  /** Whether older versions may be left to load. */
  more: boolean
  /** An older page is on its way. */
  loadingMore: boolean
  /** Why the list (or an older page) could not be read. */
  failure?: string
  /** The version whose difference is shown. */
  selected?: string
  diff?: HistoryDiff
  /** A restore is on its way. */
  restoring: boolean
  error?: HistoryError
}

/** What the view needs from the page around it. */
export interface HistoryHost {
  /**
   * The revision of a section as the page's form holds it, when that section's
   * scope is the one shown; `undefined` otherwise (the view then uses the
   * revision it read with the diff).
   */
  revisionOf(ns: string, scope: string | undefined): number | undefined
  /** Say something in the page's status line. */
  announce(text: string): void
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function errorOf(error: unknown, section?: { ns: string; scope?: string }): HistoryError {
  const found: HistoryError = error instanceof RemoteError ? { message: error.message, code: error.code } : { message: messageOf(error) }
  if (error instanceof RemoteError && error.code === 'settings/conflict') {
    found.message = m.restoreConflict(section ? sectionName(section) : m.theSettings)
  }
  return section ? { ...found, section } : found
}

function listed(sections: readonly { ns: string; scope?: string }[]): string {
  return sections.map(sectionName).join(', ')
}

/** The history view: construct with the page's remote, `show()`, render `state`, call the actions. */
export class HistoryView {
  state: HistoryState = { open: false, status: 'idle', versions: [], more: false, loadingMore: false, restoring: false }
  private readonly listeners = new Set<() => void>()
  /** Counts list reads, so an older page asked before a fresh read is dropped. */
  private listGeneration = 0
  /** Counts compares, so the answer for a version no longer selected is dropped. */
  private diffGeneration = 0
  /** Per section of the shown difference, the revision read with it, for sections the page holds no form of. */
  private revisions = new Map<string, number>()

  constructor(
    private readonly remote: PageRemote,
    private readonly host: HistoryHost,
  ) {}

  /** Hear every state change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private set(next: Partial<HistoryState>): void {
    this.state = { ...this.state, ...next }
    for (const listener of this.listeners) listener()
  }

  /** Show the view and read the newest versions. */
  async show(): Promise<void> {
    if (this.state.open) return
    this.set({ open: true, status: 'loading', failure: undefined, error: undefined })
    await this.readList(HISTORY_PAGE)
  }

  /** Leave the view; what it read is dropped, so opening it again reads afresh. */
  hide(): void {
    if (!this.state.open) return
    this.listGeneration++
    this.diffGeneration++
    this.revisions.clear()
    this.state = { open: false, status: 'idle', versions: [], more: false, loadingMore: false, restoring: false }
    for (const listener of this.listeners) listener()
  }

  /** Read the newest `limit` versions, replacing the list. */
  private async readList(limit: number): Promise<void> {
    const generation = ++this.listGeneration
    try {
      const { versions } = await this.remote.settings.history({ limit })
      if (generation !== this.listGeneration || !this.state.open) return
      this.set({ status: 'ready', failure: undefined, versions, more: versions.length === limit, loadingMore: false })
    } catch (error) {
      if (generation !== this.listGeneration || !this.state.open) return
      this.set({ status: 'failed', failure: messageOf(error), loadingMore: false })
    }
  }

  /** Read the page of versions older than the oldest listed. */
  async loadMore(): Promise<void> {
    const oldest = this.state.versions.at(-1)
    if (!this.state.open || !oldest || this.state.loadingMore) return
    const generation = this.listGeneration
    this.set({ loadingMore: true, failure: undefined })
    try {
      const { versions } = await this.remote.settings.history({ limit: HISTORY_PAGE, before: oldest.id })
      if (generation !== this.listGeneration || !this.state.open) return
      const known = new Set(this.state.versions.map((version) => version.id))
      this.set({ versions: [...this.state.versions, ...versions.filter((version) => !known.has(version.id))], more: versions.length === HISTORY_PAGE, loadingMore: false })
    } catch (error) {
      if (generation !== this.listGeneration || !this.state.open) return
      // The version paged from may have been pruned meanwhile: read the list again from the top.
      this.set({ loadingMore: false, failure: `Could not read older versions: ${messageOf(error)}` })
    }
  }

  /** Show what differs between version `id` and the current document. */
  async select(id: string): Promise<void> {
    if (!this.state.open) return
    this.set({ selected: id, diff: { version: id, status: 'loading', sections: [] }, error: undefined })
    await this.compare(id)
  }

  /** Ask for the difference of `id`, and the revisions of the sections it names that the page holds no form of. */
  private async compare(id: string): Promise<void> {
    const generation = ++this.diffGeneration
    try {
      const { sections } = await this.remote.settings.compare(id)
      const revisions = await this.readRevisions(sections)
      if (generation !== this.diffGeneration || this.state.selected !== id) return
      this.revisions = revisions
      this.set({ diff: { version: id, status: 'ready', sections } })
    } catch (error) {
      if (generation !== this.diffGeneration || this.state.selected !== id) return
      this.set({ diff: { version: id, status: 'failed', sections: [], failure: messageOf(error) } })
    }
  }

  /** The revision of each registered section of a diff in a scope the page does not show, read now. */
  private async readRevisions(sections: readonly SettingsSectionDiff[]): Promise<Map<string, number>> {
    const revisions = new Map<string, number>()
    const scopes = new Set<string | undefined>()
    for (const section of sections) {
      if (!section.unregistered && this.host.revisionOf(section.ns, section.scope) === undefined) scopes.add(section.scope)
    }
    for (const scope of scopes) {
      const { namespaces } = await this.remote.settings.describe(scope as string)
      for (const view of namespaces) revisions.set(sectionKey({ ns: view.ns, scope }), view.revision)
    }
    return revisions
  }

  /**
   * Read the list (as many versions as are listed) and the shown difference
   * again, after the document changed. A selected version that is no longer
   * kept is let go.
   */
  async refresh(): Promise<void> {
    if (!this.state.open) return
    const limit = Math.min(MAX_PAGE, Math.max(HISTORY_PAGE, this.state.versions.length))
    await this.readList(limit)
    const selected = this.state.selected
    if (selected === undefined || !this.state.open) return
    if (this.state.status === 'ready' && !this.state.versions.some((version) => version.id === selected)) {
      this.diffGeneration++
      this.set({ selected: undefined, diff: undefined })
      return
    }
    await this.compare(selected)
  }

  /** The revision to send with a one-section restore: the page's form when it shows that scope, else the one read with the diff. */
  private revisionFor(ns: string, scope: string | undefined): number | undefined {
    return this.host.revisionOf(ns, scope) ?? this.revisions.get(sectionKey({ ns, scope }))
  }

  /** Write the selected version back, every section that differs (those no plugin registers now are skipped). */
  async restoreVersion(): Promise<void> {
    const id = this.state.selected
    if (!id || this.state.restoring) return
    await this.restore(id, undefined)
  }

  /** Write one section of the selected version back, checked against the revision the page holds. */
  async restoreSection(ns: string, scope: string | undefined): Promise<void> {
    const id = this.state.selected
    if (!id || this.state.restoring) return
    await this.restore(id, scope === undefined ? { ns } : { ns, scope })
  }

  private async restore(id: string, section: { ns: string; scope?: string } | undefined): Promise<void> {
    this.set({ restoring: true, error: undefined })
    let answer: SettingsRestoreValue
    try {
      if (section) {
        const revision = this.revisionFor(section.ns, section.scope)
        answer = await this.remote.settings.restore(id, { ...section, ...(revision === undefined ? {} : { expectedRevision: revision }) })
      } else {
        answer = await this.remote.settings.restore(id)
      }
    } catch (error) {
      this.set({ restoring: false, error: errorOf(error, section) })
      // A conflict means the difference shown is out of date: read it again.
      if (error instanceof RemoteError && error.code === 'settings/conflict') await this.refresh()
      return
    }
    this.set({ restoring: false })
    const skipped = answer.skipped.length ? m.skipped(listed(answer.skipped)) : ''
    const restored = answer.restored.length ? m.restored(listed(answer.restored)) : m.nothingToRestore
    this.host.announce(`${restored}${skipped}`)
    // The restore replaced the document, so it is kept as a version of its own: list it.
    await this.refresh()
  }
}
