import type { Logger } from 'cordis'
import { dataEqual } from './equal.ts'
import { adoptDocument, changedSections, getSection, isWellNamed, putSection, sectionId, type SectionKey } from './document.ts'
import { SettingsProviderContractError } from './errors.ts'
import type { SettingsEvents } from './events.ts'
import { sectionLabel } from './ids.ts'
import { judgeSite, type Judgment } from './judge.ts'
import type { Instance, Registry } from './registry.ts'
import type { Revisions } from './revisions.ts'
import { SettingsSnapshot, versionMap } from './snapshot.ts'
import type { SettingsDocument, SettingsUpdateSource } from './types.ts'

/** What a judged write stores and what it makes of each instance it feeds. */
export interface WriteOutcome {
  /** The section the write stores. */
  section: Record<string, unknown>
  /** Whether it differs from what was stored; an unchanged write commits nothing. */
  changed: boolean
  /** The section's revision once the write is committed. */
  revision: number
  /** The whole document with this write applied, as the transaction built it (shares every other section). */
  document: SettingsDocument
  /** Each fed instance's value (or failure) against the written document, as judged before storing. */
  judged: ReadonlyMap<Instance, Judgment>
}

/**
 * The committed state of the seam: the document as last stored, its
 * sections' revisions, and the instances' values derived from it. Outside
 * changes are folded in here, and judged writes committed, in both cases
 * followed by the events they cause.
 */
export class Commits {
  private committed: SettingsDocument = {}
  /** The shape problems of the last document adopted, each warned about once. */
  private problems = new Set<string>()

  constructor(
    private readonly registry: Registry,
    readonly revisions: Revisions,
    private readonly events: SettingsEvents,
    private readonly logger: Logger,
  ) {}

  /** The document as the seam last saw it stored. Shared structure: never mutate it. */
  get document(): SettingsDocument {
    return this.committed
  }

  /** The current revision of a section. */
  revision(key: SectionKey): number {
    return this.revisions.get(sectionId(key.ns, key.scope))
  }

  /**
   * Take the provider's initial document, before any instance exists. A
   * snapshot makes the store's versions the revisions from now on.
   */
  start(loaded: unknown): void {
    if (loaded instanceof SettingsSnapshot) {
      this.revisions.adoptStoreVersions(versionMap(loaded.versions))
      this.committed = this.adopt(loaded.document)
    } else this.committed = this.adopt(loaded)
  }

  /** Copy a provider's document, warning once about each shape problem it newly has (not again on every write). */
  private adopt(document: unknown): SettingsDocument {
    const { doc, problems } = adoptDocument(document, this.committed)
    for (const problem of problems) if (!this.problems.has(problem)) this.logger.warn(`settings: ${problem}`)
    this.problems = new Set(problems)
    return doc
  }

  /**
   * Make a document the store holds authoritative: announce every section
   * that changed since the last commit under its new revision, then
   * re-resolve the instances those sections feed (source `provider`). An
   * instance that no longer resolves keeps its last good value.
   *
   * With store-owned revisions the input must be a {@link SettingsSnapshot}
   * (unless it is the committed document itself), and a changed section is
   * taken only when the store lists it at a version newer than the committed
   * one: an older or unlisted one is a late echo and keeps what is committed.
   * @returns the document as committed now.
   * @throws {SettingsProviderContractError} for a snapshot the provider's kind of revisions cannot take.
   */
  observe(input: unknown, invariants: unknown[], options: { transaction?: boolean } = {}): SettingsDocument {
    const snapshot = input instanceof SettingsSnapshot ? input : undefined
    const document = snapshot ? snapshot.document : input
    const owned = this.revisions.storeOwned
    if (snapshot && !owned) throw new SettingsProviderContractError('the provider handed over store versions, but its load() reported none: load() must answer a SettingsSnapshot for revisions to be the store\'s')
    const versions = snapshot ? versionMap(snapshot.versions) : undefined
    // The document this seam committed last, handed back as it was: nothing changed, nothing to copy or compare.
    if (document === this.committed) {
      if (versions) this.raise(versions)
      return this.committed
    }
    if (owned && !versions) throw new SettingsProviderContractError('the provider reports store versions: hand the seam a SettingsSnapshot (the document with its versions), not a bare document')
    const next = this.adopt(document)
    let changed = changedSections(this.committed, next)
    if (versions) {
      const taken: SectionKey[] = []
      for (const key of changed) {
        const version = versions.get(sectionId(key.ns, key.scope))
        if (version !== undefined && version > this.revision(key)) taken.push(key)
        // Inside a transaction the snapshot is what the store holds now and what the write builds on: keeping the
        // committed section instead would store it over the store's newer one. That is the provider's bug; say so.
        else if (options.transaction) {
          throw new SettingsProviderContractError(
            `the snapshot handed to apply() changes ${sectionLabel(key.ns, key.scope)} without a store version newer than the committed one: list the version of every section that differs from what the seam last saw`,
            key,
          )
        } else putSection(next, key, getSection(this.committed, key.ns, key.scope))
      }
      changed = taken
      this.raise(versions)
    }
    this.committed = next
    const affected = new Set<Instance>()
    for (const key of changed) {
      const id = sectionId(key.ns, key.scope)
      const revision = owned ? this.revisions.get(id) : this.revisions.bump(id)
      const kind = isWellNamed(key) ? this.registry.kinds.get(key.ns) : undefined
      // Announced only for a section something can read: a namespace of a known kind, in a well-formed scope.
      if (!kind) continue
      this.events.sectionChanged(key, revision, invariants)
      if (key.scope === undefined) kind.instances.forEach((instance) => affected.add(instance))
      else if (kind.instances.has(key.scope)) affected.add(kind.instances.get(key.scope)!)
    }
    for (const instance of affected) this.settle(instance, this.judge(instance), 'provider', invariants)
    return this.committed
  }

  /** Take the store's newer versions; a version never goes back. */
  private raise(versions: ReadonlyMap<string, number>): void {
    for (const [id, version] of versions) if (version > this.revisions.get(id)) this.revisions.set(id, version)
  }

  /** Commit one judged write: the section, its revision and announcement, then the values judged for the instances it feeds. */
  commit(key: SectionKey, outcome: WriteOutcome, invariants: unknown[]): void {
    if (!outcome.changed) return
    // The transaction built this document from the committed one (nothing may commit in between): take it as is.
    this.committed = outcome.document
    this.revisions.set(sectionId(key.ns, key.scope), outcome.revision)
    this.events.sectionChanged(key, outcome.revision, invariants)
    const kind = this.registry.kinds.get(key.ns)
    if (!kind) return
    const affected = key.scope === undefined ? [...kind.instances.values()] : [kind.instances.get(key.scope)]
    for (const instance of affected) {
      // An instance registered while the store was writing was not judged with the write: it resolves now.
      if (instance) this.settle(instance, outcome.judged.get(instance) ?? this.judge(instance), 'update', invariants)
    }
  }

  /** Resolve a live instance against the committed document. */
  private judge(instance: Instance): Judgment {
    return judgeSite(instance.kind, instance, instance.scope, this.committed)
  }

  /** Give an instance its judged value and tell of the change, or keep its last good value when it failed. */
  private settle(instance: Instance, judgment: Judgment, source: SettingsUpdateSource, invariants: unknown[]): void {
    if (!instance.alive) return
    if (!judgment.ok) {
      instance.failing = true
      const label = sectionLabel(instance.kind.ns, instance.scope)
      this.logger.warn(`settings: keeping last good ${label} after invalid stored section: ${(judgment.error as Error).message}`)
      return
    }
    instance.failing = false
    if (dataEqual(judgment.value, instance.value)) return
    const prev = instance.value
    instance.value = judgment.value
    this.events.valueChanged(instance, judgment.value, prev, source, invariants)
  }
}
