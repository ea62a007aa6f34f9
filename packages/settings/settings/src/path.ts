import { copyData } from './data.ts'
import { SettingsInputError } from './errors.ts'
import { PROTOTYPE_KEYS } from './ids.ts'
import { isPlainObject } from './data.ts'
import { inputError, MAX_DEPTH, readOwnData, toJsonData, type InputCall } from './json.ts'
import type { JsonObject, JsonValue } from './types.ts'

/** Most ops one `mutate` call may carry. */
export const MAX_OPS = 1000

const INDEX = /^(0|[1-9][0-9]*)$/

/** A checked op: its path is a fresh array and a `set` value is a JSON copy. */
export type CheckedPathOp =
  | { op: 'set'; path: string[]; value: JsonValue }
  | { op: 'unset'; path: string[] }

/** The keys each op may have: anything else is a caller mistake worth hearing about, not something to drop. */
const OP_KEYS = { set: ['op', 'path', 'value'], unset: ['op', 'path'] } as const

/**
 * The own data properties of `value` by key, read through descriptors so no
 * getter runs; `undefined` when `value` is not a plain object or holds an
 * accessor, which an op may not.
 */
function dataProperties(value: unknown): Map<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined
  const properties = new Map<string, unknown>()
  for (const key of Object.keys(value)) {
    const read = readOwnData(value, key)
    if (typeof read === 'string') return undefined
    properties.set(key, read.value)
  }
  return properties
}

/**
 * The elements of an array read through descriptors, or `undefined` when one
 * is a hole or an accessor: an op list or path with either is malformed.
 */
function dataElements(value: unknown[]): unknown[] | undefined {
  const items: unknown[] = []
  for (let index = 0; index < value.length; index++) {
    const read = readOwnData(value, index)
    if (typeof read === 'string') return undefined
    items.push(read.value)
  }
  return items
}

/**
 * Check an ops list at call time and copy it, so later caller mutation cannot
 * leak in: an array of at most {@link MAX_OPS} `{ op: 'set', path, value }` or
 * `{ op: 'unset', path }` objects and no other keys, paths of at most
 * {@link MAX_DEPTH} strings without prototype keys, and a plain object for a
 * `set` at the section root. Ops, op lists and paths are read like data (own
 * data properties; no getters, no holes). Errors carry the op's index and,
 * for a refused segment or value, its place in the section.
 * @throws {SettingsInputError} for the first malformed op: `bad-op`, `too-many-ops`, `too-deep`,
 *   `prototype-key`, `not-object` (a root `set`), or a {@link toJsonData} refusal of its value.
 */
export function checkPathOps(ops: unknown, call: InputCall): CheckedPathOp[] {
  const fail = (reason: 'bad-op' | 'too-many-ops', what: string): never => {
    throw inputError(call, reason, what)
  }
  if (!Array.isArray(ops)) return fail('bad-op', 'ops must be an array of path ops')
  if (ops.length > MAX_OPS) fail('too-many-ops', `at most ${MAX_OPS} ops are allowed in one call`)
  const list = dataElements(ops) ?? fail('bad-op', 'ops must be an array of path ops without holes or accessors')
  return list.map((input, index) => {
    const opCall: InputCall = { ...call, op: index }
    const bad = (what: string): never => {
      throw inputError(opCall, 'bad-op', what)
    }
    const op = dataProperties(input)
    const kind = op?.get('op')
    if (!op || (kind !== 'set' && kind !== 'unset')) return bad(`must be {op:'set'|'unset', path}`)
    const extra = [...op.keys()].find((key) => !(OP_KEYS[kind] as readonly string[]).includes(key))
    if (extra !== undefined) bad(`has an unexpected key ${JSON.stringify(extra.slice(0, 40))}`)
    const rawPath = op.get('path')
    const path = Array.isArray(rawPath) ? dataElements(rawPath) : undefined
    if (!path || !path.every((segment) => typeof segment === 'string')) return bad('op paths must be arrays of strings')
    const segments = path as string[]
    if (segments.length > MAX_DEPTH) throw inputError(opCall, 'too-deep', `path is deeper than ${MAX_DEPTH} segments`)
    const forbidden = segments.findIndex((segment) => PROTOTYPE_KEYS.has(segment))
    if (forbidden >= 0) {
      throw inputError(opCall, 'prototype-key', `prototype key ${JSON.stringify(segments[forbidden])} is not allowed in a path`, segments.slice(0, forbidden + 1))
    }
    if (kind === 'unset') return { op: 'unset', path: segments }
    const value = op.get('value')
    if (value === undefined) bad('a set op needs a value')
    if (segments.length === 0 && !isPlainObject(value)) throw rootNotObject(opCall)
    return { op: 'set', path: segments, value: toJsonData(value, opCall, segments) }
  })
}

/** The refusal of a `set` at the section root whose value is not a plain object: a section is always one. */
function rootNotObject(call: InputCall): SettingsInputError {
  return inputError(call, 'not-object', 'setting the section root requires a plain object', [])
}

/**
 * Apply checked ops in order to a section and return the new section; the input
 * is not modified. A `set` creates missing or non-object intermediates; an
 * `unset` through a missing path does nothing. Where the value on the path is
 * an array, a decimal segment addresses an element: `set` replaces it (or
 * appends at the array's length), `unset` removes it and closes the gap.
 * @throws {SettingsInputError} `bad-index` for an array segment that is not a usable index (its `path` is
 *   the array's), `not-object` for a root `set` of anything but a plain object (only reachable with ops
 *   built by hand, since {@link checkPathOps} refuses it first).
 */
export function applyPathOps(section: JsonObject, ops: readonly CheckedPathOp[], call: InputCall): JsonObject {
  let result = copyData(section)
  ops.forEach((op, index) => {
    const opCall: InputCall = { ...call, op: index }
    if (op.path.length === 0) {
      if (op.op === 'unset') result = {}
      else if (isPlainObject(op.value)) result = copyData(op.value as JsonObject)
      else throw rootNotObject(opCall)
    } else if (op.op === 'set') setAt(result, op.path, op.value, opCall)
    else unsetAt(result, op.path)
  })
  return result
}

type Container = JsonObject | JsonValue[]

function arrayIndex(array: JsonValue[], segment: string, path: string[], depth: number, call: InputCall, allowAppend: boolean): number {
  const limit = allowAppend ? array.length : array.length - 1
  if (!INDEX.test(segment) || Number(segment) > limit) {
    throw inputError(call, 'bad-index', `segment ${JSON.stringify(segment)} is not an element index of the array`, path.slice(0, depth))
  }
  return Number(segment)
}

function setAt(root: JsonObject, path: string[], value: JsonValue, call: InputCall): void {
  let node: Container = root
  for (let depth = 0; depth < path.length; depth++) {
    const segment = path[depth]!
    const last = depth === path.length - 1
    if (Array.isArray(node)) {
      const index = arrayIndex(node, segment, path, depth, call, last)
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
