import { getSection, sectionId } from './document.ts'
import type { SettingsEngine } from './engine.ts'
import { optionalScopeId } from './ids.ts'
import { isPlainObject, storedSectionProblem } from './json.ts'
import { copyData } from './merge.ts'
import { appliesOf, scopeKey, validatorOf, type Kind } from './registry.ts'
import { resolveValue } from './resolve.ts'
import type { RedactedSecret, SettingsDescribeOptions, SettingsDescriptor, SettingsDocument, SettingsScopeId } from './types.ts'

/** A value at a path of strings, descending into arrays by index; `undefined` when absent. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value
  for (const segment of path) {
    if (Array.isArray(node)) node = node[Number(segment)]
    else if (isPlainObject(node) && Object.hasOwn(node, segment)) node = node[segment]
    else return undefined
  }
  return node
}

/**
 * Resolve without failing: layers are dropped from the top down until the
 * rest resolves, and a value the schema refuses even with no layer reads as `undefined`.
 */
function resolveBestEffort(kind: Kind, layers: unknown[], scope: string | undefined, warn: (message: string) => void): unknown {
  for (let count = layers.length; count >= 0; count--) {
    try {
      return resolveValue(kind.schema, layers.slice(0, count), validatorOf(kind), { ns: kind.ns, scope }, kind.redactor)
    } catch (error) {
      warn(`settings: describing ${JSON.stringify(kind.ns)} without a layer that does not resolve: ${(error as Error).message}`)
    }
  }
  return undefined
}

/** A stored section usable as a layer, or `undefined` (with a warning) when it is malformed. */
function usableSection(doc: SettingsDocument, ns: string, scope: string | undefined, warn: (message: string) => void): unknown {
  const section = getSection(doc, ns, scope)
  const problem = storedSectionProblem(section)
  if (!problem) return section
  warn(`settings: describing ${JSON.stringify(ns)}${scope ? ` in scope ${scope}` : ''} without its stored section, which ${problem}`)
  return undefined
}

/**
 * Describe one kind under one scope (or the global scope). Total: a malformed
 * or invalid stored section is left out of the resolution and of `user`.
 */
export function describeKind(engine: SettingsEngine, kind: Kind, scope: SettingsScopeId | undefined, redactSecrets: boolean): SettingsDescriptor {
  const warn = (message: string) => engine.logger.warn(message)
  const doc = engine.document
  const instance = kind.instances.get(scopeKey(scope))
  const globalLayer = usableSection(doc, kind.ns, undefined, warn)
  const scopeLayer = scope === undefined ? undefined : usableSection(doc, kind.ns, scope, warn)
  const base = instance?.base
  const user = scope === undefined ? globalLayer : scopeLayer
  const value = instance ? instance.value : resolveBestEffort(kind, [globalLayer, scopeLayer], scope, warn)
  const inherited = scope === undefined ? undefined : resolveBestEffort(kind, [base, globalLayer], scope, warn)

  const descriptor: SettingsDescriptor = {
    ns: kind.ns,
    ...(scope === undefined ? {} : { scope }),
    registered: instance !== undefined,
    schema: redactSecrets ? kind.safeEnvelope : kind.envelope,
    value,
    revision: engine.revisions.get(sectionId(kind.ns, scope)),
    applies: instance?.applies ?? appliesOf(kind),
  }
  if (base !== undefined) descriptor.base = copyData(base)
  if (user !== undefined) descriptor.user = copyData(user)
  if (scope !== undefined) descriptor.inherited = inherited
  if (!redactSecrets) return descriptor

  const { redactor } = kind
  const redacted = redactor.redact(value)
  descriptor.value = redacted.value
  if (descriptor.base !== undefined) descriptor.base = redactor.redact(descriptor.base).value
  if (descriptor.user !== undefined) descriptor.user = redactor.redact(descriptor.user).value
  if (scope !== undefined) descriptor.inherited = redactor.redact(inherited).value
  descriptor.secrets = redacted.slots.map((slot): RedactedSecret => {
    const secret: RedactedSecret = { path: slot.path, set: slot.set }
    if (!slot.set) return secret
    if (scopeLayer !== undefined && valueAt(scopeLayer, slot.path) !== undefined) secret.layer = 'scope'
    else if (valueAt(globalLayer, slot.path) !== undefined) secret.layer = 'global'
    else if (valueAt(base, slot.path) !== undefined) secret.layer = 'base'
    return secret
  })
  return descriptor
}

/**
 * Describe every live kind, in registration order, under the global scope or one named scope.
 * @throws {TypeError} for a malformed scope id.
 */
export function describeAll(engine: SettingsEngine, options: SettingsDescribeOptions = {}): SettingsDescriptor[] {
  const scope = optionalScopeId(options.scope)
  const redact = options.redactSecrets === true
  return [...engine.registry.kinds.values()].map((kind) => describeKind(engine, kind, scope, redact))
}
