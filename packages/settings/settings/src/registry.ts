import { canonicalEnvelope, envelopeOf, sanitizeEnvelope, type SchemaEnvelope } from './envelope.ts'
import { Inflight, type Watcher } from './fanout.ts'
import { frozenCopy } from './data.ts'
import { createRedactor, type Redactor } from './redact.ts'
import type { PendingSetup } from './needs-setup.ts'
import type { JsonObject, SettingsApplies, SettingsNamespace, SettingsSchema, SettingsScopeId } from './types.ts'

/** One kind of setting: a namespace and the schema every registrant of it shares. */
export interface Kind {
  readonly ns: SettingsNamespace
  readonly schema: SettingsSchema<any>
  /** The envelope in canonical text, to compare a later registrant's schema with. */
  readonly canonical: string
  /** `schema.toJSON()`, frozen. */
  readonly envelope: SchemaEnvelope
  /** The envelope with secret defaults and callback sources removed, frozen. */
  readonly safeEnvelope: SchemaEnvelope
  readonly redactor: Redactor
  /** Live instances by scope (`''` for the global one), in registration order. */
  readonly instances: Map<string, Instance>
}

/** One registration: a kind under one scope, owned by one plugin fiber. */
export interface Instance {
  readonly kind: Kind
  readonly scope: SettingsScopeId | undefined
  readonly base: JsonObject | undefined
  readonly applies: SettingsApplies
  readonly validate: ((value: any) => void) | undefined
  /** The current resolved value, deep-frozen. */
  value: unknown
  /** Whether the stored sections it reads last failed to resolve (it keeps its last good value meanwhile). */
  failing?: boolean
  /** Set while the registration waits for values its section lacks; see `needs-setup.ts`. */
  setup?: PendingSetup
  alive: boolean
  readonly watchers: Set<Watcher<any>>
  /** Watcher calls of this instance not yet finished. */
  readonly inflight: Inflight
}

/** The map key of an instance's scope. */
export function scopeKey(scope: string | undefined): string {
  return scope ?? ''
}

/**
 * Build a kind for a namespace from its first registrant's schema.
 * @param safeEnvelope - the envelope already sanitized, when the caller has it (an offline tool's catalog); else it is made here.
 */
export function createKind(ns: SettingsNamespace, schema: SettingsSchema<any>, envelope: SchemaEnvelope, canonical: string, safeEnvelope?: SchemaEnvelope): Kind {
  const redactor = createRedactor(schema)
  return {
    ns,
    schema,
    canonical,
    envelope: frozenCopy(envelope),
    safeEnvelope: frozenCopy(safeEnvelope ?? sanitizeEnvelope(envelope, schema, redactor)),
    redactor,
    instances: new Map(),
  }
}

/** Serialize a schema and its canonical identity text. */
export function identify(schema: SettingsSchema<any>): { envelope: SchemaEnvelope; canonical: string } {
  const envelope = envelopeOf(schema)
  return { envelope, canonical: canonicalEnvelope(envelope) }
}

/** The check that judges a kind: its earliest live registrant's. */
export function validatorOf(kind: Kind): ((value: any) => void) | undefined {
  for (const instance of kind.instances.values()) return instance.validate
  return undefined
}

/** The effect timing a kind reports where it has no instance: its earliest live registrant's. */
export function appliesOf(kind: Kind): SettingsApplies {
  for (const instance of kind.instances.values()) return instance.applies
  return 'live'
}

/**
 * The live kinds and the named scopes they are registered under. Kinds keep
 * registration order; a kind whose last instance leaves is forgotten, and a
 * scope with no instance left drops out of the scope list.
 */
export class Registry {
  readonly kinds = new Map<string, Kind>()
  private readonly scopeCounts = new Map<string, number>()

  /**
   * @param kindsChanged - told after a kind arrives with its first instance or leaves with its last.
   * @param instancesChanged - told after any instance is added (`true`) or removed (`false`), after `kindsChanged`.
   */
  constructor(
    private readonly kindsChanged: () => void = () => {},
    private readonly instancesChanged: (instance: Instance, present: boolean) => void = () => {},
  ) {}

  /** Add a live instance (and its kind, when it is the first). */
  add(instance: Instance): void {
    const { kind, scope } = instance
    const arrived = !this.kinds.has(kind.ns)
    if (arrived) this.kinds.set(kind.ns, kind)
    kind.instances.set(scopeKey(scope), instance)
    if (scope !== undefined) this.scopeCounts.set(scope, (this.scopeCounts.get(scope) ?? 0) + 1)
    if (arrived) this.kindsChanged()
    this.instancesChanged(instance, true)
  }

  /** Remove an instance; its kind goes with its last instance. */
  remove(instance: Instance): void {
    const { kind, scope } = instance
    if (kind.instances.get(scopeKey(scope)) !== instance) return
    kind.instances.delete(scopeKey(scope))
    const left = !kind.instances.size && this.kinds.get(kind.ns) === kind
    if (left) this.kinds.delete(kind.ns)
    if (scope !== undefined) {
      const count = (this.scopeCounts.get(scope) ?? 1) - 1
      if (count > 0) this.scopeCounts.set(scope, count)
      else this.scopeCounts.delete(scope)
    }
    if (left) this.kindsChanged()
    this.instancesChanged(instance, false)
  }

  /** Every named scope with a live instance, in first-seen order. */
  scopes(): SettingsScopeId[] {
    return [...this.scopeCounts.keys()] as SettingsScopeId[]
  }

  /** Every live instance, kind by kind. */
  *instances(): Iterable<Instance> {
    for (const kind of this.kinds.values()) yield* kind.instances.values()
  }
}
