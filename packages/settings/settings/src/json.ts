import { SettingsInputError } from './errors.ts'
import { PROTOTYPE_KEYS } from './ids.ts'
import type { JsonObject, JsonValue } from './types.ts'

/** Deepest nesting a written value may have. */
export const MAX_DEPTH = 64
/** Largest JSON encoding (in UTF-8 bytes) one write may carry. */
export const MAX_WRITE_BYTES = 1024 * 1024

/** Whether `value` is an object whose prototype is `Object.prototype` or `null`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Set an own data property, safely even for the key `__proto__` (which plain
 * assignment would turn into a prototype change).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** Render a path as `$`-rooted JSON path text: `$.a.b`, `$.list[0]`, `$["odd key"]`. */
export function formatPath(path: readonly (string | number)[]): string {
  let text = '$'
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) text += `.${segment}`
    else text += `[${JSON.stringify(segment)}]`
  }
  return text
}

function kindOf(value: unknown): string {
  if (typeof value === 'function') return 'function'
  if (typeof value === 'bigint') return 'bigint'
  if (typeof value === 'symbol') return 'symbol'
  if (typeof value === 'number') return 'non-finite number'
  if (typeof value === 'undefined') return 'undefined'
  const ctor = Object.getPrototypeOf(value)?.constructor
  return typeof ctor === 'function' && ctor.name && ctor !== Object ? ctor.name : 'a non-plain object'
}

/** Where an input error is reported: the verb and section it concerns. */
export interface InputSite {
  label: string
  ns?: string
  scope?: string
}

/**
 * Check that `value` is JSON data and return a fresh deep copy of it. Object
 * entries holding `undefined` are dropped (a sparse patch cannot erase a key);
 * everything else JSON cannot carry is refused with its path, as are prototype
 * keys, nesting past {@link MAX_DEPTH} and encodings past {@link MAX_WRITE_BYTES}.
 * @throws {SettingsInputError} naming the offending path.
 */
export function toJsonData(value: unknown, site: InputSite, root: (string | number)[] = []): JsonValue {
  const ancestors = new Set<object>()
  // A lower bound of the UTF-8 encoding, kept while walking so a huge input stops early;
  // the exact size is measured at the end when the bound alone cannot settle it.
  let budget = MAX_WRITE_BYTES
  const fail = (what: string, path: (string | number)[]): never => {
    const at = formatPath(path)
    throw new SettingsInputError(`${site.label}: ${what} at ${at}`, { ns: site.ns, scope: site.scope, path: at })
  }
  const spend = (bytes: number, path: (string | number)[]) => {
    budget -= bytes
    if (budget < 0) fail(`data exceeds ${MAX_WRITE_BYTES} bytes of JSON`, path)
  }
  const walk = (input: unknown, path: (string | number)[]): JsonValue => {
    if (input === null || typeof input === 'boolean') return spend(input === false ? 5 : 4, path), input
    if (typeof input === 'string') return spend(input.length + 2, path), input
    if (typeof input === 'number') {
      if (!Number.isFinite(input)) fail('data must be JSON-compatible: non-finite number', path)
      return spend(String(input).length, path), input
    }
    if (typeof input !== 'object') return fail(`data must be JSON-compatible: ${kindOf(input)}`, path)
    if (path.length - root.length >= MAX_DEPTH) fail(`data nests deeper than ${MAX_DEPTH} levels`, path)
    if (ancestors.has(input)) fail('data must be JSON-compatible: circular reference', path)
    const isArray = Array.isArray(input)
    if (!isArray && !isPlainObject(input)) fail(`data must be JSON-compatible: ${kindOf(input)}`, path)
    ancestors.add(input)
    spend(2, path)
    let result: JsonValue
    if (isArray) {
      const items: JsonValue[] = []
      for (let index = 0; index < input.length; index++) {
        const item = input[index]
        if (item === undefined) fail('data must be JSON-compatible: undefined array entry', [...path, index])
        if (index) spend(1, path)
        items.push(walk(item, [...path, index]))
      }
      result = items
    } else {
      const entries: JsonObject = {}
      let count = 0
      for (const key of Object.keys(input)) {
        const item = (input as Record<string, unknown>)[key]
        if (PROTOTYPE_KEYS.has(key)) fail(`prototype key ${JSON.stringify(key)} is not allowed`, [...path, key])
        if (item === undefined) continue
        spend(key.length + (count++ ? 4 : 3), path)
        entries[key] = walk(item, [...path, key])
      }
      result = entries
    }
    ancestors.delete(input)
    return result
  }
  const result = walk(value, root)
  // Strings were counted by UTF-16 units; one unit encodes to at most 6 bytes (`\u001f`),
  // so only a bound past a sixth of the limit needs the exact measure.
  if ((MAX_WRITE_BYTES - budget) * 6 > MAX_WRITE_BYTES && utf8Length(JSON.stringify(result)) > MAX_WRITE_BYTES) {
    fail(`data exceeds ${MAX_WRITE_BYTES} bytes of JSON`, root)
  }
  return result
}

/** The UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length
}

/**
 * Check that `value` is a plain-object payload and return its JSON copy.
 * @throws {SettingsInputError} when it is not a plain object or not JSON data.
 */
export function toJsonObject(value: unknown, site: InputSite): JsonObject {
  if (!isPlainObject(value)) {
    throw new SettingsInputError(`${site.label} must be a plain object`, { ns: site.ns, scope: site.scope })
  }
  return toJsonData(value, site) as JsonObject
}

/**
 * Copy data read from storage without trusting it: plain objects and arrays are
 * copied (a `__proto__` key stays an own data property, never a prototype), and
 * anything else is kept as it is.
 */
export function cloneStored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneStored)
  if (!isPlainObject(value)) return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    setOwn(copy, key, cloneStored(value[key]))
  }
  return copy
}

/**
 * Why a stored section cannot feed resolution, or `undefined` when it can. An
 * absent section is fine; a non-object, or one holding a prototype key at any depth, is not.
 */
export function storedSectionProblem(section: unknown): string | undefined {
  if (section === undefined) return undefined
  if (!isPlainObject(section)) return 'must be an object of keys'
  const find = (value: unknown, path: (string | number)[]): string | undefined => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const found = find(value[i], [...path, i])
        if (found) return found
      }
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        if (PROTOTYPE_KEYS.has(key)) return `holds prototype key ${JSON.stringify(key)} at ${formatPath([...path, key])}`
        const found = find(value[key], [...path, key])
        if (found) return found
      }
    }
    return undefined
  }
  return find(section, [])
}
