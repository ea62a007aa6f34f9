import Schema from 'schemastery'
import { isPlainObject } from './json.ts'
import { copyData } from './merge.ts'
import type { SettingsSchema } from './types.ts'

type AnySchema = SettingsSchema<any>

/** A secret position found while redacting one value. */
export interface SecretSlot {
  path: string[]
  set: boolean
}

/** A redacted value and the secret slots it had. */
export interface Redaction {
  /** The value without its secrets; `undefined` when the whole value was secret. */
  value: unknown
  slots: SecretSlot[]
}

/** Strips `role('secret')` positions from values of one schema. */
export interface Redactor {
  /** Whether the schema declares any secret at all. */
  readonly hasSecrets: boolean
  /** Redact one value of the whole schema; the input is never modified. */
  redact(value: unknown): Redaction
  /** Redact a value of one node of the schema (a schema default, say). */
  redactWith(value: unknown, node: AnySchema): Redaction
  /** Whether `node` (a node of this schema) is or contains a secret. */
  containsSecret(node: AnySchema): boolean
}

const REMOVED = Symbol('removed')

/** A lazy schema's inner schema, built on first use as schemastery itself does. */
export function unlazy(node: AnySchema): AnySchema {
  while (node.type === 'lazy') {
    if (!node.inner || typeof node.inner !== 'function') {
      node.inner = node.builder!()
      node.inner!.meta = { ...node.meta, ...node.inner!.meta }
    }
    node = node.inner!
  }
  return node
}

/** The child schemas of a node, in declaration order. */
export function childrenOf(node: AnySchema): AnySchema[] {
  const children: AnySchema[] = []
  if (node.sKey) children.push(node.sKey)
  if (node.inner && typeof node.inner === 'function') children.push(node.inner)
  if (node.list) children.push(...node.list)
  if (node.dict) children.push(...Object.values(node.dict))
  return children
}

function isSecretNode(node: AnySchema): boolean {
  return node.meta?.role === 'secret'
}

function matches(value: unknown, branch: AnySchema): boolean {
  try {
    Schema.resolve(copyData(value), branch, {})
    return true
  } catch {
    return false
  }
}

/**
 * Build a redactor for `schema`. It follows objects, dicts, arrays, tuples,
 * unions (through the branch that admits the value, as resolution does),
 * intersections and transforms. It fails closed: where a secret-bearing part of
 * the schema meets a value of the wrong shape, or a union no branch admits, the
 * whole value at that position is treated as a secret. Secret array items
 * become `null` so the remaining indexes still address the same elements.
 */
export function createRedactor(schema: AnySchema): Redactor {
  const memo = new Map<AnySchema, boolean>()
  // Reachability, not recursion with provisional answers: a recursive schema reaches itself,
  // and a "no secret yet" recorded mid-walk would wrongly clear its ancestors.
  const containsSecret = (input: AnySchema): boolean => {
    const start = unlazy(input)
    const known = memo.get(start)
    if (known !== undefined) return known
    let found = isSecretNode(input)
    const seen = new Set<AnySchema>([start])
    const pending = [start]
    while (!found && pending.length) {
      const node = pending.pop()!
      if (isSecretNode(node)) found = true
      for (const child of childrenOf(node)) {
        if (isSecretNode(child)) found = true
        const inner = unlazy(child)
        if (!seen.has(inner)) {
          seen.add(inner)
          pending.push(inner)
        }
      }
    }
    memo.set(start, found)
    return found
  }

  const walk = (value: unknown, input: AnySchema, path: string[], slots: SecretSlot[]): unknown => {
    const node = unlazy(input)
    if (isSecretNode(input) || isSecretNode(node)) {
      slots.push({ path, set: value !== undefined && value !== null })
      return REMOVED
    }
    if (!containsSecret(node)) return value
    const opaque = () => (slots.push({ path, set: true }), REMOVED)
    switch (node.type) {
      case 'object': {
        const dict = node.dict ?? {}
        if (value === undefined || value === null) {
          for (const key of Object.keys(dict)) walk(undefined, dict[key]!, [...path, key], slots)
          return value
        }
        if (!isPlainObject(value)) return opaque()
        const result: Record<string, unknown> = { ...value }
        for (const key of Object.keys(dict)) {
          const child = walk(Object.hasOwn(value, key) ? value[key] : undefined, dict[key]!, [...path, key], slots)
          if (child === REMOVED) delete result[key]
          else if (Object.hasOwn(value, key)) result[key] = child
        }
        return result
      }
      case 'dict': {
        if (value === undefined || value === null) return value
        if (!isPlainObject(value) || !node.inner) return opaque()
        const result: Record<string, unknown> = {}
        for (const key of Object.keys(value)) {
          const child = walk(value[key], node.inner, [...path, key], slots)
          if (child !== REMOVED) result[key] = child
        }
        return result
      }
      case 'array':
      case 'tuple': {
        if (value === undefined || value === null) return value
        if (!Array.isArray(value)) return opaque()
        return value.map((item, index) => {
          const itemSchema = node.type === 'array' ? node.inner : node.list?.[index]
          if (!itemSchema) return item
          const child = walk(item, itemSchema, [...path, String(index)], slots)
          return child === REMOVED ? null : child
        })
      }
      case 'union': {
        if (value === undefined || value === null) return value
        const branch = node.list?.find((candidate) => matches(value, candidate))
        return branch ? walk(value, branch, path, slots) : opaque()
      }
      case 'intersect': {
        let result = value
        for (const branch of node.list ?? []) {
          result = walk(result, branch, path, slots)
          if (result === REMOVED) return REMOVED
        }
        return result
      }
      case 'transform':
        return node.inner ? walk(value, node.inner, path, slots) : opaque()
      default:
        return opaque()
    }
  }

  const redactWith = (value: unknown, node: AnySchema): Redaction => {
    const slots: SecretSlot[] = []
    const result = walk(value, node, [], slots)
    const seen = new Set<string>()
    const unique = slots.filter((slot) => {
      const key = JSON.stringify(slot.path)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    return { value: result === REMOVED ? undefined : result, slots: unique }
  }

  return {
    hasSecrets: containsSecret(schema),
    containsSecret,
    redact: (value) => redactWith(value, schema),
    redactWith,
  }
}
