import { SettingsInputError } from './errors.ts'
import { formatPath, isPlainObject, MAX_DEPTH, toJsonData, type InputSite } from './json.ts'
import { PROTOTYPE_KEYS } from './ids.ts'
import { copyData } from './merge.ts'
import type { JsonObject, JsonValue, SettingsPathOp } from './types.ts'

/** Most ops one `mutate` call may carry. */
export const MAX_OPS = 1000

const INDEX = /^(0|[1-9][0-9]*)$/

/** A checked op: its path is a fresh array and a `set` value is a JSON copy. */
export type CheckedPathOp =
  | { op: 'set'; path: string[]; value: JsonValue }
  | { op: 'unset'; path: string[] }

/**
 * Check an ops list at call time and copy it, so later caller mutation cannot
 * leak in: an array of at most {@link MAX_OPS} `{ op: 'set', path, value }` or
 * `{ op: 'unset', path }` objects, paths of strings without prototype keys.
 * @throws {SettingsInputError} for the first malformed op.
 */
export function checkPathOps(ops: unknown, site: InputSite): CheckedPathOp[] {
  const fail = (message: string): never => {
    throw new SettingsInputError(`${site.label}: ${message}`, { ns: site.ns, scope: site.scope })
  }
  if (!Array.isArray(ops)) fail('ops must be an array of path ops')
  const list = ops as unknown[]
  if (list.length > MAX_OPS) fail(`at most ${MAX_OPS} ops are allowed in one call`)
  return list.map((op, index) => {
    if (!isPlainObject(op) || (op.op !== 'set' && op.op !== 'unset')) {
      return fail(`op ${index} must be {op:'set'|'unset', path}`)
    }
    const path = op.path
    // Index by index: `every` would skip the holes of a sparse array.
    if (!Array.isArray(path) || !Array.from(path).every((segment) => typeof segment === 'string')) {
      return fail(`op ${index}: op paths must be arrays of strings`)
    }
    if (path.length > MAX_DEPTH) fail(`op ${index}: path is deeper than ${MAX_DEPTH} segments`)
    const forbidden = (path as string[]).find((segment) => PROTOTYPE_KEYS.has(segment))
    if (forbidden !== undefined) fail(`op ${index}: prototype key ${JSON.stringify(forbidden)} is not allowed in a path`)
    if (op.op === 'unset') return { op: 'unset', path: [...path] }
    if (!Object.hasOwn(op, 'value') || op.value === undefined) fail(`op ${index}: a set op needs a value`)
    return { op: 'set', path: [...path], value: toJsonData(op.value, site, ['ops', index, 'value']) }
  })
}

/**
 * Apply checked ops in order to a section and return the new section; the input
 * is not modified. A `set` creates missing or non-object intermediates; an
 * `unset` through a missing path does nothing. Where the value on the path is
 * an array, a decimal segment addresses an element: `set` replaces it (or
 * appends at the array's length), `unset` removes it and closes the gap.
 * @throws {SettingsInputError} for a non-object at the root, or an array segment that is not a usable index.
 */
export function applyPathOps(section: JsonObject, ops: readonly CheckedPathOp[], site: InputSite): JsonObject {
  let result = copyData(section)
  for (const op of ops) {
    if (op.path.length === 0) {
      if (op.op === 'unset') result = {}
      else if (isPlainObject(op.value)) result = copyData(op.value as JsonObject)
      else throw new SettingsInputError(`${site.label}: setting the section root requires a plain object`, { ns: site.ns, scope: site.scope, path: '$' })
      continue
    }
    if (op.op === 'set') setAt(result, op.path, op.value, site)
    else unsetAt(result, op.path)
  }
  return result
}

type Container = JsonObject | JsonValue[]

function arrayIndex(array: JsonValue[], segment: string, path: string[], depth: number, site: InputSite, allowAppend: boolean): number {
  const limit = allowAppend ? array.length : array.length - 1
  if (!INDEX.test(segment) || Number(segment) > limit) {
    const at = formatPath(path.slice(0, depth))
    throw new SettingsInputError(`${site.label}: segment ${JSON.stringify(segment)} is not an element index of the array at ${at}`, { ns: site.ns, scope: site.scope, path: at })
  }
  return Number(segment)
}

function setAt(root: JsonObject, path: string[], value: JsonValue, site: InputSite): void {
  let node: Container = root
  for (let depth = 0; depth < path.length; depth++) {
    const segment = path[depth]!
    const last = depth === path.length - 1
    if (Array.isArray(node)) {
      const index = arrayIndex(node, segment, path, depth, site, last)
      if (last) {
        node[index] = copyData(value)
        return
      }
      node = descend(node, index)
    } else {
      if (last) {
        node[segment] = copyData(value)
        return
      }
      node = descend(node, segment)
    }
  }
}

/** The container at `key`, replacing a missing or scalar child with a fresh object. */
function descend(node: Container, key: string | number): Container {
  const child = (node as Record<string | number, JsonValue>)[key]
  if (Array.isArray(child) || isPlainObject(child)) return child as Container
  const created: JsonObject = {}
  ;(node as Record<string | number, JsonValue>)[key] = created
  return created
}

function unsetAt(root: JsonObject, path: string[]): void {
  let node: unknown = root
  for (let depth = 0; depth < path.length; depth++) {
    const segment = path[depth]!
    const last = depth === path.length - 1
    if (Array.isArray(node)) {
      if (!INDEX.test(segment) || Number(segment) >= node.length) return
      if (last) {
        node.splice(Number(segment), 1)
        return
      }
      node = node[Number(segment)]
    } else if (isPlainObject(node)) {
      if (!Object.hasOwn(node, segment)) return
      if (last) {
        delete node[segment]
        return
      }
      node = node[segment]
    } else {
      return
    }
  }
}
