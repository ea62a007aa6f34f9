import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { sectionLabel, SettingsInputError } from './errors.ts'
import type { SettingsNamespace, SettingsScopeId } from './types.ts'

// Messages name sections the same way wherever they are built; the function lives with the errors.
export { sectionLabel } from './errors.ts'

/** Namespace grammar: lowercase words of letters and digits joined by single hyphens, starting with a letter. */
export const NAMESPACE_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/

/**
 * Names no namespace may take: `scopes` is the document key holding scoped
 * sections; the other two would collide with object machinery.
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(['scopes', 'constructor', 'prototype'])

/**
 * Keys that must never become own data of a merged or stored object; a write
 * holding one as a key or path segment is refused (`prototype-key`).
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.length > 80 ? value.slice(0, 80) + '…' : value) : typeof value
}

/**
 * Validate a namespace id and brand it.
 * @throws {SettingsInputError} (a `TypeError`) `bad-namespace` when `ns` is not
 *   a string of the namespace grammar, or is reserved.
 */
export function settingsNamespace(ns: unknown): SettingsNamespace {
  if (typeof ns !== 'string' || !NAMESPACE_PATTERN.test(ns)) {
    throw new SettingsInputError(`settings namespace ${shown(ns)} must match ${NAMESPACE_PATTERN}`, { reason: 'bad-namespace' })
  }
  if (RESERVED_NAMESPACES.has(ns)) {
    throw new SettingsInputError(`settings namespace ${shown(ns)} is reserved`, { reason: 'bad-namespace' })
  }
  return ns as SettingsNamespace
}

/**
 * Validate a named-scope id (`<kind>/<id>`) and brand it.
 * @throws {SettingsInputError} (a `TypeError`) `bad-scope` when `id` is not a string of the scope grammar.
 */
export function settingsScopeId(id: unknown): SettingsScopeId {
  if (typeof id !== 'string' || !SCOPE_ID_PATTERN.test(id)) {
    throw new SettingsInputError(`settings scope ${shown(id)} must match ${SCOPE_ID_PATTERN}`, { reason: 'bad-scope' })
  }
  return id as SettingsScopeId
}

/**
 * Validate an `expectedRevision` argument: absent (`undefined`, an
 * unconditional write) or a revision, a non-negative safe integer. A negative
 * or fractional number could never match a section, so it is refused as
 * malformed rather than answered as a conflict.
 * @throws {SettingsInputError} (a `TypeError`) `bad-revision` for anything else.
 */
export function settingsRevision(revision: unknown, section?: { ns: string; scope?: string }): number | undefined {
  if (revision === undefined) return undefined
  if (typeof revision === 'number' && Number.isSafeInteger(revision) && revision >= 0) return revision
  const where = section ? ` for ${sectionLabel(section.ns, section.scope)}` : ''
  throw new SettingsInputError(`settings expectedRevision${where} must be a revision number (a non-negative integer) or absent`, { ...section, reason: 'bad-revision' })
}

/** Validate an optional scope argument: `undefined` means the global scope. */
export function optionalScopeId(scope: unknown): SettingsScopeId | undefined {
  return scope === undefined ? undefined : settingsScopeId(scope)
}
