import { getSection, sectionId } from './document.ts'
import type { SettingsEngine } from './engine.ts'
import { copyData, valueAt, withoutPaths } from './data.ts'
import { optionalScopeId, settingsNamespace } from './ids.ts'
import { inspect, layerData, layersAt, layersBelow, type Layer } from './layers.ts'
import { readerOf, sectionMigration } from './migrations.ts'
import { SettingsValidationError } from './errors.ts'
import { appliesOf, scopeKey, type Kind } from './registry.ts'
import { mergeLayers } from './merge.ts'
import { missingPaths, showMissing } from './needs-setup.ts'
import { resolveKind } from './resolve.ts'
import type { RedactedSecret, SettingsDescribeOptions, SettingsDescriptor, SettingsScopeId, SettingsSectionProblem, SettingsUndeclaredKey } from './types.ts'

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

/** What each layer holds that the kind's schema does not declare, by layer: paths only. */
function undeclaredByLayer(kind: Kind, layers: readonly Layer[]): Map<Layer['name'], string[][]> {
  return new Map(layers.map((layer) => [layer.name, kind.redactor.undeclared(layer.data)]))
}

/** The undeclared places of every layer, lowest layer first, as a descriptor lists them. */
function undeclaredKeys(found: ReadonlyMap<Layer['name'], string[][]>): SettingsUndeclaredKey[] {
  return [...found].flatMap(([layer, paths]) => paths.map((path) => ({ path, layer })))
}

/**
 * `data` without its secrets and without the places its schema does not declare
 * (`paths`, when the caller has them already; else found afresh).
 */
function safeCopy(redactor: Kind['redactor'], data: unknown, paths: string[][] = redactor.undeclared(data)): unknown {
  return withoutPaths(redactor.redact(data).value, paths)
}

/**
 * Describe one kind under one scope (or the global scope). Total: a malformed
 * or invalid stored section is left out of the resolution and of `user`.
 */
export function describeKind(engine: SettingsEngine, kind: Kind, scope: SettingsScopeId | undefined, redactSecrets: boolean): SettingsDescriptor {
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
  const inherited = scope === undefined ? undefined : ownless ? value : resolveBestEffort(kind, layersBelow(layers, 'scope'), scope, engine.logger)
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
  if (user !== undefined) descriptor.user = copyData(user)
  if (problem) descriptor.problem = problem
  if (waiting) descriptor.needsSetup = true
  const migration = sectionMigration(kind, scopeKey(scope), getSection(engine.document, kind.ns, scope))
  if (migration) descriptor.migration = migration
  if (scope !== undefined) descriptor.inherited = inherited
  if (!redactSecrets) return descriptor

  const { redactor } = kind
  // Secrets out, then whatever the schema does not declare (a renamed secret field left behind, say): its paths are in
  // `undeclared`. A layer's own are known already; a resolved value (merged, through the schema) is walked afresh.
  const redacted = redactor.redact(value)
  const valueUndeclared = redactor.undeclared(value)
  descriptor.value = withoutPaths(redacted.value, valueUndeclared)
  if (descriptor.base !== undefined) descriptor.base = safeCopy(redactor, descriptor.base, undeclared.get('base'))
  if (descriptor.user !== undefined) descriptor.user = safeCopy(redactor, descriptor.user, undeclared.get(own))
  // The same value redacts the same way: shared when frozen, else copied (a caller may change one descriptor field).
  if (scope !== undefined) {
    descriptor.inherited = inherited === value && Object.isFrozen(descriptor.value) ? descriptor.value : safeCopy(redactor, inherited, inherited === value ? valueUndeclared : undefined)
  }
  descriptor.secrets = redacted.slots.map((slot): RedactedSecret => {
    const secret: RedactedSecret = { path: slot.path, set: slot.set }
    if (!slot.set) return secret
    const layer = inspect(shown, slot.path)
    if (layer !== 'defaults') secret.layer = layer
    return secret
  })
  return descriptor
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
