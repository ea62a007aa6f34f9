import type { Context, Fiber, Logger } from 'cordis'
import { namedScopeOf } from 'dsh-scope'
import { frozenCopy } from './data.ts'
import { SettingsNeedsSetupError, SettingsRegistrationError, SettingsUnavailableError, SettingsValidationError } from './errors.ts'
import { Inflight, Watcher } from './fanout.ts'
import { optionalScopeId, sectionLabel, settingsNamespace } from './ids.ts'
import { toJsonObject } from './json.ts'
import { layersAt } from './layers.ts'
import { mergeLayers } from './merge.ts'
import { missingPaths, showMissing } from './needs-setup.ts'
import { writeBackMigrations } from './migration-runs.ts'
import { adoptPlan, planFor, planOf, readerOf, samePlan } from './migrations.ts'
import { createKind, identify, scopeKey, validatorOf, type Instance, type Kind, type Registry } from './registry.ts'
import { resolveKind } from './resolve.ts'
import { scrubbedError, secretTexts } from './scrub.ts'
import type { WriteRequest } from './transactions.ts'
import type { SettingsDocument, SettingsRegisterOptions, SettingsSchema, SettingsScope } from './types.ts'

function isSchema(value: unknown): value is SettingsSchema<unknown> {
  return typeof value === 'function' && typeof (value as { toJSON?: unknown }).toJSON === 'function' && typeof (value as { type?: unknown }).type === 'string'
}

/** What registration needs from the rest of the seam. */
export interface RegistrationHost {
  readonly registry: Registry
  readonly logger: Logger
  /** Whether the service has begun stopping. */
  readonly stopped: boolean
  /** The committed document a new instance first resolves against. */
  readonly document: SettingsDocument
  /** Queue an owner handle's write. */
  write(request: WriteRequest): Promise<void>
}

/** A registration: the owner handle, and the disposer that ends it before the caller's fiber does. */
export interface Registration<T> {
  handle: SettingsScope<T>
  dispose: () => unknown
}

/**
 * Registrations: checking a `register` call, creating the instance (resolved
 * once against the committed document), tying it to the caller's fiber, and
 * the owner handle it returns.
 */
export class Registrations {
  /** Schema identities by schema object: serializing and canonicalizing is most of a registration's cost. */
  private readonly identities = new WeakMap<object, ReturnType<typeof identify>>()

  constructor(private readonly host: RegistrationHost) {}

  /** Register `schema` under `ns` on the caller's fiber; the registration is an effect of that fiber. */
  register<T>(caller: Context, nsInput: unknown, schema: unknown, options: SettingsRegisterOptions<T> = {}): Registration<T> {
    const { registry } = this.host
    const ns = settingsNamespace(nsInput)
    if (!isSchema(schema)) throw new TypeError(`settings namespace ${JSON.stringify(ns)} needs a schemastery schema`)
    if (options.applies !== undefined && options.applies !== 'live' && options.applies !== 'restart') {
      throw new TypeError(`settings namespace ${JSON.stringify(ns)}: applies must be 'live' or 'restart'`)
    }
    if (options.validate !== undefined && typeof options.validate !== 'function') {
      throw new TypeError(`settings namespace ${JSON.stringify(ns)}: validate must be a function`)
    }
    const plan = planFor(ns, options, (message, cause) => this.host.logger.warn(message, cause))
    const scope = optionalScopeId(namedScopeOf(caller))
    if (this.host.stopped) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings service is disposed: ${sectionLabel(ns, scope)} cannot be registered`, { ns, scope })
    // A registration waiting for setup gives way: its plugin is starting again, or another takes its place.
    const waiting = registry.kinds.get(ns)?.instances.get(scopeKey(scope))
    if (waiting?.setup) void this.unregister(waiting)
    let identity = this.identities.get(schema)
    if (!identity) this.identities.set(schema, (identity = identify(schema)))
    const { envelope, canonical } = identity
    const existing = registry.kinds.get(ns)
    if (existing && existing.canonical !== canonical) {
      throw new SettingsRegistrationError('SETTINGS_SCHEMA_MISMATCH', `settings namespace ${JSON.stringify(ns)} is already registered with a different schema`, { ns, scope })
    }
    if (existing?.instances.has(scopeKey(scope))) {
      throw new SettingsRegistrationError('SETTINGS_DUPLICATE', `settings namespace ${sectionLabel(ns, scope)} is already registered`, { ns, scope })
    }
    if (existing && !samePlan(planOf(existing), plan)) {
      throw new SettingsRegistrationError('SETTINGS_SCHEMA_MISMATCH', `settings namespace ${JSON.stringify(ns)} is already registered with another version or other migrations`, { ns, scope })
    }
    const kind = existing ?? createKind(ns, schema, envelope, canonical)
    adoptPlan(kind, plan)
    const base = options.base === undefined ? undefined : frozenCopy(toJsonObject(options.base, { label: `settings base for ${JSON.stringify(ns)}`, ns, scope }))
    // The first registrant's check judges the kind; a later one is judged by the kind's current check.
    const validate = existing ? validatorOf(existing) : options.validate
    const layers = layersAt(this.host.document, { ns, scope, base, read: readerOf(kind) })
    let value: unknown
    try {
      value = resolveKind(kind, layers, scope, validate)
    } catch (error) {
      // Values the schema requires and no layer gives: the plugin waits for setup. Any other refusal fails it as before.
      const missing = error instanceof SettingsValidationError ? missingPaths(kind.schema, mergeLayers(layers.map((layer) => layer.data))) : []
      if (missing.length) this.waitForSetup(caller, kind, { scope, base, applies: options.applies, validate: options.validate }, missing)
      throw error
    }
    const instance: Instance = {
      kind,
      scope,
      base,
      applies: options.applies ?? 'live',
      validate: options.validate,
      value,
      alive: true,
      watchers: new Set(),
      inflight: new Inflight(),
    }
    const dispose = caller.effect(() => {
      registry.add(instance)
      return () => this.unregister(instance)
    }, `settings.register(${JSON.stringify(ns)})`)
    // Stored sections older than the kind read migrated already; each is written back once.
    writeBackMigrations(kind, this.host)
    return { handle: this.handle<T>(instance), dispose }
  }

  /**
   * Keep a registration whose section lacks required values as one waiting for
   * setup (listed, writable, its missing paths in `problem`), and refuse the
   * call with {@link SettingsNeedsSetupError}: the plugin stops here, and is
   * started again by {@link setupDone} once a write makes the section resolve.
   */
  private waitForSetup(caller: Context, kind: Kind, asked: Pick<Instance, 'scope' | 'base' | 'validate'> & { applies: Instance['applies'] | undefined }, missing: string[][]): never {
    const { scope } = asked
    const instance: Instance = {
      kind,
      scope,
      base: asked.base,
      applies: asked.applies ?? 'live',
      validate: asked.validate,
      value: undefined,
      failing: true,
      alive: true,
      watchers: new Set(),
      inflight: new Inflight(),
      setup: { fiber: caller.fiber },
    }
    this.host.registry.add(instance)
    throw new SettingsNeedsSetupError({ ns: kind.ns, scope, missing, reason: showMissing(missing) })
  }

  /**
   * A registration waiting for setup now resolves: its plugin starts again
   * (after the commit that did it), and its new registration takes the waiting
   * one's place, so the namespace stays listed throughout. A plugin that does not
   * register again leaves it to go once it has started.
   */
  setupDone(instance: Instance): void {
    const setup = instance.setup!
    if (setup.restarting) return
    setup.restarting = true
    // After the commit under way has finished (it is synchronous): no timer to outlive the service.
    queueMicrotask(() => {
      const { fiber } = setup
      if (fiber.uid === null || this.host.stopped) return void this.unregister(instance)
      // `update` with the same config clears the failure and runs the plugin again; `true`: nothing to save.
      Promise.resolve(fiber.update(fiber.config, true))
        .catch((error: unknown) => this.host.logger.warn(`settings: ${sectionLabel(instance.kind.ns, instance.scope)} could not start again after setup`, error))
        .finally(() => {
          if (instance.alive) void this.unregister(instance)
        })
    })
  }

  /** A fiber was disposed: registrations of it still waiting for setup go with it. */
  fiberGone(fiber: Fiber): void {
    for (const instance of [...this.host.registry.instances()]) if (instance.setup?.fiber === fiber) void this.unregister(instance)
  }

  private unregister(instance: Instance): Promise<void> {
    instance.alive = false
    this.host.registry.remove(instance)
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
      update: (patch: unknown) => this.host.write({ ns, scope, mode: 'update', payload: patch, owner: instance }),
      replace: (section: unknown) => this.host.write({ ns, scope, mode: 'replace', payload: section, owner: instance }),
    }) as SettingsScope<T>
  }

  private watch<T>(instance: Instance, callback: (next: T, prev: T) => void | Promise<void>): () => void {
    const label = sectionLabel(instance.kind.ns, instance.scope)
    if (typeof callback !== 'function') throw new TypeError(`settings watch for ${label} needs a callback`)
    if (!instance.alive) throw new SettingsUnavailableError('SETTINGS_DISPOSED', `settings namespace ${label} registration is disposed`, { ns: instance.kind.ns, scope: instance.scope })
    const { redactor } = instance.kind
    const watcher = new Watcher<T>(callback, (error, next, prev) =>
      this.host.logger.warn(`settings: watcher for ${label} failed`, scrubbedError(error, secretTexts(redactor, [next, prev]))),
    )
    instance.watchers.add(watcher)
    return () => {
      watcher.stop()
      instance.watchers.delete(watcher)
    }
  }
}
