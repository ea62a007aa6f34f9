import type { Logger } from 'cordis'
import { dataEqual } from './equal.ts'
import { adoptDocument, changedSections, getSection, isWellNamed, putSection, sectionId, type SectionKey } from './document.ts'
import { SettingsProviderContractError } from './errors.ts'
import type { SettingsEvents } from './events.ts'
import { sectionLabel } from './ids.ts'
import { tryResolve, type ResolveResult } from './resolve-instances.ts'
import type { SettingsSectionChange } from './overlay.ts'
import type { Instance, Registry } from './registry.ts'
import type { Revisions } from './revisions.ts'
import { SettingsChanges, SettingsSnapshot, versionMap } from './snapshot.ts'
import type { SettingsDocument, SettingsUpdateSource } from './types.ts'

/** What a checked write stores and what it makes of each instance it feeds. */
export interface WriteOutcome {
  /** The section the write stores. */
  section: unknown
  /** Whether it differs from what was stored; an unchanged write commits nothing. */
  changed: boolean
  /** The section's revision once the write is committed. */
  revision: number
  /** Each fed instance's value (or failure) against the written document, resolved before storing. */
  resolved: ReadonlyMap<Instance, ResolveResult>
}

/**
 * The committed state of the seam: the document as last stored, its
 * sections' revisions, and the instances' values derived from it. Outside
 * changes are folded in here, and checked writes committed, in both cases
 * followed by the events they cause.
 *
 * The committed document is the seam's own: its root and `scopes` maps are
 * changed in place, one section at a time, and a section object is never
 * changed once committed, so a commit costs the sections it changes whatever
 * the size of the document.
 */
export class CommittedState {
  private committed: SettingsDocument = {}
  /** The shape problems of the last document adopted, each warned about once. */
  private problems = new Set<string>()

  constructor(
    private readonly registry: Registry,
    readonly revisions: Revisions,
    private readonly events: SettingsEvents,
    private readonly logger: Logger,
    /** Told when a registration waiting for values now resolves. */
    private readonly setupDone: (instance: Instance) => void = () => {},
  ) {}

  /** The document as the seam holds it now: a live view, changed in place by later commits (copy it to keep it). */
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
   * Make what the store holds authoritative: take a change the provider
   * observed on its own, announce every section that changed under its new
   * revision, then re-resolve the instances those sections feed (source
   * `provider`). An instance that no longer resolves keeps its last good value.
   *
   * The input is the changed sections ({@link SettingsChanges}: only those are
   * looked at), or a whole document (or {@link SettingsSnapshot}), compared
   * section by section with the committed one. With store-owned revisions a
   * changed section is taken only when the store lists it at a version newer
   * than the committed one: an older or unlisted one is a late echo and keeps
   * what is committed.
   * @throws {SettingsProviderContractError} for input the provider's kind of revisions cannot take.
   */
  observe(input: unknown, invariants: unknown[]): void {
    const owned = this.revisions.storeOwned
    if (input instanceof SettingsChanges) return this.announce(this.takeChanges(input.changes, owned), invariants)
    const snapshot = input instanceof SettingsSnapshot ? input : undefined
    if (snapshot && !owned) throw new SettingsProviderContractError('the provider handed over store versions, but its load() reported none: load() must answer a SettingsSnapshot for revisions to be the store\'s')
    if (owned && !snapshot) throw new SettingsProviderContractError('the provider reports store versions: hand the seam a SettingsSnapshot (the document with its versions) or SettingsChanges with versions, not a bare document')
    const document = snapshot ? snapshot.document : input
    const versions = snapshot ? versionMap(snapshot.versions) : undefined
    // The seam's own document handed back: nothing changed.
    if (document === this.committed) {
      if (versions) this.takeNewerVersions(versions)
      return
    }
    const next = this.adopt(document)
    const taken: SectionKey[] = []
    for (const key of changedSections(this.committed, next)) {
      const id = sectionId(key.ns, key.scope)
      const version = versions?.get(id)
      if (!versions) this.revisions.bump(id)
      else if (version !== undefined && version > this.revision(key)) this.revisions.set(id, version)
      // An unlisted or older section is a late echo: what is committed stays.
      else {
        putSection(next, key, getSection(this.committed, key.ns, key.scope))
        continue
      }
      taken.push(key)
    }
    if (versions) this.takeNewerVersions(versions)
    this.committed = next
    this.announce(taken, invariants)
  }

  /** Put changed sections into the committed document in place; answers the ones that changed what is committed. */
  private takeChanges(changes: Iterable<SettingsSectionChange>, owned: boolean): SectionKey[] {
    const taken: SectionKey[] = []
    for (const change of changes) {
      const key: SectionKey = change.scope === undefined ? { ns: change.ns } : { ns: change.ns, scope: change.scope }
      const id = sectionId(key.ns, key.scope)
      if (owned) {
        if (change.version === undefined) throw new SettingsProviderContractError(`the provider reports store versions: the change of ${sectionLabel(key.ns, key.scope)} needs its version`, key)
        const version = versionMap([{ ...key, version: change.version }]).get(id)!
        // An older or equal version is a late echo of what the seam already holds.
        if (version <= this.revisions.get(id)) continue
        this.revisions.set(id, version)
      }
      const current = getSection(this.committed, key.ns, key.scope)
      if (current === change.section || dataEqual(current, change.section)) continue
      putSection(this.committed, key, change.section)
      if (!owned) this.revisions.bump(id)
      taken.push(key)
    }
    return taken
  }

  /** Announce changed sections and re-resolve the instances they feed (source `provider`). */
  private announce(taken: readonly SectionKey[], invariants: unknown[]): void {
    const affected = new Set<Instance>()
    for (const key of taken) {
      const kind = isWellNamed(key) ? this.registry.kinds.get(key.ns) : undefined
      // Announced only for a section something can read: a namespace of a known kind, in a well-formed scope.
      if (!kind) continue
      this.events.sectionChanged(key, this.revision(key), invariants)
      if (key.scope === undefined) kind.instances.forEach((instance) => affected.add(instance))
      else if (kind.instances.has(key.scope)) affected.add(kind.instances.get(key.scope)!)
    }
    for (const instance of affected) this.applyResolved(instance, this.resolveCommitted(instance), 'provider', invariants)
  }

  /** Raise revisions to the store's newer versions; a revision never goes back. */
  private takeNewerVersions(versions: ReadonlyMap<string, number>): void {
    for (const [id, version] of versions) if (version > this.revisions.get(id)) this.revisions.set(id, version)
  }

  /** Commit one checked write: the section, its revision and announcement, then the values resolved for the instances it feeds. */
  commit(key: SectionKey, outcome: WriteOutcome, invariants: unknown[]): void {
    if (!outcome.changed) return
    putSection(this.committed, key, outcome.section)
    this.revisions.set(sectionId(key.ns, key.scope), outcome.revision)
    this.events.sectionChanged(key, outcome.revision, invariants)
    const kind = this.registry.kinds.get(key.ns)
    if (!kind) return
    const affected = key.scope === undefined ? [...kind.instances.values()] : [kind.instances.get(key.scope)]
    for (const instance of affected) {
      // An instance registered while the store was writing was not resolved with the write: it resolves now.
      if (instance) this.applyResolved(instance, outcome.resolved.get(instance) ?? this.resolveCommitted(instance), 'update', invariants)
    }
  }

  /** Resolve a live instance against the committed document. */
  private resolveCommitted(instance: Instance): ResolveResult {
    return tryResolve(instance.kind, instance, instance.scope, this.committed)
  }

  /** Give an instance its resolved value and tell of the change, or keep its last good value when it failed. */
  private applyResolved(instance: Instance, result: ResolveResult, source: SettingsUpdateSource, invariants: unknown[]): void {
    if (!instance.alive) return
    if (instance.setup) {
      // A registration waiting for values: what is given so far is kept; once it resolves, its plugin starts again.
      if (result.ok) this.setupDone(instance)
      return
    }
    if (!result.ok) {
      instance.failing = true
      const label = sectionLabel(instance.kind.ns, instance.scope)
      this.logger.warn(`settings: keeping last good ${label} after invalid stored section: ${(result.error as Error).message}`)
      return
    }
    instance.failing = false
    if (dataEqual(result.value, instance.value)) return
    const prev = instance.value
    instance.value = result.value
    this.events.valueChanged(instance, result.value, prev, source, invariants)
  }
}
