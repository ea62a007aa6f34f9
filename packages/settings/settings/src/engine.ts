import type { Context, Logger } from 'cordis'
import { dataEqual } from './equal.ts'
import { namedScopeOf } from 'dsh-scope'
import { adoptDocument, changedSections, getSection, isWellNamed, sectionId, withSection, type SectionKey } from './document.ts'
import { SettingsRegistrationError, SettingsUnavailableError, SettingsValidationError } from './errors.ts'
import { emitContained, Inflight, Watcher } from './fanout.ts'
import { frozenCopy } from './freeze.ts'
import { optionalScopeId, sectionLabel, settingsNamespace } from './ids.ts'
import { storedSectionProblem, toJsonObject } from './json.ts'
import { createKind, identify, Registry, scopeKey, validatorOf, type Instance, type Kind } from './registry.ts'
import { resolveValue } from './resolve.ts'
import { scrubbedError, secretTexts } from './scrub.ts'
import { Revisions } from './revisions.ts'
import { WriteRunner, type SettingsBackend, type WriteOutcome, type WriteRequest } from './transactions.ts'
import type { SettingsDocument, SettingsRegisterOptions, SettingsSchema, SettingsScope, SettingsUpdateSource } from './types.ts'


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
  /** The shape problems of the last document adopted, each warned about once. */
  private problems = new Set<string>()
  private halted = false
  private readonly inflight = new Inflight()
  private readonly writes: WriteRunner
  /** Schema identities by schema object: serializing and canonicalizing is most of a registration's cost. */
  private readonly identities = new WeakMap<object, ReturnType<typeof identify>>()
  readonly logger: Logger

  constructor(private readonly ctx: Context, backend: SettingsBackend) {
    this.logger = ctx.logger('settings')
    this.writes = new WriteRunner(this, backend)
  }

  /** Whether the service has begun stopping: no new work is accepted. */
  get stopped(): boolean {
    return this.halted
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
    this.halted = true
    await this.writes.stop()
    await this.inflight.drain()
  }

  /** Copy a provider's document, warning once about each shape problem it newly has (not again on every write). */
  adopt(document: unknown): SettingsDocument {
    const { doc, problems } = adoptDocument(document)
    for (const problem of problems) if (!this.problems.has(problem)) this.logger.warn(`settings: ${problem}`)
    this.problems = new Set(problems)
    return doc
  }

  /** A stored section as a resolution layer; a malformed one refuses the resolution. */
  private layer(doc: SettingsDocument, ns: string, scope?: string): unknown {
    const section = getSection(doc, ns, scope)
    const problem = storedSectionProblem(section)
    if (problem) throw new SettingsValidationError({ ns, scope, path: [], reason: `section ${problem}` })
    return section
  }

  /**
   * Resolve a kind under a scope against `doc`, with an instance's base when
   * there is one, judged by the kind's check unless another is given.
   */
  resolveFor(
    kind: Kind,
    instance: Instance | undefined,
    scope: string | undefined,
    doc: SettingsDocument = this.committed,
    validate: ((value: any) => void) | undefined = validatorOf(kind),
  ): unknown {
    const layers = [instance?.base, this.layer(doc, kind.ns), scope === undefined ? undefined : this.layer(doc, kind.ns, scope)]
    return resolveValue(kind.schema, layers, validate, { ns: kind.ns, scope }, kind.redactor)
  }

  // ---- registration -------------------------------------------------------

  /** Register `schema` under `ns` on the caller's fiber and return the owner handle. */
  register<T>(caller: Context, nsInput: unknown, schema: unknown, options: SettingsRegisterOptions<T> = {}): SettingsScope<T> {
    return this.registerOwned(caller, nsInput, schema, options).handle
  }

  /** {@link register}, also answering the disposer of the registration's effect, to end it before the caller's fiber does. */
  registerOwned<T>(caller: Context, nsInput: unknown, schema: unknown, options: SettingsRegisterOptions<T> = {}): { handle: SettingsScope<T>; dispose: () => unknown } {
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
    let identity = this.identities.get(schema)
    if (!identity) this.identities.set(schema, (identity = identify(schema)))
    const { envelope, canonical } = identity
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
    instance.value = this.resolveFor(kind, instance, scope, this.committed, existing ? validatorOf(existing) : options.validate)
    const dispose = caller.effect(() => {
      this.registry.add(instance)
      return () => this.unregister(instance)
    }, `settings.register(${JSON.stringify(ns)})`)
    return { handle: this.handle<T>(instance), dispose }
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
    const { redactor } = instance.kind
    const watcher = new Watcher<T>(callback, (error, next, prev) =>
      this.logger.warn(`settings: watcher for ${label} failed`, scrubbedError(error, secretTexts(redactor, [next, prev]))),
    )
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
      instance.failing = true
      this.logger.warn(`settings: keeping last good ${sectionLabel(ns, scope)} after invalid stored section: ${(error as Error).message}`)
      return
    }
    instance.failing = false
    if (dataEqual(next, instance.value)) return
    const prev = instance.value
    instance.value = next
    for (const watcher of instance.watchers) {
      const run = watcher.enqueue(next, prev, () => instance.alive && !this.stopped)
      this.inflight.track(run)
      instance.inflight.track(run)
    }
    const args = scope === undefined ? [ns, next, prev, source] : [ns, next, prev, source, scope]
    const secrets = () => secretTexts(instance.kind.redactor, [next, prev])
    emitContained(this.ctx, this.logger, invariants, 'settings/updated', args, sectionLabel(ns, scope), (error) => scrubbedError(error, secrets()))
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
  fold(next: SettingsDocument, invariants: unknown[]): void {
    const changed = changedSections(this.committed, next)
    this.committed = next
    const affected = new Set<Instance>()
    for (const key of changed) {
      const revision = this.revisions.bump(sectionId(key.ns, key.scope))
      const kind = isWellNamed(key) ? this.registry.kinds.get(key.ns) : undefined
      // Announced only for a section something can read: a namespace of a known kind, in a well-formed scope.
      if (!kind) continue
      this.announce(key, revision, invariants)
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

  /** Check a write at call time, queue it, and settle once it committed or failed. */
  write(request: WriteRequest): Promise<void> {
    return this.writes.write(request)
  }

  /** Commit one stored write: the section, its revision and announcement, then the instances it feeds. */
  commitSection(key: SectionKey, outcome: WriteOutcome, invariants: unknown[]): void {
    if (!outcome.changed) return
    this.committed = withSection(this.committed, key, outcome.section)
    this.revisions.set(sectionId(key.ns, key.scope), outcome.revision)
    this.announce(key, outcome.revision, invariants)
    const kind = this.registry.kinds.get(key.ns)
    if (!kind) return
    const affected = key.scope === undefined ? [...kind.instances.values()] : [kind.instances.get(key.scope)]
    for (const instance of affected) if (instance) this.refresh(instance, 'update', invariants)
  }
}
