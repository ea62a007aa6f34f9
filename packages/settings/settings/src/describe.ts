import { getSection, sectionId, type SectionKey } from './document.ts'
import type { SettingsEngine } from './engine.ts'
import { copyData, valueAt, withoutPaths } from './data.ts'
import { optionalScopeId, sectionLabel, settingsNamespace } from './ids.ts'
import { inspect, layerData, layersAt, layersBelow, type Layer } from './layers.ts'
import { readerOf, sectionMigration } from './migrations.ts'
import { SettingsValidationError } from './errors.ts'
import { appliesOf, scopeKey, type Kind } from './registry.ts'
import { mergeLayers } from './merge.ts'
import { missingPaths, showMissing } from './needs-setup.ts'
import { resolveKind } from './resolve.ts'
import type { RedactedSecret, SettingsDescribeOptions, SettingsDescriptor, SettingsScopeId, SettingsSecretOrigin, SettingsSectionProblem, SettingsUndeclaredKey } from './types.ts'

/**
 * Resolve without failing: layers are dropped from the top down until the
 * rest resolves, and a value the schema refuses even with no layer reads as `undefined`.
 */
function resolveBestEffort(kind: Kind, layers: readonly Layer[], scope: string | undefined, logger: { warn(message: string): void }): unknown {
  for (let count = layers.length; count >= 0; count--) {
    try {
      return resolveKind(kind, layers.slice(0, count), scope)
    } catch (error) {
      logger.warn(`settings: describing ${JSON.stringify(kind.ns)} without a layer that does not resolve: ${(error as Error).message}`)
    }
  }
  return undefined
}

/**
 * Why the layers do not resolve because of their top one (the section a
 * descriptor shows in `user`), or `undefined` when they resolve, or when they
 * fail below it too (that lower section's own descriptor reports it) and the
 * refused field is not one the top section holds.
 */
function topLayerProblem(kind: Kind, layers: readonly Layer[], scope: string | undefined): SettingsSectionProblem | undefined {
  try {
    resolveKind(kind, layers, scope)
    return undefined
  } catch (error) {
    const path = error instanceof SettingsValidationError ? [...error.path] : []
    // Layers below a section of an adapter never resolve (its token is required): a field the top section holds is still its own.
    const held = path.length > 0 && valueAt(layers.at(-1)?.data, path) !== undefined
    if (!held) {
      try {
        resolveKind(kind, layers.slice(0, -1), scope)
      } catch {
        return undefined
      }
    }
    return { path, message: (error as Error).message }
  }
}

/** The problem of a registration waiting for setup: every required path no layer gives. */
function setupProblem(kind: Kind, layers: readonly Layer[]): SettingsSectionProblem {
  const missing = missingPaths(kind.schema, mergeLayers(layers.map((layer) => layer.data)))
  return { path: [], message: `needs setup: ${showMissing(missing)}`, missing }
}

/**
 * The undeclared places found in each layer's data, by redactor (one per kind's schema). The
 * seam never changes a section it holds or a base it froze, so a walk of the same object holds
 * until the object is dropped: describing under each scope walks the large global section once.
 */
const undeclaredFound = new WeakMap<Kind['redactor'], WeakMap<object, readonly (readonly string[])[]>>()

/** The undeclared places of one layer's data, walked once per object (the paths are frozen: they are shared). */
function layerUndeclared(redactor: Kind['redactor'], data: unknown): readonly (readonly string[])[] {
  if (typeof data !== 'object' || data === null) return redactor.undeclared(data)
  let found = undeclaredFound.get(redactor)
  if (!found) undeclaredFound.set(redactor, (found = new WeakMap()))
  let paths = found.get(data)
  if (!paths) found.set(data, (paths = Object.freeze(redactor.undeclared(data).map((path) => Object.freeze(path)))))
  return paths
}

/** What each layer holds that the kind's schema does not declare, by layer: paths only. */
function undeclaredByLayer(kind: Kind, layers: readonly Layer[]): Map<Layer['name'], readonly (readonly string[])[]> {
  return new Map(layers.map((layer) => [layer.name, layerUndeclared(kind.redactor, layer.data)]))
}

/**
 * Give `target` a `key` computed at its first read and kept from then on, as a plain
 * enumerable property: a field many readers of a descriptor never look at (the value a
 * scope would inherit, a full resolution of the layers below it; a copy of the stored
 * section) costs nothing until read. Spreading, cloning or serializing reads it.
 */
function defineLazy(target: object, key: string, compute: () => unknown): void {
  const keep = (value: unknown) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = compute()
      keep(value)
      return value
    },
    set: keep,
  })
}

/** The undeclared places of every layer, lowest layer first, as a descriptor lists them. */
function undeclaredKeys(found: ReadonlyMap<Layer['name'], readonly (readonly string[])[]>): SettingsUndeclaredKey[] {
  // A loop, not flatMap: a section may hold tens of thousands of them, and no list in between is needed.
  const keys: SettingsUndeclaredKey[] = []
  for (const [layer, paths] of found) for (const path of paths) keys.push({ path: path as string[], layer })
  return keys
}

/**
 * `data` without its secrets and without the places its schema does not declare
 * (`paths`, when the caller has them already; else found afresh).
 */
function safeCopy(redactor: Kind['redactor'], data: unknown, paths: readonly (readonly string[])[] = redactor.undeclared(data)): unknown {
  return withoutPaths(redactor.redact(data).value, paths)
}

/** What describing reads of the seam: the committed document, the revisions, and a logger for best-effort resolution. */
export type DescribeSource = Pick<SettingsEngine, 'document' | 'logger'> & {
  readonly revisions: Pick<SettingsEngine['revisions'], 'get'>
  /** Where a stored secret gets its value (the provider's references); without it every set secret is `document`. */
  readonly secretSource?: SettingsEngine['secretSource']
}

/**
 * Describe one kind under one scope (or the global scope). Total: a malformed
 * or invalid stored section is left out of the resolution and of `user`.
 */
export function describeKind(engine: DescribeSource, kind: Kind, scope: SettingsScopeId | undefined, redactSecrets: boolean): SettingsDescriptor {
  const instance = kind.instances.get(scopeKey(scope))
  const own: Layer['name'] = scope === undefined ? 'global' : 'scope'
  // A malformed stored section is left out of every layer list, with its problem kept for the section `user` shows.
  let problem: SettingsSectionProblem | undefined
  const layers = layersAt(engine.document, { ns: kind.ns, scope, base: instance?.base, read: readerOf(kind) }, (layer, text) => {
    if (layer === own) problem = { path: [], message: `the stored section ${text}` }
  })
  // The section `user` shows is left out, with its problem, when it does not resolve over the layers below it.
  // A live instance that resolves proves its sections fine; only a failing one (or none) needs the trial resolution.
  const unproven = layerData(layers, own) !== undefined && (!instance || instance.failing === true)
  const waiting = instance?.setup !== undefined && !problem
  if (waiting) problem = setupProblem(kind, layers)
  problem ??= unproven ? topLayerProblem(kind, layers, scope) : undefined
  // A registration waiting for setup shows what is given so far: the sections as they are, merged unchecked.
  const shown = problem && !waiting ? layersBelow(layers, own) : layers
  const user = layerData(shown, own)
  // Without an instance there is no base: the value is what the stored sections resolve to.
  const value = waiting
    ? mergeLayers(layers.map((layer) => layer.data))
    : instance
      ? instance.value
      : resolveBestEffort(kind, shown.filter((layer) => layer.name !== 'base'), scope, engine.logger)
  // A scope without a section of its own inherits exactly what its live instance resolved from the same layers.
  const ownless = instance !== undefined && instance.failing !== true && !waiting && layerData(layers, 'scope') === undefined
  // Otherwise it is a resolution of its own, made only when `inherited` is read (see defineLazy).
  let inheritedValue: { value: unknown } | undefined = ownless ? { value } : undefined
  const inherited = (): unknown => (inheritedValue ??= { value: resolveBestEffort(kind, layersBelow(layers, 'scope'), scope, engine.logger) }).value
  const undeclared = undeclaredByLayer(kind, layers)

  const descriptor: SettingsDescriptor = {
    ns: kind.ns,
    ...(scope === undefined ? {} : { scope }),
    registered: instance !== undefined,
    schema: redactSecrets ? kind.safeEnvelope : kind.envelope,
    value,
    revision: engine.revisions.get(sectionId(kind.ns, scope)),
    applies: instance?.applies ?? appliesOf(kind),
    undeclared: undeclaredKeys(undeclared),
  }
  const base = layerData(layers, 'base')
  if (base !== undefined) descriptor.base = copyData(base)
  // The stored section is copied when read: the seam never changes it, and a check reads only the problems.
  if (user !== undefined) defineLazy(descriptor, 'user', () => copyData(user))
  if (problem) descriptor.problem = problem
  if (waiting) descriptor.needsSetup = true
  const migration = sectionMigration(kind, scopeKey(scope), getSection(engine.document, kind.ns, scope))
  if (migration) descriptor.migration = migration
  if (!redactSecrets) {
    if (scope !== undefined) defineLazy(descriptor, 'inherited', inherited)
    return descriptor
  }

  const { redactor } = kind
  // Secrets out, then whatever the schema does not declare (a renamed secret field left behind, say): its paths are in
  // `undeclared`. A layer's own are known already; a resolved value (merged, through the schema) is walked afresh.
  const redacted = redactor.redact(value)
  const valueUndeclared = redactor.undeclared(value)
  descriptor.value = withoutPaths(redacted.value, valueUndeclared)
  if (descriptor.base !== undefined) descriptor.base = safeCopy(redactor, descriptor.base, undeclared.get('base'))
  if (user !== undefined) defineLazy(descriptor, 'user', () => safeCopy(redactor, copyData(user), undeclared.get(own)))
  // The same value redacts the same way: shared when frozen, else copied (a caller may change one descriptor field).
  if (scope !== undefined) {
    const redactedValue = descriptor.value
    defineLazy(descriptor, 'inherited', () => {
      const raw = inherited()
      return raw === value && Object.isFrozen(redactedValue) ? redactedValue : safeCopy(redactor, raw, raw === value ? valueUndeclared : undefined)
    })
  }
  descriptor.secrets = redacted.slots.map((slot): RedactedSecret => {
    const secret: RedactedSecret = { path: slot.path, set: slot.set }
    if (!slot.set) return secret
    const layer = inspect(shown, slot.path)
    if (layer !== 'defaults') secret.layer = layer
    // Only a user section can hold a reference: ask the provider about the section the value comes from.
    if (layer === 'global' || layer === 'scope') Object.assign(secret, originOf(engine, { ns: kind.ns, scope: layer === 'scope' ? scope : undefined }, slot.path))
    return secret
  })
  return descriptor
}

const REFERENCE_SOURCES: ReadonlySet<unknown> = new Set(['store', 'env', 'file'])

/**
 * Where a set secret of one stored section gets its value: the provider's
 * reference, or the document itself when it names none. A hook that throws or
 * answers something else leaves the source out rather than guess.
 */
function originOf(engine: DescribeSource, key: SectionKey, path: readonly string[]): Pick<RedactedSecret, 'source' | 'reference'> {
  let origin: SettingsSecretOrigin | undefined
  try {
    origin = engine.secretSource?.(key, path)
  } catch (error) {
    // Not the error's message: a provider's text was never vetted to be free of the value.
    engine.logger.warn(`settings: the provider could not say where a secret of ${sectionLabel(key.ns, key.scope)} comes from (${(error as Error)?.name ?? 'error'})`)
    return {}
  }
  if (origin === undefined) return { source: 'document' }
  if (typeof origin === 'object' && origin !== null && REFERENCE_SOURCES.has(origin.source) && typeof origin.reference === 'string') return { source: origin.source, reference: origin.reference }
  engine.logger.warn(`settings: the provider answered no known source for a secret of ${sectionLabel(key.ns, key.scope)}`)
  return {}
}

/**
 * Describe every live kind, in registration order, under the global scope or
 * one named scope; or only the kind `options.ns` names.
 * @throws {TypeError} for a malformed scope id or namespace.
 */
export function describeAll(engine: SettingsEngine, options: SettingsDescribeOptions = {}): SettingsDescriptor[] {
  const scope = optionalScopeId(options.scope)
  const redact = options.redactSecrets === true
  if (options.ns !== undefined) {
    const kind = engine.registry.kinds.get(settingsNamespace(options.ns))
    return kind ? [describeKind(engine, kind, scope, redact)] : []
  }
  return [...engine.registry.kinds.values()].map((kind) => describeKind(engine, kind, scope, redact))
}
