import { settingsNamespace, settingsScopeId, type JsonObject, type SettingsNamespace, type SettingsPathOp, type SettingsScopeId } from 'dsh-settings'
import { invalid, rejected, sectionDetails, type SectionFacts } from './errors.ts'
import { checkSize, copyJsonData, isPlainObject, MAX_DEPTH, pathText } from './json.ts'

/** Most ops one `mutate` call may carry (the seam's own limit). */
export const MAX_OPS = 1000
/** Longest preset id accepted: a directory name longer than this cannot exist on common file systems. */
export const MAX_PRESET_ID = 255
/** The `<id>` half of the scope-id grammar, which preset ids share. */
export const PRESET_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/

const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * Check a namespace argument with the seam's own grammar, so the controller and
 * the service can never disagree on what a namespace is.
 * @throws {RemoteError} `settings/invalid` for a non-string, malformed or reserved namespace.
 */
export function checkNamespace(ns: unknown): SettingsNamespace {
  try {
    return settingsNamespace(ns)
  } catch (error) {
    throw invalid((error as Error).message)
  }
}

/**
 * Check an optional scope argument (`undefined` is the global scope). `null`
 * is accepted as "absent" too, because a JSON client cannot send `undefined`
 * in the middle of an argument list.
 * @throws {RemoteError} `settings/invalid` for anything but a well-formed `<kind>/<id>`.
 */
export function checkScope(scope: unknown): SettingsScopeId | undefined {
  if (scope === undefined || scope === null) return undefined
  try {
    return settingsScopeId(scope)
  } catch (error) {
    throw invalid((error as Error).message)
  }
}

/**
 * Check an `expectedRevision` argument: a revision number, or `null`/absent for
 * an unconditional write (JSON has no `undefined`).
 * @throws {RemoteError} `settings/invalid` for any other value.
 */
export function checkRevision(revision: unknown, label: string, facts: SectionFacts): number | undefined {
  if (revision === undefined || revision === null) return undefined
  if (typeof revision === 'number' && Number.isSafeInteger(revision) && revision >= 0) return revision
  throw invalid(`${label}: expectedRevision must be a revision number, null or absent`, sectionDetails(facts))
}

/**
 * Check a `patch` or `section` argument: a plain object of JSON data within the
 * size limits. Returns a detached copy.
 * @throws {RemoteError} `settings/invalid` for a non-object or an oversized request,
 *   `settings/rejected` (with the field's `path`) for data the service would refuse.
 */
export function checkSection(value: unknown, what: 'patch' | 'section', label: string, facts: SectionFacts): JsonObject {
  if (!isPlainObject(value)) throw invalid(`${label}: the ${what} must be a plain object`, sectionDetails(facts))
  const copy = copyJsonData(value, { label, facts }) as JsonObject
  checkSize(copy, label, facts)
  return copy
}

/**
 * Check an `ops` argument: an array of at most {@link MAX_OPS} well-formed
 * `{ op: 'set', path, value }` / `{ op: 'unset', path }` objects, with paths of
 * strings no deeper than the seam allows, and JSON values. Returns a detached copy.
 * @throws {RemoteError} `settings/invalid` for a malformed list or op (a `set`
 *   without `value` included) or an oversized request, `settings/rejected` for
 *   a prototype key or data the service would refuse.
 */
export function checkOps(ops: unknown, label: string, facts: SectionFacts): SettingsPathOp[] {
  if (!Array.isArray(ops)) throw invalid(`${label}: ops must be an array of path ops`, sectionDetails(facts))
  if (ops.length > MAX_OPS) throw invalid(`${label}: at most ${MAX_OPS} ops are allowed in one call`, sectionDetails(facts))
  const checked: SettingsPathOp[] = []
  for (let index = 0; index < ops.length; index++) {
    const op: unknown = Object.getOwnPropertyDescriptor(ops, index)?.value
    const bad = (why: string): never => {
      throw invalid(`${label}: op ${index} ${why}`, sectionDetails(facts, { op: index }))
    }
    if (!isPlainObject(op)) bad(`must be an object {op, path}`)
    const record = op as Record<string, unknown>
    const keys = Object.keys(record)
    if (record.op !== 'set' && record.op !== 'unset') bad(`must have op 'set' or 'unset'`)
    const allowed = record.op === 'set' ? ['op', 'path', 'value'] : ['op', 'path']
    const extra = keys.find((key) => !allowed.includes(key))
    if (extra !== undefined) bad(`has an unexpected key ${JSON.stringify(extra.slice(0, 40))}`)
    const path = record.path
    if (!Array.isArray(path)) bad('needs a path: an array of strings')
    const segments: string[] = []
    for (let at = 0; at < (path as unknown[]).length; at++) {
      const segment: unknown = Object.getOwnPropertyDescriptor(path, at)?.value
      if (typeof segment !== 'string') bad('needs a path: an array of strings')
      segments.push(segment as string)
    }
    if (segments.length > MAX_DEPTH) bad(`has a path deeper than ${MAX_DEPTH} segments`)
    const forbidden = segments.findIndex((segment) => PROTOTYPE_KEYS.has(segment))
    if (forbidden >= 0) {
      const at = segments.slice(0, forbidden + 1)
      throw rejected(`${label}: prototype key ${JSON.stringify(segments[forbidden])} is not allowed at ${pathText(at)}`, sectionDetails(facts, { path: at, reason: 'SETTINGS_BAD_INPUT' }))
    }
    if (record.op === 'unset') {
      checked.push({ op: 'unset', path: segments })
      continue
    }
    if (!Object.hasOwn(record, 'value') || record.value === undefined) bad('is a set without a value')
    checked.push({ op: 'set', path: segments, value: copyJsonData(record.value, { label, facts, at: segments }) })
  }
  checkSize(checked, label, facts)
  return checked
}

/**
 * Check a preset id: the `<id>` grammar of a scope id, so it can never spell a
 * path (`..`, a separator, an absolute path) and always names one directory.
 * @throws {RemoteError} `settings/invalid` for anything else.
 */
export function checkPresetId(presetId: unknown): string {
  if (typeof presetId !== 'string' || presetId.length > MAX_PRESET_ID || !PRESET_ID_PATTERN.test(presetId)) {
    const shown = typeof presetId === 'string' ? JSON.stringify(presetId.slice(0, 80)) : typeof presetId
    throw invalid(`agent preset id ${shown} must match ${PRESET_ID_PATTERN} (at most ${MAX_PRESET_ID} characters)`)
  }
  return presetId
}

/**
 * Check a caller's lifetime signal.
 * @throws {RemoteError} `settings/invalid` when it is given and is not an `AbortSignal`.
 */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined
  if (signal instanceof AbortSignal) return signal
  throw invalid('signal must be an AbortSignal')
}

/**
 * Refuse a wire call that sends more arguments than the method takes, rather
 * than silently ignoring what the caller meant to say.
 * @throws {RemoteError} `settings/invalid`.
 */
export function checkArity(method: string, args: readonly unknown[], max: number): void {
  if (args.length > max) throw invalid(`settings.${method} takes at most ${max} argument${max === 1 ? '' : 's'}, got ${args.length}`)
}
