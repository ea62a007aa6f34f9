import type { Logger } from 'cordis'
import { dataEqual } from './equal.ts'
import { adoptDocument, changedSections, isWellNamed, sectionId, type SectionKey } from './document.ts'
import type { SettingsEvents } from './events.ts'
import { sectionLabel } from './ids.ts'
import { judgeSite, type Judgment } from './judge.ts'
import type { Instance, Registry } from './registry.ts'
import type { Revisions } from './revisions.ts'
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

  /** Take the provider's initial document, before any instance exists. */
  start(document: unknown): void {
    this.committed = this.adopt(document)
  }

  /** Copy a provider's document, warning once about each shape problem it newly has (not again on every write). */
  private adopt(document: unknown): SettingsDocument {
    const { doc, problems } = adoptDocument(document, this.committed)
    for (const problem of problems) if (!this.problems.has(problem)) this.logger.warn(`settings: ${problem}`)
    this.problems = new Set(problems)
    return doc
  }

  /**
   * Make a document the store holds authoritative: bump and announce every
   * section that changed since the last commit, then re-resolve the instances
   * those sections feed (source `provider`). An instance that no longer
   * resolves keeps its last good value.
   * @returns the document as committed now.
   */
  observe(document: unknown, invariants: unknown[]): SettingsDocument {
    // The document this seam committed last, handed back as it was: nothing changed, nothing to copy or compare.
    if (document === this.committed) return this.committed
    const next = this.adopt(document)
    const changed = changedSections(this.committed, next)
    this.committed = next
    const affected = new Set<Instance>()
    for (const key of changed) {
      const revision = this.revisions.bump(sectionId(key.ns, key.scope))
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
