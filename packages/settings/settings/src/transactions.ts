import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from 'cordis'
import type { WriteOutcome } from './commit.ts'
import { dataEqual } from './equal.ts'
import { sectionId, type SectionKey } from './document.ts'
import { SettingsConflictError, SettingsInputError, SettingsProviderContractError, SettingsStoreError, SettingsUnavailableError } from './errors.ts'
import { optionalScopeId, sectionLabel, settingsNamespace, settingsRevision } from './ids.ts'
import { resolveAfterWrite } from './resolve-instances.ts'
import { GroupQueue } from './queue.ts'
import type { Instance, Kind } from './registry.ts'
import type { JsonObject, SettingsChangeOrigin, SettingsDocument, SettingsNamespace, SettingsScopeId, SettingsSecretOrigin, SettingsWriteOrigin } from './types.ts'
import { SectionOverlay, type SettingsSectionChange, type SettingsSectionRead } from './overlay.ts'
import { versionMap, type SettingsSectionVersion } from './snapshot.ts'
import { deriveVersioned } from './migrations.ts'
import { checkPayload, type WriteMode, type WritePayload } from './writes.ts'

/**
 * One group of queued writes on its way to the store: the sections it
 * changes, the committed sections it was derived and resolved from, and who made
 * it. The seam derives and validates the writes before handing the transaction
 * over, once; the provider stores the changes in one step of its own (a file
 * replaced under a lock, a database transaction) only if the store still holds
 * every section in `reads`, and answers how it went:
 * - stored: nothing, or with store-owned revisions the new version of every
 *   section it stored (`{ versions }`);
 * - `{ moved: true }`: the store changed under a section the writes read. The
 *   provider first publishes what it found (see `SettingsProvider.publish`);
 *   the seam takes that, derives the writes again, and hands over a new
 *   transaction. Nothing was stored.
 *
 * A throw fails every write of the transaction with that error; nothing is
 * committed. Neither side changes the sections the other handed over: the seam
 * never changes a section once derived, and a provider keeps what it stored as
 * it got it (and may hand the same objects back in `publish`).
 */
export interface SettingsTransaction {
  /**
   * The sections to store, each with its next raw content (`undefined`: remove
   * it), in the order first written. Empty when the seam only asks the store to
   * confirm the reads (a revision newer than this host has seen): answer
   * `{ moved: true }` (after publishing) if they moved, else nothing.
   */
  readonly changes: readonly SettingsSectionChange[]
  /** The committed sections the writes were derived and resolved from, with the revisions the seam holds for them. */
  readonly reads: readonly SettingsSectionRead[]
  /** Who made the changes, for a provider that records it (history). */
  readonly origins: ReadonlySet<SettingsChangeOrigin>
}

/** How a provider's `store` went: stored (with store-owned versions), or moved under the transaction's reads. */
export type SettingsStoreResult = void | { readonly moved: true } | { readonly moved?: false; readonly versions?: Iterable<SettingsSectionVersion> }

/** What the engine needs from a provider. */
export interface SettingsBackend {
  readonly writable: boolean
  /** Store one transaction's changes if the store still holds its reads. */
  store(transaction: SettingsTransaction): Promise<SettingsStoreResult>
  /** The store's refusal of a section it cannot hold, or `undefined`: asked per changed write, it fails that write alone. */
  cannotHold?(key: SectionKey, section: JsonObject): Error | undefined
  /** Where the secret at `path` of a stored section gets its value when the store holds a reference there; asked by describe. */
  secretSource?(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined
}

/**
 * What the write path reads from the rest of the seam, and where it hands
 * its results: nothing else of the seam is reachable from a write.
 */
export interface WriteHost {
  /** Whether the service has begun stopping: queued writes are refused. */
  readonly stopped: boolean
  readonly logger: Logger
  /** The live kind registered under `ns`. */
  kind(ns: string): Kind | undefined
  /** Whether revisions are the store's versions, handed over at commit. */
  readonly storeOwned: boolean
  /** The committed revision of a section. */
  revision(key: SectionKey): number
  /** The committed document, to derive a pass from. Shared: never change it. */
  readonly document: SettingsDocument
  /** Hold back the provider's publishes while a transaction is stored; the answer lets them through again. */
  holdPublishes(): () => void
  /** Take the publishes held back so far, now (before the stored changes are committed). */
  takePublishes(): void
  /** Commit one stored, checked write. */
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
  origin: SettingsChangeOrigin
  outcome?: WriteOutcome
  failure?: unknown
  /** An `INVARIANT` listener failure its commit met: the writer hears it instead of success. */
  invariant?: unknown
  resolve(): void
  reject(error: unknown): void
}

const WRITE_ORIGINS: ReadonlySet<unknown> = new Set<SettingsWriteOrigin>(['plugin', 'wire', 'host', 'command'])

/**
 * How many times a group is derived again after the store moved under it,
 * before it gives up. With k hosts all writing one section a pass is lost
 * about (k-1)/k of the time: 24 passes left four hosts a 1-in-1000 chance of a
 * refused write (two in a full torture run of 2,727 writes); 64 make it ~1e-8.
 */
const MAX_PASSES = 64

/**
 * The longest pause before deriving a group again after the store moved: the
 * pause after pass `n` is random up to `min(2^n, this)` ms. Hosts sharing a
 * store that all write one section would otherwise queue for its lock in
 * the same order and the same host could lose every pass (a CI torture run
 * saw 8 losses in a row); a random pause lets one of them through, and a
 * longer cap spreads hosts that keep colliding further apart.
 */
const MAX_RETRY_PAUSE_MS = 100

/** The pending revision of a section a store-owned write changed: no `expectedRevision` (never negative) matches it. */
const UNKNOWN_REVISION = -1

function disposedBeforeRun(write: PendingWrite): SettingsUnavailableError {
  return new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service was disposed before the queued ${sectionLabel(write.key.ns, write.key.scope)} write ran`, write.key)
}

/**
 * The write path: call-time checks, the ordered queue, and the transaction
 * each group of queued writes runs through the provider. Each write is
 * derived and its values resolved once inside the transaction; what it
 * resolved goes to the host's `commit`, which resolves nothing again.
 */
export class WriteRunner {
  private readonly queue = new GroupQueue<PendingWrite>((group) => this.runGroup(group))

  constructor(private readonly host: WriteHost, private readonly backend: SettingsBackend) {}

  /** Reject every write that has not started, then wait for the running group. */
  async stop(): Promise<void> {
    for (const write of this.queue.takePending()) write.reject(disposedBeforeRun(write))
    await this.queue.idle()
  }

  /** Check a write at call time and queue it; resolves once it committed, rejects when it failed. */
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
    if (this.host.stopped) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service is disposed: ${sectionLabel(ns, scope)} cannot be written`, key)
    if (request.owner && !request.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(ns, scope)} registration is disposed`, key)
    }
    if (!this.host.kind(ns)) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(ns)} is not registered`, key)
    if (!this.backend.writable) throw new SettingsUnavailableError('SETTINGS_READ_ONLY', `settings provider is read-only: ${label} cannot persist`, key)
    const write: PendingWrite = { key, label, payload, owner: request.owner, origin: request.mode === 'migrate' ? 'migration' : (request.origin ?? (request.owner ? 'plugin' : 'host')), resolve: () => {}, reject: () => {} }
    if (expectedRevision !== undefined) write.expectedRevision = expectedRevision
    return write
  }

  /**
   * Run one group of queued writes to its end: derive and resolve every write
   * against the committed document, hand the changes to the store once, and
   * commit what it stored. When the store moved under the group's reads (the
   * provider published what it found meanwhile), the group is derived again
   * from the document as now committed, up to {@link MAX_PASSES} times.
   */
  private async runGroup(group: PendingWrite[]): Promise<void> {
    if (!group.length) return
    for (let pass = 1; pass <= MAX_PASSES; pass++) {
      if (this.host.stopped) {
        for (const write of group) write.reject(disposedBeforeRun(write))
        return
      }
      const { transaction: derived, unsure } = this.derivePass(group)
      // A pass with no changes stores nothing, unless a refusal may only mean this host has not heard of the store's change yet.
      if (!derived.changes.length && !unsure) return this.answerWriters(group)
      // Changes the provider publishes while it stores are older than what it stores: they are taken before the commit.
      const release = this.host.holdPublishes()
      let result: SettingsStoreResult
      try {
        result = await this.backend.store(derived)
      } catch (error) {
        release()
        for (const write of group) write.reject(write.failure ?? error)
        return
      }
      this.host.takePublishes()
      if (result && result.moved === true) {
        release()
        if (pass > 1) await sleep(Math.random() * Math.min(2 ** pass, MAX_RETRY_PAUSE_MS))
        continue
      }
      try {
        this.commitPass(group, result?.versions)
      } catch (error) {
        // The store holds the changes, but the provider broke the contract (no version for a stored section): say so to every writer.
        for (const write of group) write.reject(write.failure ?? error)
        return
      } finally {
        release()
      }
      return this.answerWriters(group)
    }
    const busy = new SettingsStoreError('SETTINGS_STORE_BUSY', `the settings store kept changing under the queued writes (${MAX_PASSES} attempts); nothing was written`, 'settings')
    for (const write of group) write.reject(write.failure ?? busy)
  }

  /** Tell every writer of the group its outcome; a write whose commit met an `INVARIANT` listener failure gets that failure. */
  private answerWriters(group: PendingWrite[]): void {
    for (const write of group) {
      if (write.failure !== undefined || !write.outcome) write.reject(write.failure ?? new Error(`settings ${write.label} was not derived`))
      else if (write.invariant !== undefined) write.reject(write.invariant)
      else write.resolve()
    }
  }

  /**
   * Derive every write of the group, in order, each over the previous one's
   * result, against the committed document. `unsure` says a write was refused
   * for a store-owned revision newer than the committed one: this host may
   * not have taken the store's change yet, so the store must confirm the reads
   * (and send the group back if it moved) before that refusal stands.
   */
  private derivePass(group: PendingWrite[]): { transaction: SettingsTransaction; unsure: boolean } {
    const overlay = new SectionOverlay(this.host.document, (key) => this.host.revision(key))
    const pending = new Map<string, number>()
    let unsure = false
    for (const write of group) {
      write.outcome = undefined
      write.failure = undefined
      write.invariant = undefined
      try {
        write.outcome = this.derive(write, overlay, pending)
      } catch (error) {
        write.failure = error
        if (error instanceof SettingsConflictError && this.host.storeOwned && error.expected > error.actual && !pending.has(sectionId(write.key.ns, write.key.scope))) unsure = true
      }
    }
    const origins = new Set(group.filter((write) => write.outcome?.changed).map((write) => write.origin))
    return { transaction: { changes: overlay.changes(), reads: overlay.reads(), origins }, unsure }
  }

  /** Derive one write over the pass so far, check its revision, and resolve every value it feeds. */
  private derive(write: PendingWrite, overlay: SectionOverlay, pending: Map<string, number>): WriteOutcome {
    const { key, label } = write
    if (write.owner && !write.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(key.ns, key.scope)} registration was disposed before the queued ${write.payload.mode} ran`, key)
    }
    const kind = this.host.kind(key.ns)
    if (!kind) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(key.ns)} is not registered`, key)
    const id = sectionId(key.ns, key.scope)
    const stored = overlay.read(key.ns, key.scope)
    const revision = pending.get(id) ?? this.host.revision(key)
    if (write.expectedRevision !== undefined && write.expectedRevision !== revision) {
      throw new SettingsConflictError({ ...key, expected: write.expectedRevision, actual: revision })
    }
    const section = deriveVersioned(kind, stored, write.payload, { label, ns: key.ns, scope: key.scope })
    if (dataEqual(stored, section)) return { section, changed: false, revision, resolved: new Map() }
    const resolved = resolveAfterWrite(kind, key, overlay.with(key, section), overlay.read)
    // A value the store cannot hold fails this write alone, before the group reaches the store.
    const refusal = this.backend.cannotHold?.(key, section)
    if (refusal) throw refusal
    overlay.write(key, section)
    // A store-owned revision is known only at commit; until then no later write of the group may expect one.
    const after = this.host.storeOwned ? UNKNOWN_REVISION : revision + 1
    pending.set(id, after)
    return { section, changed: true, revision: after, resolved }
  }

  /**
   * After the store took the pass: commit each changed write in order (with
   * store versions, only the last write of each section: the group's
   * intermediate states were never stored).
   * An `INVARIANT` listener failure met on the way is kept on its write.
   * @throws {SettingsProviderContractError} for versions that do not fit the revisions' kind.
   */
  private commitPass(group: PendingWrite[], versions: Iterable<SettingsSectionVersion> | undefined): void {
    const last = this.host.storeOwned ? this.takeStoreVersions(group, versions) : undefined
    if (!last && versions !== undefined) throw new SettingsProviderContractError('the provider answered store versions, but its load() reported none')
    for (const write of group) {
      const outcome = write.outcome
      if (write.failure !== undefined || !outcome?.changed || this.host.stopped) continue
      if (last && last.get(sectionId(write.key.ns, write.key.scope)) !== write) continue
      const invariants: unknown[] = []
      this.host.commit(write.key, outcome, invariants)
      if (invariants.length) write.invariant = invariants[0]
    }
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
      if (version === undefined || version <= this.host.revision(write.key)) {
        throw new SettingsProviderContractError(`the provider stored ${sectionLabel(write.key.ns, write.key.scope)} but answered no newer store version for it`, write.key)
      }
      write.outcome.revision = version
      last.set(id, write)
    }
    return last
  }
}
