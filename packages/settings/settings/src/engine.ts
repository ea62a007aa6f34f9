import type { Context, Logger } from 'cordis'
import equal from 'fast-deep-equal'
import { namedScopeOf } from 'dsh-scope'
import { adoptDocument, changedSections, getSection, sectionId, withSection, type SectionKey } from './document.ts'
import { SettingsConflictError, SettingsInputError, SettingsRegistrationError, SettingsUnavailableError, SettingsValidationError } from './errors.ts'
import { emitContained, Inflight, Watcher } from './fanout.ts'
import { optionalScopeId, sectionLabel, settingsNamespace } from './ids.ts'
import { storedSectionProblem, toJsonObject } from './json.ts'
import { GroupQueue } from './queue.ts'
import { createKind, identify, Registry, scopeKey, validatorOf, type Instance, type Kind } from './registry.ts'
import { resolveValue } from './resolve.ts'
import { Revisions } from './revisions.ts'
import { frozenCopy } from './freeze.ts'
import type { SettingsDocument, SettingsNamespace, SettingsRegisterOptions, SettingsSchema, SettingsScope, SettingsScopeId, SettingsUpdateSource } from './types.ts'
import { checkPayload, deriveSection, type WriteMode, type WritePayload } from './writes.ts'

/**
 * One write transaction as a provider runs it: inside its critical section the
 * provider reads the freshest stored document, passes it to `apply`, stores
 * what `apply` returns (nothing to store when it returns `current` itself),
 * then calls `commit` before it leaves the critical section. Throwing before
 * `commit` aborts every write of the transaction with that error.
 */
export interface SettingsTransaction {
  /** Fold in outside changes, then derive, check and validate the queued writes. Never throws. */
  apply(current: SettingsDocument): SettingsDocument
  /** Make the stored result authoritative in-process: revisions, values and events. */
  commit(): void
}

/** What the engine needs from a provider. */
export interface SettingsBackend {
  readonly writable: boolean
  transact(transaction: SettingsTransaction): Promise<void>
}

/** A write request as the service receives it, before any check. */
export interface WriteRequest {
  ns: unknown
  scope?: unknown
  mode: WriteMode
  payload: unknown
  expectedRevision?: unknown
  owner?: Instance
}

interface PendingWrite {
  key: { ns: SettingsNamespace; scope?: SettingsScopeId }
  label: string
  payload: WritePayload
  expectedRevision?: number
  owner?: Instance
  outcome?: { section: Record<string, unknown>; changed: boolean; revision: number }
  failure?: unknown
  resolve(): void
  reject(error: unknown): void
}

function isSchema(value: unknown): value is SettingsSchema<unknown> {
  return typeof value === 'function' && typeof (value as { toJSON?: unknown }).toJSON === 'function' && typeof (value as { type?: unknown }).type === 'string'
}

/**
 * Everything the settings service does except storage: kinds and instances,
 * resolution, revisions, the write queue, commits and events. The cordis
 * service delegates to one engine and hands it the provider as its backend.
 */
export class SettingsEngine {
  readonly registry = new Registry()
  readonly revisions = new Revisions()
  private committed: SettingsDocument = {}
  private stopped = false
  private readonly queue = new GroupQueue<PendingWrite>((group) => this.runGroup(group))
  private readonly inflight = new Inflight()
  readonly logger: Logger

  constructor(private readonly ctx: Context, private readonly backend: SettingsBackend) {
    this.logger = ctx.logger('settings')
  }

  /** The document as the seam last saw it stored. Shared structure: never mutate it. */
  get document(): SettingsDocument {
    return this.committed
  }

  /** Take the provider's initial document, before any instance exists. */
  start(document: unknown): void {
    this.committed = this.adopt(document)
  }

  /** Refuse new work, reject queued writes, then wait for running writes and watcher calls. */
  async stop(): Promise<void> {
    this.stopped = true
    for (const write of this.queue.takePending()) {
      write.reject(new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service was disposed before the queued ${sectionLabel(write.key.ns, write.key.scope)} write ran`, write.key))
    }
    await this.queue.idle()
    await this.inflight.drain()
  }

  private adopt(document: unknown): SettingsDocument {
    const { doc, problems } = adoptDocument(document)
    for (const problem of problems) this.logger.warn(`settings: ${problem}; reading it as empty`)
    return doc
  }

  /** A stored section as a resolution layer; a malformed one refuses the resolution. */
  private layer(doc: SettingsDocument, ns: string, scope?: string): unknown {
    const section = getSection(doc, ns, scope)
    const problem = storedSectionProblem(section)
    if (problem) throw new SettingsValidationError({ ns, scope, path: [], reason: `section ${problem}` })
    return section
  }

  /** Resolve a kind under a scope against `doc`, with an instance's base when there is one. */
  resolveFor(kind: Kind, instance: Instance | undefined, scope: string | undefined, doc: SettingsDocument = this.committed): unknown {
    const layers = [instance?.base, this.layer(doc, kind.ns), scope === undefined ? undefined : this.layer(doc, kind.ns, scope)]
    return resolveValue(kind.schema, layers, validatorOf(kind), { ns: kind.ns, scope })
  }

  // ---- registration -------------------------------------------------------

  /** Register `schema` under `ns` on the caller's fiber and return the owner handle. */
  register<T>(caller: Context, nsInput: unknown, schema: unknown, options: SettingsRegisterOptions<T> = {}): SettingsScope<T> {
    const ns = settingsNamespace(nsInput)
    if (!isSchema(schema)) throw new TypeError(`settings namespace ${JSON.stringify(ns)} needs a schemastery schema`)
    if (options.applies !== undefined && options.applies !== 'live' && options.applies !== 'restart') {
      throw new TypeError(`settings namespace ${JSON.stringify(ns)}: applies must be 'live' or 'restart'`)
    }
    if (options.validate !== undefined && typeof options.validate !== 'function') {
      throw new TypeError(`settings namespace ${JSON.stringify(ns)}: validate must be a function`)
    }
    const scope = optionalScopeId(namedScopeOf(caller))
    if (this.stopped) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service is disposed: ${sectionLabel(ns, scope)} cannot be registered`, { ns, scope })
    const { envelope, canonical } = identify(schema)
    const existing = this.registry.kinds.get(ns)
    if (existing && existing.canonical !== canonical) {
      throw new SettingsRegistrationError('SETTINGS_SCHEMA_MISMATCH', `settings namespace ${JSON.stringify(ns)} is already registered with a different schema`, { ns, scope })
    }
    if (existing?.instances.has(scopeKey(scope))) {
      throw new SettingsRegistrationError('SETTINGS_DUPLICATE', `settings namespace ${sectionLabel(ns, scope)} is already registered`, { ns, scope })
    }
    const kind = existing ?? createKind(ns, schema, envelope, canonical)
    const base = options.base === undefined ? undefined : frozenCopy(toJsonObject(options.base, { label: `settings base for ${JSON.stringify(ns)}`, ns, scope }))
    const instance: Instance = {
      kind,
      scope,
      base,
      applies: options.applies ?? 'live',
      validate: options.validate,
      value: undefined,
      alive: true,
      watchers: new Set(),
      inflight: new Inflight(),
    }
    // The first registrant's check judges the kind; a later one is judged by the kind's current check.
    const layers = [base, this.layer(this.committed, ns), scope === undefined ? undefined : this.layer(this.committed, ns, scope)]
    instance.value = resolveValue(kind.schema, layers, existing ? validatorOf(existing) : options.validate, { ns, scope })
    caller.effect(() => {
      this.registry.add(instance)
      return () => this.unregister(instance)
    }, `settings.register(${JSON.stringify(ns)})`)
    return this.handle<T>(instance)
  }

  private unregister(instance: Instance): Promise<void> {
    instance.alive = false
    this.registry.remove(instance)
    for (const watcher of instance.watchers) watcher.stop()
    instance.watchers.clear()
    return instance.inflight.drain()
  }

  private handle<T>(instance: Instance): SettingsScope<T> {
    const { ns } = instance.kind
    const { scope } = instance
    return Object.freeze({
      get: () => instance.value as T,
      watch: (callback: (next: T, prev: T) => void | Promise<void>) => this.watch(instance, callback),
      update: (patch: object) => this.write({ ns, scope, mode: 'update', payload: patch, owner: instance }),
      replace: (section: object) => this.write({ ns, scope, mode: 'replace', payload: section, owner: instance }),
    })
  }

  private watch<T>(instance: Instance, callback: (next: T, prev: T) => void | Promise<void>): () => void {
    const label = sectionLabel(instance.kind.ns, instance.scope)
    if (typeof callback !== 'function') throw new TypeError(`settings watch for ${label} needs a callback`)
    if (!instance.alive) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${label} registration is disposed`, { ns: instance.kind.ns, scope: instance.scope })
    const watcher = new Watcher<T>(callback, (error) => this.logger.warn(`settings: watcher for ${label} failed`, error))
    instance.watchers.add(watcher)
    return () => {
      watcher.stop()
      instance.watchers.delete(watcher)
    }
  }

  /** The resolved value of an instance, or `undefined` while none is registered there. */
  get(nsInput: unknown, scopeInput?: unknown): unknown {
    const ns = settingsNamespace(nsInput)
    const scope = optionalScopeId(scopeInput)
    return this.registry.kinds.get(ns)?.instances.get(scopeKey(scope))?.value
  }

  // ---- commits -------------------------------------------------------------

  /** Re-resolve one instance against the committed document and commit a changed value. */
  private refresh(instance: Instance, source: SettingsUpdateSource, invariants: unknown[]): void {
    if (!instance.alive) return
    const { ns } = instance.kind
    const { scope } = instance
    let next: unknown
    try {
      next = this.resolveFor(instance.kind, instance, scope)
    } catch (error) {
      this.logger.warn(`settings: keeping last good ${sectionLabel(ns, scope)} after invalid stored section: ${(error as Error).message}`)
      return
    }
    if (equal(next, instance.value)) return
    const prev = instance.value
    instance.value = next
    for (const watcher of instance.watchers) {
      const run = watcher.enqueue(next, prev, () => instance.alive && !this.stopped)
      this.inflight.track(run)
      instance.inflight.track(run)
    }
    const args = scope === undefined ? [ns, next, prev, source] : [ns, next, prev, source, scope]
    emitContained(this.ctx, this.logger, invariants, 'settings/updated', args, sectionLabel(ns, scope))
  }

  private announce(key: SectionKey, revision: number, invariants: unknown[]): void {
    const args = key.scope === undefined ? [key.ns, revision] : [key.ns, revision, key.scope]
    emitContained(this.ctx, this.logger, invariants, 'settings/document-updated', args, sectionLabel(key.ns, key.scope))
  }

  /**
   * Make an observed document authoritative: bump and announce every changed
   * section, then re-resolve the instances those sections feed. An instance
   * that no longer resolves keeps its last good value.
   */
  private fold(next: SettingsDocument, invariants: unknown[]): void {
    const changed = changedSections(this.committed, next)
    this.committed = next
    const affected = new Set<Instance>()
    for (const key of changed) {
      this.announce(key, this.revisions.bump(sectionId(key.ns, key.scope)), invariants)
      const kind = this.registry.kinds.get(key.ns)
      if (!kind) continue
      if (key.scope === undefined) kind.instances.forEach((instance) => affected.add(instance))
      else if (kind.instances.has(key.scope)) affected.add(kind.instances.get(key.scope)!)
    }
    for (const instance of affected) this.refresh(instance, 'provider', invariants)
  }

  /**
   * Take a document the provider observed on its own (a watcher, a
   * notification). Must not be called while one of the provider's own
   * transactions is between `apply` and `commit`.
   * @throws the first `INVARIANT`-coded listener failure, after every commit and event ran.
   */
  publish(document: unknown): void {
    if (this.stopped) return
    const invariants: unknown[] = []
    this.fold(this.adopt(document), invariants)
    if (invariants.length) throw invariants[0]
  }

  // ---- writes --------------------------------------------------------------

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
    const { expectedRevision } = request
    if (expectedRevision !== undefined && (typeof expectedRevision !== 'number' || !Number.isSafeInteger(expectedRevision))) {
      throw new SettingsInputError(`${label}: expectedRevision must be an integer revision`, key)
    }
    const payload = checkPayload(request.mode, request.payload, { label, ns, scope })
    if (this.stopped) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service is disposed: ${sectionLabel(ns, scope)} cannot be written`, key)
    if (request.owner && !request.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(ns, scope)} registration is disposed`, key)
    }
    if (!this.registry.kinds.has(ns)) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(ns)} is not registered`, key)
    if (!this.backend.writable) throw new SettingsUnavailableError('SETTINGS_READ_ONLY', `settings provider is read-only: ${label} cannot persist`, key)
    const write: PendingWrite = { key, label, payload, owner: request.owner, resolve: () => {}, reject: () => {} }
    if (expectedRevision !== undefined) write.expectedRevision = expectedRevision
    return write
  }

  private async runGroup(group: PendingWrite[]): Promise<void> {
    if (!group.length) return
    if (this.stopped) {
      for (const write of group) write.reject(new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service was disposed before the queued ${sectionLabel(write.key.ns, write.key.scope)} write ran`, write.key))
      return
    }
    let committed = false
    const invariants: unknown[] = []
    const transaction: SettingsTransaction = {
      apply: (current) => this.applyGroup(group, current, invariants),
      commit: () => {
        if (committed) return
        committed = true
        this.commitGroup(group, invariants)
      },
    }
    try {
      await this.backend.transact(transaction)
      transaction.commit()
    } catch (error) {
      if (committed) {
        this.logger.warn('settings: the provider failed after committing a transaction', error)
        return
      }
      committed = true
      for (const write of group) write.reject(write.failure ?? error)
    }
  }

  /** Inside the provider's critical section: fold in outside changes, then derive every write in order. */
  private applyGroup(group: PendingWrite[], current: SettingsDocument, invariants: unknown[]): SettingsDocument {
    this.fold(this.adopt(current), invariants)
    let doc = this.committed
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
    return changed ? doc : current
  }

  private derive(write: PendingWrite, doc: SettingsDocument, pending: Map<string, number>) {
    const { key, label } = write
    if (write.owner && !write.owner.alive) {
      throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${sectionLabel(key.ns, key.scope)} registration was disposed before the queued ${write.payload.mode} ran`, key)
    }
    const kind = this.registry.kinds.get(key.ns)
    if (!kind) throw new SettingsUnavailableError('SETTINGS_UNKNOWN_NAMESPACE', `settings namespace ${JSON.stringify(key.ns)} is not registered`, key)
    const id = sectionId(key.ns, key.scope)
    const revision = pending.get(id) ?? this.revisions.get(id)
    if (write.expectedRevision !== undefined && write.expectedRevision !== revision) {
      throw new SettingsConflictError({ ...key, expected: write.expectedRevision, actual: revision })
    }
    const stored = getSection(doc, key.ns, key.scope)
    const section = deriveSection(stored, write.payload, { label, ns: key.ns, scope: key.scope })
    const changed = !equal(stored, section)
    const next = changed ? withSection(doc, key, section) : doc
    this.judge(kind, key, next, doc)
    if (changed) pending.set(id, revision + 1)
    return { doc: next, outcome: { section, changed, revision: changed ? revision + 1 : revision } }
  }

  /**
   * Validate every value a write would produce: each instance the section
   * feeds, or the kind alone where the written scope has no instance. A
   * candidate that already failed before the write is not the write's fault
   * and keeps its last good value instead.
   */
  private judge(kind: Kind, key: SectionKey, next: SettingsDocument, prev: SettingsDocument): void {
    const candidates: [Instance | undefined, string | undefined][] = []
    if (key.scope === undefined) {
      for (const instance of kind.instances.values()) candidates.push([instance, instance.scope])
      if (!kind.instances.has('')) candidates.push([undefined, undefined])
    } else {
      candidates.push([kind.instances.get(key.scope), key.scope])
    }
    for (const [instance, scope] of candidates) {
      try {
        this.resolveFor(kind, instance, scope, next)
      } catch (error) {
        try {
          this.resolveFor(kind, instance, scope, prev)
        } catch {
          continue
        }
        throw error
      }
    }
  }

  /** After the provider stored the group: commit each write in order and settle its caller. */
  private commitGroup(group: PendingWrite[], foldInvariants: unknown[]): void {
    for (const write of group) {
      if (write.failure !== undefined || !write.outcome) {
        write.reject(write.failure ?? new Error(`settings provider committed ${write.label} without applying it`))
        continue
      }
      if (this.stopped) {
        write.resolve()
        continue
      }
      const invariants = foldInvariants.splice(0)
      this.commitWrite(write, invariants)
      if (invariants.length) write.reject(invariants[0])
      else write.resolve()
    }
  }

  private commitWrite(write: PendingWrite, invariants: unknown[]): void {
    const { key, outcome } = write
    if (!outcome!.changed) return
    this.committed = withSection(this.committed, key, outcome!.section)
    this.revisions.set(sectionId(key.ns, key.scope), outcome!.revision)
    this.announce(key, outcome!.revision, invariants)
    const kind = this.registry.kinds.get(key.ns)
    if (!kind) return
    const affected = key.scope === undefined ? [...kind.instances.values()] : [kind.instances.get(key.scope)]
    for (const instance of affected) if (instance) this.refresh(instance, 'update', invariants)
  }
}
