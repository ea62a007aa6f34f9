import type { Logger } from 'cordis'
import type { WriteOutcome } from './commit.ts'
import { dataEqual } from './equal.ts'
import { getSection, sectionId, withSection, type SectionKey } from './document.ts'
import { SettingsConflictError, SettingsInputError, SettingsProviderContractError, SettingsUnavailableError } from './errors.ts'
import { optionalScopeId, sectionLabel, settingsNamespace, settingsRevision } from './ids.ts'
import { judgeWrite } from './judge.ts'
import { GroupQueue } from './queue.ts'
import type { Instance, Kind } from './registry.ts'
import type { SettingsDocument, SettingsNamespace, SettingsScopeId, SettingsWriteOrigin } from './types.ts'
import { SettingsSnapshot, versionMap, type SettingsSectionVersion } from './snapshot.ts'
import { checkPayload, deriveSection, type WriteMode, type WritePayload } from './writes.ts'

/**
 * One write transaction as a provider runs it: inside its critical section the
 * provider reads the freshest stored document, passes it to `apply`, stores
 * what `apply` returns (nothing to store when it returns the document it was
 * given), then calls `commit` before it leaves the critical section. Throwing
 * before `commit` aborts every write of the transaction with that error.
 * `apply` may be called again (the store changed under the first result); only
 * the last result counts. Callers are told their outcome once `transact` has
 * returned, so nothing the provider holds (a lock) outlives an awaited write.
 *
 * Neither side mutates the documents they pass: `apply` reads `current`
 * without changing it, and the document it returns is never changed by the
 * seam afterwards. A provider may keep that document as it is and hand it back
 * as the next `current`; sections the seam already holds are then reused, not
 * copied or compared, so a write costs what it changed.
 *
 * A provider with store-owned revisions (its `load()` answered a
 * {@link SettingsSnapshot}) hands `apply` a snapshot carrying the versions of
 * what it read (the seam checks each `expectedRevision` against them), and
 * hands `commit` the new version of every section it stored.
 */
export interface SettingsTransaction {
  /**
   * Fold in outside changes, then derive, check and validate the queued
   * writes. Answers the document to store.
   * @throws {SettingsProviderContractError} only for input the provider's kind of revisions cannot take.
   */
  apply(current: SettingsDocument | SettingsSnapshot): SettingsDocument
  /**
   * Make the stored result authoritative in-process: revisions, values and events.
   * @param versions - with store-owned revisions, the new version of each section the transaction stored.
   * @throws {SettingsProviderContractError} when a stored section has no newer version; every write of the transaction then fails.
   */
  commit(versions?: Iterable<SettingsSectionVersion>): void
  /** Who made the writes of the last `apply` that changed something, for a provider that records it (history). */
  readonly origins: ReadonlySet<SettingsWriteOrigin>
}

/** What the engine needs from a provider. */
export interface SettingsBackend {
  readonly writable: boolean
  transact(transaction: SettingsTransaction): Promise<void>
}

/**
 * What the write path reads from the rest of the seam, and where it hands
 * its results: nothing else of the seam is reachable from a write.
 */
export interface WriteLedger {
  /** Whether the service has begun stopping: queued writes are refused. */
  readonly stopped: boolean
  readonly logger: Logger
  /** The live kind registered under `ns`. */
  kind(ns: string): Kind | undefined
  /** Whether revisions are the store's versions, handed over at commit. */
  readonly storeOwned: boolean
  /** The committed revision of a section. */
  revision(key: SectionKey): number
  /** Fold the store's current document in as outside changes; answers the document as committed now. */
  observe(current: SettingsDocument | SettingsSnapshot, invariants: unknown[]): SettingsDocument
  /** Commit one stored, judged write. */
  commit(key: SectionKey, outcome: WriteOutcome, invariants: unknown[]): void
}

/** A write request as the service receives it, before any check. */
export interface WriteRequest {
  ns: unknown
  scope?: unknown
  mode: WriteMode
  payload: unknown
  expectedRevision?: unknown
  owner?: Instance
  /** Who writes; `host` when not said. */
  origin?: SettingsWriteOrigin
}

interface PendingWrite {
  key: { ns: SettingsNamespace; scope?: SettingsScopeId }
  label: string
  payload: WritePayload
  expectedRevision?: number
  owner?: Instance
  origin: SettingsWriteOrigin
  outcome?: WriteOutcome
  failure?: unknown
  resolve(): void
  reject(error: unknown): void
}

const WRITE_ORIGINS: ReadonlySet<unknown> = new Set<SettingsWriteOrigin>(['plugin', 'wire', 'host'])

/** The pending revision of a section a store-owned write changed: no `expectedRevision` (never negative) matches it. */
const UNKNOWN_REVISION = -1

function disposedBeforeRun(write: PendingWrite): SettingsUnavailableError {
  return new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service was disposed before the queued ${sectionLabel(write.key.ns, write.key.scope)} write ran`, write.key)
}

/**
 * The write path: call-time checks, the ordered queue, and the transaction
 * each group of queued writes runs through the provider. Each write is
 * derived and judged once inside the transaction; what it judged is handed
 * to the ledger's `commit`, which resolves nothing again.
 */
export class WriteRunner {
  private readonly queue = new GroupQueue<PendingWrite>((group) => this.runGroup(group))

  constructor(private readonly ledger: WriteLedger, private readonly backend: SettingsBackend) {}

  /** Reject every write that has not started, then wait for the running group. */
  async stop(): Promise<void> {
    for (const write of this.queue.takePending()) write.reject(disposedBeforeRun(write))
    await this.queue.idle()
  }

  /** Check a write at call time, queue it, and settle once it committed or failed. */
  write(request: WriteRequest): Promise<void> {
    let write: PendingWrite
    try {
      write = this.prepare(request)
    } catch (error) {
      return Promise.reject(error)
    }
    return new Promise<void>((resolve, reject) => {
      write.resolve = resolve
      write.reject = reject
      this.queue.push(write)
    })
  }

  private prepare(request: WriteRequest): PendingWrite {
    const ns = settingsNamespace(request.ns)
    const scope = optionalScopeId(request.scope)
    const key = { ns, scope }
    const label = `settings ${request.mode} for ${sectionLabel(ns, scope)}`
    const expectedRevision = settingsRevision(request.expectedRevision, key)
    const payload = checkPayload(request.mode, request.payload, { label, ns, scope })
    if (request.origin !== undefined && !WRITE_ORIGINS.has(request.origin)) {
      throw new SettingsInputError(`${label}: origin must be one of ${[...WRITE_ORIGINS].join(', ')} or absent`, { ns, scope })
    }
    if (this.ledger.stopped) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service is disposed: ${sectionLabel(ns, scope)} cannot be written`, key)
    if (request.owner && !request.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(ns, scope)} registration is disposed`, key)
    }
    if (!this.ledger.kind(ns)) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(ns)} is not registered`, key)
    if (!this.backend.writable) throw new SettingsUnavailableError('SETTINGS_READ_ONLY', `settings provider is read-only: ${label} cannot persist`, key)
    const write: PendingWrite = { key, label, payload, owner: request.owner, origin: request.origin ?? (request.owner ? 'plugin' : 'host'), resolve: () => {}, reject: () => {} }
    if (expectedRevision !== undefined) write.expectedRevision = expectedRevision
    return write
  }

  private async runGroup(group: PendingWrite[]): Promise<void> {
    if (!group.length) return
    if (this.ledger.stopped) {
      for (const write of group) write.reject(disposedBeforeRun(write))
      return
    }
    let settle: (() => void) | undefined
    const invariants: unknown[] = []
    const transaction: SettingsTransaction = {
      apply: (current) => this.applyGroup(group, current, invariants),
      commit: (versions) => {
        settle ??= this.commitGroup(group, invariants, versions)
      },
      get origins() {
        return new Set(group.filter((write) => write.failure === undefined && write.outcome?.changed).map((write) => write.origin))
      },
    }
    try {
      await this.backend.transact(transaction)
      transaction.commit()
    } catch (error) {
      if (!settle) {
        for (const write of group) write.reject(write.failure ?? error)
        return
      }
      this.ledger.logger.warn('settings: the provider failed after committing a transaction', error)
    }
    // Callers hear their outcome only once the provider has left its critical section (its lock is released).
    settle!()
  }

  /** Inside the provider's critical section: fold in outside changes, then derive every write in order. */
  private applyGroup(group: PendingWrite[], current: SettingsDocument | SettingsSnapshot, invariants: unknown[]): SettingsDocument {
    let doc = this.ledger.observe(current, invariants)
    let changed = false
    const pending = new Map<string, number>()
    for (const write of group) {
      write.outcome = undefined
      write.failure = undefined
      try {
        const derived = this.derive(write, doc, pending)
        write.outcome = derived.outcome
        if (derived.outcome.changed) {
          doc = derived.doc
          changed = true
        }
      } catch (error) {
        write.failure = error
      }
    }
    // Nothing to store: hand back exactly what the provider gave, so it can tell.
    if (!changed) return current instanceof SettingsSnapshot ? current.document : current
    return doc
  }

  /** Derive one write from `doc`, check its revision, and judge every value it feeds. */
  private derive(write: PendingWrite, doc: SettingsDocument, pending: Map<string, number>): { doc: SettingsDocument; outcome: WriteOutcome } {
    const { key, label } = write
    if (write.owner && !write.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(key.ns, key.scope)} registration was disposed before the queued ${write.payload.mode} ran`, key)
    }
    const kind = this.ledger.kind(key.ns)
    if (!kind) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(key.ns)} is not registered`, key)
    const id = sectionId(key.ns, key.scope)
    const revision = pending.get(id) ?? this.ledger.revision(key)
    if (write.expectedRevision !== undefined && write.expectedRevision !== revision) {
      throw new SettingsConflictError({ ...key, expected: write.expectedRevision, actual: revision })
    }
    const stored = getSection(doc, key.ns, key.scope)
    const section = deriveSection(stored, write.payload, { label, ns: key.ns, scope: key.scope })
    const changed = !dataEqual(stored, section)
    if (!changed) return { doc, outcome: { section, changed, revision, document: doc, judged: new Map() } }
    const next = withSection(doc, key, section)
    const judged = judgeWrite(kind, key, next, doc)
    // A store-owned revision is known only at commit; until then no later write of the group may expect one.
    const after = this.ledger.storeOwned ? UNKNOWN_REVISION : revision + 1
    pending.set(id, after)
    return { doc: next, outcome: { section, changed, revision: after, document: next, judged } }
  }

  /**
   * After the provider stored the group: commit each write in order. Returns
   * how to tell each caller its outcome, which runs once the provider's
   * transaction has returned.
   */
  private commitGroup(group: PendingWrite[], foldInvariants: unknown[], versions: Iterable<SettingsSectionVersion> | undefined): () => void {
    const last = this.ledger.storeOwned ? this.takeStoreVersions(group, versions) : undefined
    if (!last && versions !== undefined) throw new SettingsProviderContractError('the provider handed commit() store versions, but its load() reported none')
    const outcomes: (() => void)[] = []
    for (const write of group) {
      if (write.failure !== undefined || !write.outcome) {
        const error = write.failure ?? new Error(`settings provider committed ${write.label} without applying it`)
        outcomes.push(() => write.reject(error))
        continue
      }
      if (this.ledger.stopped) {
        outcomes.push(() => write.resolve())
        continue
      }
      const invariants = foldInvariants.splice(0)
      // With store versions the group's intermediate states of a section were never stored: only its last write announces it.
      if (!last || !write.outcome.changed || last.get(sectionId(write.key.ns, write.key.scope)) === write) this.ledger.commit(write.key, write.outcome, invariants)
      outcomes.push(invariants.length ? () => write.reject(invariants[0]) : () => write.resolve())
    }
    return () => outcomes.forEach((settle) => settle())
  }

  /**
   * Give each changed write the store's new version of its section, checking
   * first that every stored section has one newer than its committed revision.
   * @returns the last changed write of each section.
   */
  private takeStoreVersions(group: PendingWrite[], versions: Iterable<SettingsSectionVersion> | undefined): Map<string, PendingWrite> {
    const map = versionMap(versions ?? [])
    const last = new Map<string, PendingWrite>()
    for (const write of group) {
      if (write.failure !== undefined || !write.outcome?.changed) continue
      const id = sectionId(write.key.ns, write.key.scope)
      const version = map.get(id)
      if (version === undefined || version <= this.ledger.revision(write.key)) {
        throw new SettingsProviderContractError(`the provider stored ${sectionLabel(write.key.ns, write.key.scope)} but handed commit() no newer store version for it`, write.key)
      }
      write.outcome.revision = version
      last.set(id, write)
    }
    return last
  }
}
