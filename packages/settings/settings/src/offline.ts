/**
 * Describing a kind without its plugin and without the service: for a tool
 * that holds what a host recorded of the kind (its schema, version, step
 * names and each instance's base, as the settings controller's catalog keeps
 * them) and the stored document, and answers what a host would answer: the
 * same layers, resolution, problems, setup state and redaction, through the
 * seam's own `describeKind`. Nothing here needs cordis, so a command that
 * only reads pays for the seam's pure parts alone.
 *
 * Migration steps are only names here: a section stored at an older version
 * reads as it is stored (each step leaves it as it is), and its descriptor's
 * `migration` says it is `pending`, as a host would before it migrated it.
 */
import type { Logger } from 'cordis'
import { describeKind } from './describe.ts'
import type { SchemaEnvelope } from './envelope.ts'

export type { SchemaEnvelope } from './envelope.ts'
import { SCOPES_KEY } from './document.ts'
import { SettingsValidationError } from './errors.ts'
import { Inflight } from './fanout.ts'
import { optionalScopeId, settingsNamespace } from './ids.ts'

export { settingsNamespace, settingsScopeId } from './ids.ts'
import { toJsonObject } from './json.ts'
import { layersAt } from './layers.ts'
import { mergeLayers } from './merge.ts'
import { adoptPlan, planFor, readerOf } from './migrations.ts'
import type { PendingSetup } from './needs-setup.ts'
import { missingPaths } from './needs-setup.ts'
import { createKind, identify, scopeKey, type Instance, type Kind } from './registry.ts'
import { resolveKind } from './resolve.ts'
import type { JsonObject, SettingsApplies, SettingsDescriptor, SettingsDocument, SettingsSchema, SettingsScopeId } from './types.ts'

/** One live instance of an offline kind: the global one (no `scope`) or a named scope's, with its registrant's base. */
export interface OfflineInstance {
  scope?: string
  base?: unknown
}

/** A kind as a host recorded it. */
export interface OfflineKind {
  ns: string
  /** The schema every registrant passed (revived from its envelope, say). */
  schema: SettingsSchema<unknown>
  /**
   * The sanitized envelope `schema` was revived from, when the caller has it
   * (a catalog's): described as it is, so the schema need not be serialized,
   * identified and sanitized again.
   */
  envelope?: SchemaEnvelope
  /** The version of the kind's settings (0 when absent). */
  version?: number
  /** The name of each step: item `i` takes a section from version `i` to `i + 1`; exactly `version` of them. */
  steps?: readonly string[]
  applies?: SettingsApplies
  instances: readonly OfflineInstance[]
}

/** A step that leaves the section as it is, named as the plugin's step. */
function asStored(name: string): (section: JsonObject) => JsonObject {
  const step = (section: JsonObject) => section
  Object.defineProperty(step, 'name', { value: name })
  return step
}

/**
 * Migration steps that leave every section as it is stored, named as a
 * plugin's steps: registered with them, a kind has the plugin's version (a
 * section it creates names it, one stored older reads `pending`) while no
 * step of the plugin runs. Never register them where the provider can write
 * and a section is stored older: the seam would write it back unmigrated.
 */
export function stepsAsStored(names: readonly string[]): ((section: JsonObject) => JsonObject)[] {
  return names.map(asStored)
}

/** A logger for the seam's best-effort resolution, whose notes a describe answer already carries as `problem`. */
const quiet = { warn() {}, info() {}, debug() {}, error() {} } as unknown as Logger

/**
 * The instance a registration of `kind` with `base` under `scope` would leave
 * over `document`: resolved, or waiting for setup when only required values
 * are missing; `undefined` where the registration would be refused (its
 * plugin fails, so a host would hold no instance there).
 */
function instanceOf(kind: Kind, document: SettingsDocument, scope: SettingsScopeId | undefined, given: OfflineInstance, applies: SettingsApplies): Instance | undefined {
  const base = given.base === undefined ? undefined : toJsonObject(given.base, { label: `settings base for ${JSON.stringify(kind.ns)}`, ns: kind.ns, scope })
  const instance: Instance = { kind, scope, base, applies, validate: undefined, value: undefined, alive: true, watchers: new Set(), inflight: new Inflight() }
  let layers
  try {
    layers = layersAt(document, { ns: kind.ns, scope, base, read: readerOf(kind) })
    instance.value = resolveKind(kind, layers, scope, undefined)
    return instance
  } catch (error) {
    const missing = layers && error instanceof SettingsValidationError ? missingPaths(kind.schema, mergeLayers(layers.map((layer) => layer.data))) : []
    if (!missing.length) return undefined
    // Waiting for setup: `describe` reads only that it waits; there is no plugin fiber to start again.
    return { ...instance, failing: true, setup: {} as PendingSetup }
  }
}

/** An identity's envelope and canonical text, as `createKind` takes them. */
const spread = ({ envelope, canonical }: { envelope: SchemaEnvelope; canonical: string }): [SchemaEnvelope, string] => [envelope, canonical]

/** The seam's kind for `given`, with its instances as registrations would leave them over `document`. */
function offlineKind(given: OfflineKind, document: SettingsDocument): Kind {
  const ns = settingsNamespace(given.ns)
  // A kind described offline is never compared with another registrant's: its canonical identity goes unused.
  const kind = given.envelope ? createKind(ns, given.schema, given.envelope, '', given.envelope) : createKind(ns, given.schema, ...spread(identify(given.schema)))
  const steps = given.steps ?? []
  adoptPlan(kind, planFor(ns, { version: given.version ?? 0, migrations: stepsAsStored(steps) }, () => {}))
  for (const entry of given.instances) {
    const scope = optionalScopeId(entry.scope)
    const instance = instanceOf(kind, document, scope, entry, given.applies ?? 'live')
    if (instance) kind.instances.set(scopeKey(scope), instance)
  }
  return kind
}

/** The namespaces `document` stores sections of, under the global scope and under `scope`, each once, in document order. */
export function storedNamespaces(document: SettingsDocument, scope?: string): string[] {
  const names = Object.keys(document).filter((key) => key !== SCOPES_KEY)
  const scoped = scope === undefined ? undefined : document[SCOPES_KEY]?.[scope]
  if (scoped && typeof scoped === 'object' && !Array.isArray(scoped)) names.push(...Object.keys(scoped))
  return [...new Set(names)]
}

/**
 * Describe `kind` under the global scope or `options.scope` as a host running
 * its plugins over `document` would (revision 0: revisions belong to a
 * running service), redacted under `options.redactSecrets`. A stored section
 * the schema refuses leaves that instance out, as a host whose plugin failed
 * to register; one that lacks only required values waits for setup.
 * @throws {TypeError} for a malformed namespace, scope id or base, or steps that do not match the version.
 */
export function describeOffline(kind: OfflineKind, document: SettingsDocument, options: { scope?: string; redactSecrets?: boolean } = {}): SettingsDescriptor {
  const scope = optionalScopeId(options.scope)
  const engine = { document, revisions: { get: () => 0 }, logger: quiet }
  return describeKind(engine, offlineKind(kind, document), scope, options.redactSecrets === true)
}
