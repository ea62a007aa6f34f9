import type { Context } from 'cordis'
import Schema from 'schemastery'
import { changedSections, getSection, putSection, readsHoldVersions, SettingsProvider, SettingsSnapshot, type SettingsDocument, type SettingsSectionChange, type SettingsSectionVersion, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { copyData } from 'dsh-settings/data'

/** A change the store announces: its version, and the store as it was then (a feed that carries data may deliver it late). */
export interface StoreNotice {
  version: number
  snapshot: SettingsSnapshot
}

/**
 * A versioned store several hosts share, standing in for a database in
 * tests: a document, the store version that last changed each section, one
 * critical section, and a change feed whose delivery each test can delay.
 */
export class SharedStore {
  document: SettingsDocument = {}
  /** The store version that last changed each section (removed ones keep theirs, as a tombstone). */
  readonly versions = new Map<string, SettingsSectionVersion>()
  version = 0
  writable = true
  /** Delay before a notice reaches a listener; a test may change it mid-run. */
  feedDelayMs = 0
  private readonly listeners = new Set<(notice: StoreNotice) => void>()
  private chain: Promise<void> = Promise.resolve()

  constructor(document: SettingsDocument = {}) {
    this.document = copyData(document) as SettingsDocument
  }

  /** Run `body` alone, as a database transaction holding the document row's lock. */
  exclusive<T>(body: () => T | Promise<T>): Promise<T> {
    const run = this.chain.then(body)
    this.chain = run.then(
      () => {},
      () => {},
    )
    return run
  }

  /** The document and every section version, as one consistent read. */
  read(): SettingsSnapshot {
    return new SettingsSnapshot(this.document, [...this.versions.values()])
  }

  /** The store version that last changed a section (0: never stored). */
  versionOf(ns: string, scope?: string): number {
    return this.versions.get(`${scope ?? ''}\u0000${ns}`)?.version ?? 0
  }

  /** Store a whole document as another host would: every section that differs gets the next store version. */
  writeDocument(next: SettingsDocument): SettingsSectionVersion[] {
    return this.write(changedSections(this.document, next).map((key) => ({ ...key, section: getSection(next, key.ns, key.scope) })))
  }

  /** Store changed sections, each at the next store version. Answers those versions. */
  write(changes: readonly SettingsSectionChange[]): SettingsSectionVersion[] {
    if (!changes.length) return []
    this.version++
    const next = copyData(this.document) as SettingsDocument
    const written = changes.map((change) => {
      putSection(next, change, copyData(change.section))
      return { ns: change.ns, ...(change.scope === undefined ? {} : { scope: change.scope }), version: this.version }
    })
    for (const entry of written) this.versions.set(`${entry.scope ?? ''}\u0000${entry.ns}`, entry)
    this.document = next
    this.notify({ version: this.version, snapshot: this.read() })
    return written
  }

  /** Tell every listener a change happened, each after the feed's delay. */
  private notify(notice: StoreNotice): void {
    for (const listener of this.listeners) setTimeout(() => listener(notice), this.feedDelayMs)
  }

  listen(listener: (notice: StoreNotice) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  get listenerCount(): number {
    return this.listeners.size
  }

  /** What a section holds, for assertions. */
  section(ns: string, scope?: string): unknown {
    return getSection(this.document, ns, scope)
  }
}

/**
 * A provider with store-owned revisions over a {@link SharedStore}: the
 * `store` way, with the store's versions as revisions and the change feed
 * published as snapshots. Several instances on one store act as several hosts.
 */
export class SharedStoreProvider extends SettingsProvider {
  static readonly Config = Schema.object({ store: Schema.any().required(), trustFeed: Schema.boolean() })
  private unlisten: (() => void) | undefined

  constructor(ctx: Context, private readonly config: { store: SharedStore; trustFeed?: boolean }) {
    super(ctx)
  }

  override get writable(): boolean {
    return this.config.store.writable
  }

  protected override async open(): Promise<void> {
    // A notice is a hint: read the store when it comes. With `trustFeed` the data it carries is published as is, however late.
    this.unlisten = this.config.store.listen((notice) => this.publish(this.config.trustFeed ? notice.snapshot : this.config.store.read()))
  }

  protected load(): SettingsSnapshot {
    return this.config.store.read()
  }

  protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    const { store } = this.config
    return store.exclusive((): SettingsStoreResult => {
      // Another host wrote a section these writes read: tell the seam what the store holds, and let it derive again.
      if (!readsHoldVersions(transaction.reads, (ns, scope) => store.versionOf(ns, scope))) {
        this.publish(store.read())
        return { moved: true }
      }
      return { versions: store.write(transaction.changes) }
    })
  }

  protected override async close(): Promise<void> {
    this.unlisten?.()
  }
}
