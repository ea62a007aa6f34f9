import { isPlainObject } from './data.ts'
import { SettingsInputError, type SettingsInputReason } from './errors.ts'
import { PROTOTYPE_KEYS } from './ids.ts'
import { isOwned } from './owned.ts'
import type { JsonObject, JsonValue } from './types.ts'


/** Deepest nesting a written value may have, and the most segments an op path may have. */
export const MAX_DEPTH = 64
/** Largest JSON encoding (in UTF-8 bytes) one write may carry. */
export const MAX_WRITE_BYTES = 1024 * 1024

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

/**
 * Read an own property as data, through its descriptor so no getter (caller
 * code) runs: its value, `'accessor'` for a getter or setter, `'hole'` when
 * there is no such property (an array hole). Input is only ever read this way.
 */
export function readOwnData(container: object, key: string | number): { value: unknown } | 'hole' | 'accessor' {
  const descriptor = Object.getOwnPropertyDescriptor(container, key)
  if (!descriptor) return 'hole'
  return 'value' in descriptor ? { value: descriptor.value } : 'accessor'
}

/** The call whose input is checked, as its errors name it: the verb and section it concerns, and the op of a `mutate`. */
export interface InputCall {
  label: string
  ns?: string
  scope?: string
  /** The index of the op whose value is being checked. */
  op?: number
}

/**
 * Build the seam's input error for `call`: the message reads
 * `<label>: [op <i>: ]<what>[ at <$-path>]` and the error carries the path as
 * segments (array indexes as decimal text), so callers never parse the text.
 */
export function inputError(call: InputCall, reason: SettingsInputReason, what: string, path?: readonly (string | number)[]): SettingsInputError {
  const op = call.op === undefined ? '' : `op ${call.op}: `
  const at = path === undefined ? '' : ` at ${formatPath(path)}`
  return new SettingsInputError(`${call.label}: ${op}${what}${at}`, {
    reason,
    ns: call.ns,
    scope: call.scope,
    ...(path === undefined ? {} : { path: path.map(String) }),
    ...(call.op === undefined ? {} : { op: call.op }),
  })
}

/**
 * Check that `value` is JSON data and return a fresh deep copy of it.
 *
 * Only own enumerable data properties are read, through their descriptors:
 * no getter (caller code) runs, and an accessor property is refused, as is an
 * array hole, rather than read as `undefined`. Object entries holding
 * `undefined` are dropped (a sparse patch cannot erase a key); everything else
 * JSON cannot carry is refused with its path (`not-json`), as are prototype
 * keys (`prototype-key`), nesting past {@link MAX_DEPTH} (`too-deep`) and
 * encodings past {@link MAX_WRITE_BYTES} (`too-large`).
 * @param root - where `value` sits inside the section (an op's path for its value); error paths start there,
 *   and nesting is counted from it.
 * @throws {SettingsInputError} naming the offending path.
 */
export function toJsonData(value: unknown, call: InputCall, root: readonly (string | number)[] = []): JsonValue {
  const ancestors = new Set<object>()
  // A lower bound of the UTF-8 encoding, kept while walking so a huge input stops early;
  // the exact size is measured at the end when the bound alone cannot decide it.
  let budget = MAX_WRITE_BYTES
  const fail = (reason: SettingsInputReason, what: string, path: readonly (string | number)[]): never => {
    throw inputError(call, reason, what, path)
  }
  const tooLarge = `data exceeds ${MAX_WRITE_BYTES} bytes of JSON`
  const spend = (bytes: number, path: (string | number)[]) => {
    budget -= bytes
    if (budget < 0) fail('too-large', tooLarge, path)
  }
  /** The value of an own data property, or a refusal for an accessor or a missing element. */
  const dataOf = (container: object, key: string | number, path: (string | number)[]): unknown => {
    const read = readOwnData(container, key)
    if (typeof read === 'string') return fail('not-json', read === 'hole' ? 'data must be JSON-compatible: array hole' : 'data must be JSON-compatible: accessor property', path)
    return read.value
  }
  const walk = (input: unknown, path: (string | number)[]): JsonValue => {
    if (input === null || typeof input === 'boolean') return spend(input === false ? 5 : 4, path), input
    if (typeof input === 'string') return spend(input.length + 2, path), input
    if (typeof input === 'number') {
      if (!Number.isFinite(input)) fail('not-json', 'data must be JSON-compatible: non-finite number', path)
      return spend(String(input).length, path), input
    }
    if (typeof input !== 'object') return fail('not-json', `data must be JSON-compatible: ${kindOf(input)}`, path)
    if (path.length - root.length >= MAX_DEPTH) fail('too-deep', `data nests deeper than ${MAX_DEPTH} levels`, path)
    if (ancestors.has(input)) fail('not-json', 'data must be JSON-compatible: circular reference', path)
    const isArray = Array.isArray(input)
    if (!isArray && !isPlainObject(input)) fail('not-json', `data must be JSON-compatible: ${kindOf(input)}`, path)
    ancestors.add(input)
    spend(2, path)
    let result: JsonValue
    if (isArray) {
      const items: JsonValue[] = []
      for (let index = 0; index < input.length; index++) {
        const itemPath = [...path, index]
        const item = dataOf(input, index, itemPath)
        if (item === undefined) fail('not-json', 'data must be JSON-compatible: undefined array entry', itemPath)
        if (index) spend(1, path)
        items.push(walk(item, itemPath))
      }
      result = items
    } else {
      const entries: JsonObject = {}
      let count = 0
      for (const key of Object.keys(input)) {
        const itemPath = [...path, key]
        if (PROTOTYPE_KEYS.has(key)) fail('prototype-key', `prototype key ${JSON.stringify(key)} is not allowed`, itemPath)
        const item = dataOf(input, key, itemPath)
        if (item === undefined) continue
        spend(key.length + (count++ ? 4 : 3), path)
        entries[key] = walk(item, itemPath)
      }
      result = entries
    }
    ancestors.delete(input)
    return result
  }
  const result = walk(value, [...root])
  // Strings were counted by UTF-16 units; one unit encodes to at most 6 bytes (`\u001f`),
  // so only a bound past a sixth of the limit needs the exact measure.
  if ((MAX_WRITE_BYTES - budget) * 6 > MAX_WRITE_BYTES && utf8Length(JSON.stringify(result)) > MAX_WRITE_BYTES) {
    fail('too-large', tooLarge, root)
  }
  return result
}

/** The UTF-8 byte length of a string. */
export function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length
}

/**
 * Check that `value` is a plain-object payload and return its JSON copy.
 * @throws {SettingsInputError} `not-object` when it is not a plain object, or as {@link toJsonData} for its data.
 */
export function toJsonObject(value: unknown, call: InputCall): JsonObject {
  if (!isPlainObject(value)) {
    throw new SettingsInputError(`${call.label} must be a plain object`, { reason: 'not-object', ns: call.ns, scope: call.scope })
  }
  return toJsonData(value, call) as JsonObject
}

/**
 * Why a stored section cannot feed resolution, or `undefined` when it can. An
 * absent section is fine; a non-object, or one holding a prototype key at any depth, is not.
 */
export function storedSectionProblem(section: unknown): string | undefined {
  if (section === undefined) return undefined
  if (!isPlainObject(section)) return 'must be an object of keys'
  return problemBelow(section, [])
}

/**
 * Objects and arrays already found free of prototype keys all the way down.
 * A stored section is never changed once stored, and a write shares the parts
 * it does not reach (see `mergeShared`): each part is walked once, not at
 * every write and every resolution.
 */
const wellFormed = new WeakSet<object>()

function problemBelow(value: unknown, path: (string | number)[]): string | undefined {
  const found = prototypeKeyBelow(value)
  return found && `holds prototype key ${JSON.stringify(found.at(-1))} at ${formatPath([...path, ...found])}`
}

/** The path to the first prototype key under `value` (built only on the way back from one: a clean walk allocates nothing per node). */
function prototypeKeyBelow(value: unknown): (string | number)[] | undefined {
  if (typeof value !== 'object' || value === null || wellFormed.has(value) || isOwned(value)) return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = prototypeKeyBelow(value[i])
      if (found) {
        found.unshift(i)
        return found
      }
    }
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (PROTOTYPE_KEYS.has(key)) return [key]
      const found = prototypeKeyBelow(value[key])
      if (found) {
        found.unshift(key)
        return found
      }
    }
  } else {
    return undefined
  }
  wellFormed.add(value)
  return undefined
}
