import type { Context, Logger } from 'cordis'
import { CommittedState } from './commit.ts'
import { SettingsEvents } from './events.ts'
import { optionalScopeId, settingsNamespace } from './ids.ts'
import { announceInstance } from './instance-events.ts'
import { Registrations, type Registration } from './registration.ts'
import { Registry, scopeKey } from './registry.ts'
import { Revisions } from './revisions.ts'
import { WriteRunner, type SettingsBackend, type WriteRequest } from './transactions.ts'
import type { SectionKey } from './document.ts'
import type { SettingsDocument, SettingsRegisterOptions, SettingsSecretOrigin } from './types.ts'

/**
 * The seam without storage, assembled from its parts: the registry of kinds
 * and instances (`registration.ts`), the committed state with its revisions
 * (`commit.ts`), the events a commit causes (`events.ts`), and the write path
 * (`transactions.ts`), which reaches the rest only through its `WriteHost`. The
 * cordis service delegates to one engine and hands it the provider as backend.
 */
export class SettingsEngine {
  readonly registry: Registry
  readonly revisions = new Revisions()
  readonly logger: Logger
  private halted = false
  /** Transactions the provider is storing now: a publish meanwhile waits for the store's answer. */
  private transacting = 0
  /** Publishes that arrived while a transaction was stored, taken in order once it answered. */
  private readonly deferred: unknown[] = []
  private readonly events: SettingsEvents
  private readonly committed: CommittedState
  private readonly writes: WriteRunner
  private readonly registrations: Registrations

  constructor(ctx: Context, private readonly backend: SettingsBackend, kindsChanged: () => void = () => {}) {
    this.logger = ctx.logger('settings')
    this.registry = new Registry(kindsChanged, (instance, present) => announceInstance(ctx, this.logger, instance, present))
    this.events = new SettingsEvents(ctx, this.logger, () => !this.halted)
    this.committed = new CommittedState(this.registry, this.revisions, this.events, this.logger, (instance) => this.registrations.setupDone(instance))
    const engine = this
    const { registry, committed, logger } = this
    this.writes = new WriteRunner(
      {
        get stopped() {
          return engine.halted
        },
        logger,
        get storeOwned() {
          return engine.revisions.storeOwned
        },
        kind: (ns) => registry.kinds.get(ns),
        revision: (key) => committed.revision(key),
        get document() {
          return committed.document
        },
        holdPublishes: () => this.holdPublishes(),
        takePublishes: () => this.takeDeferred(),
        commit: (key, outcome, invariants) => committed.commit(key, outcome, invariants),
      },
      backend,
    )
    this.registrations = new Registrations({
      registry,
      logger,
      get stopped() {
        return engine.halted
      },
      get document() {
        return committed.document
      },
      write: (request) => this.writes.write(request),
    })
    // A plugin that waits for setup has a failed fiber with no effects left: its disposal is heard here.
    ctx.on('internal/plugin', (fiber) => {
      if (fiber.uid === null) this.registrations.fiberGone(fiber)
    })
  }

  /** Whether the service has begun stopping: no new work is accepted. */
  get stopped(): boolean {
    return this.halted
  }

  /** The document as the seam last saw it stored. Shared structure: never mutate it. */
  get document(): SettingsDocument {
    return this.committed.document
  }

  /** Take the provider's initial document (or snapshot with store versions), before any instance exists. */
  start(loaded: unknown): void {
    this.committed.start(loaded)
  }

  /** Hold back publishes while a transaction is stored; the answer lets them through, taking those held meanwhile. */
  private holdPublishes(): () => void {
    this.transacting++
    let released = false
    return () => {
      if (released) return
      released = true
      this.transacting--
      if (this.transacting === 0) this.takeDeferred()
    }
  }

  /** Take the publishes held back so far, in arrival order. */
  private takeDeferred(): void {
    for (const input of this.deferred.splice(0)) {
      try {
        this.apply(input)
      } catch (error) {
        // Nobody is left to throw to: the provider's publish call returned long ago.
        this.logger.error('settings: a change published during a write failed once applied', error)
      }
    }
  }

  /** Refuse new work, reject queued writes, then wait for running writes and watcher calls. */
  async stop(): Promise<void> {
    this.halted = true
    await this.writes.stop()
    await this.events.inflight.drain()
  }

  /** Register `schema` under `ns` on the caller's fiber, answering the owner handle and the registration's disposer. */
  register<T>(caller: Context, ns: unknown, schema: unknown, options?: SettingsRegisterOptions<T>): Registration<T> {
    return this.registrations.register(caller, ns, schema, options)
  }

  /** The resolved value of an instance, or `undefined` while none is registered there. */
  get(nsInput: unknown, scopeInput?: unknown): unknown {
    const ns = settingsNamespace(nsInput)
    const scope = optionalScopeId(scopeInput)
    return this.registry.kinds.get(ns)?.instances.get(scopeKey(scope))?.value
  }

  /**
   * Take what the provider observed changing on its own (a watcher, a change
   * feed): changed sections, or a whole document or snapshot. One that
   * arrives while a transaction is being stored is taken once the store
   * answered, before the transaction commits, so a revision never names two
   * raw states; a failure then is logged, not thrown.
   * @throws the first `INVARIANT`-coded listener failure, after every commit and event ran.
   * @throws {SettingsProviderContractError} for input the provider's kind of revisions cannot take.
   */
  publish(input: unknown): void {
    if (this.halted) return
    if (this.transacting > 0) {
      this.deferred.push(input)
      return
    }
    this.apply(input)
  }

  /** Fold one published change in now. */
  private apply(input: unknown): void {
    const invariants: unknown[] = []
    this.committed.observe(input, invariants)
    if (invariants.length) throw invariants[0]
  }

  /** Where the secret at `path` of a stored section gets its value, when the provider holds a reference there. */
  secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    return this.backend.secretSource?.(key, path)
  }

  /** Check a write at call time and queue it; resolves once it committed, rejects when it failed. */
  write(request: WriteRequest): Promise<void> {
    return this.writes.write(request)
  }
}
