import { getSection, sectionId } from './document.ts'
import type { SettingsEngine } from './engine.ts'
import { optionalScopeId } from './ids.ts'
import { isPlainObject, storedSectionProblem } from './json.ts'
import { copyData } from './merge.ts'
import { SettingsValidationError } from './errors.ts'
import { appliesOf, scopeKey, validatorOf, type Kind } from './registry.ts'
import { resolveValue } from './resolve.ts'
import type { RedactedSecret, SettingsDescribeOptions, SettingsDescriptor, SettingsDocument, SettingsScopeId, SettingsSectionProblem } from './types.ts'

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

/** A stored section usable as a layer, or its problem when it is malformed. */
function usableSection(doc: SettingsDocument, ns: string, scope: string | undefined): { section: unknown; problem?: SettingsSectionProblem } {
  const section = getSection(doc, ns, scope)
  const problem = storedSectionProblem(section)
  return problem ? { section: undefined, problem: { path: [], message: `the stored section ${problem}` } } : { section }
}

/**
 * Why the layers do not resolve because of their top one (the section a
 * descriptor shows in `user`), or `undefined` when they resolve, or when they
 * fail below it too (that lower section's own descriptor reports it).
 */
function topLayerProblem(kind: Kind, layers: unknown[], scope: string | undefined): SettingsSectionProblem | undefined {
  const resolve = (count: number) => resolveValue(kind.schema, layers.slice(0, count), validatorOf(kind), { ns: kind.ns, scope }, kind.redactor)
  try {
    resolve(layers.length)
    return undefined
  } catch (error) {
    try {
      resolve(layers.length - 1)
    } catch {
      return undefined
    }
    const path = error instanceof SettingsValidationError ? [...error.path] : []
    return { path, message: (error as Error).message }
  }
}

/**
 * Describe one kind under one scope (or the global scope). Total: a malformed
 * or invalid stored section is left out of the resolution and of `user`.
 */
export function describeKind(engine: SettingsEngine, kind: Kind, scope: SettingsScopeId | undefined, redactSecrets: boolean): SettingsDescriptor {
  const warn = (message: string) => engine.logger.warn(message)
  const doc = engine.document
  const instance = kind.instances.get(scopeKey(scope))
  const base = instance?.base
  const global = usableSection(doc, kind.ns, undefined)
  const own = scope === undefined ? global : usableSection(doc, kind.ns, scope)
  const globalLayer = global.section
  const lower = scope === undefined ? [base] : [base, globalLayer]
  // The section `user` shows is left out, with its problem, when it does not resolve over the layers below it.
  // A live instance that resolves proves its sections fine; only a failing one (or none) needs the trial resolution.
  const unproven = own.section !== undefined && (!instance || instance.failing === true)
  const problem = own.problem ?? (unproven ? topLayerProblem(kind, [...lower, own.section], scope) : undefined)
  const user = problem ? undefined : own.section
  const scopeLayer = scope === undefined ? undefined : user
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
  if (problem) descriptor.problem = problem
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
