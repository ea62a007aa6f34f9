import { SCOPE_ID_PATTERN } from 'dsh-scope'
import type { SettingsNamespace, SettingsScopeId } from './types.ts'

/** Namespace grammar: lowercase words of letters and digits joined by single hyphens, starting with a letter. */
export const NAMESPACE_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/

/**
 * Names no namespace may take: `scopes` is the document key holding scoped
 * sections; the other two would collide with object machinery.
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(['scopes', 'constructor', 'prototype'])

/** Keys that must never become own data of a merged or stored object. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.length > 80 ? value.slice(0, 80) + '…' : value) : typeof value
}

/**
 * Validate a namespace id and brand it.
 * @throws {TypeError} when `ns` is not a string of the namespace grammar, or is reserved.
 */
export function settingsNamespace(ns: unknown): SettingsNamespace {
  if (typeof ns !== 'string' || !NAMESPACE_PATTERN.test(ns)) {
    throw new TypeError(`settings namespace ${shown(ns)} must match ${NAMESPACE_PATTERN}`)
  }
  if (RESERVED_NAMESPACES.has(ns)) {
    throw new TypeError(`settings namespace ${shown(ns)} is reserved`)
  }
  return ns as SettingsNamespace
}

/**
 * Validate a named-scope id (`<kind>/<id>`) and brand it.
 * @throws {TypeError} when `id` is not a string of the scope grammar.
 */
export function settingsScopeId(id: unknown): SettingsScopeId {
  if (typeof id !== 'string' || !SCOPE_ID_PATTERN.test(id)) {
    throw new TypeError(`settings scope ${shown(id)} must match ${SCOPE_ID_PATTERN}`)
  }
  return id as SettingsScopeId
}

/** Validate an optional scope argument: `undefined` means the global scope. */
export function optionalScopeId(scope: unknown): SettingsScopeId | undefined {
  return scope === undefined ? undefined : settingsScopeId(scope)
}

/** How messages name a section: `"web-search"` or `"web-search" in scope preset/coder`. */
export function sectionLabel(ns: string, scope?: string): string {
  return scope === undefined ? JSON.stringify(ns) : `${JSON.stringify(ns)} in scope ${scope}`
}
