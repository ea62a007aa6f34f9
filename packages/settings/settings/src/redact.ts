import Schema from 'schemastery'
import { isPlainObject } from './data.ts'
import { copyData } from './data.ts'
import { childrenOf, unlazy } from './schema-nodes.ts'
import type { SettingsSchema } from './types.ts'
import { undeclaredPaths } from './undeclared.ts'

export { childrenOf, unlazy } from './schema-nodes.ts'

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
  /** The places `value` holds that the schema does not declare (see `undeclared.ts`). */
  undeclared(value: unknown): string[][]
}

const REMOVED = Symbol('removed')

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

/** Report all of `value` at `path` as one set secret: no part of the schema can vouch for any of it. */
function opaque(path: string[], slots: SecretSlot[]): typeof REMOVED {
  slots.push({ path, set: true })
  return REMOVED
}

/**
 * A secret-bearing schema met a value of another shape: a secret as a whole where the value
 * resolved through that schema (fail closed), else not that schema's to judge.
 */
function misfit(value: unknown, path: string[], slots: SecretSlot[], resolved: boolean): unknown {
  return resolved ? opaque(path, slots) : value
}

/** Whether `value` is a container a former union branch could have left keys or items in. */
function isContainer(value: unknown): boolean {
  return isPlainObject(value) || Array.isArray(value)
}

/**
 * Merge the slots found for one path (a secret can be met through the matched branch and
 * through another one): the first occurrence keeps its place, and a path is set when any walk saw a value.
 */
function mergeSlots(slots: SecretSlot[]): SecretSlot[] {
  const byPath = new Map<string, SecretSlot>()
  for (const slot of slots) {
    const key = JSON.stringify(slot.path)
    const known = byPath.get(key)
    if (known) known.set ||= slot.set
    else byPath.set(key, { ...slot })
  }
  return [...byPath.values()]
}

/**
 * Build a redactor for `schema`. It follows objects, dicts, arrays, tuples,
 * unions (through the branch that admits the value, as resolution does),
 * intersections and transforms. It fails closed: where a secret-bearing part of
 * the schema meets a value of the wrong shape, or a union no branch admits, the
 * whole value at that position is treated as a secret. Secret array items
 * become `null` so the remaining indexes still address the same elements.
 *
 * The other branches of a union count too: object schemas keep keys they do not
 * declare, so after a discriminator switch the value still holds what the former
 * branch wrote, and the branch that admits it now may not know (or may call plain)
 * a key the former branch marked secret. Every position any branch marks secret is
 * therefore redacted wherever the value sits, and reported as a set slot.
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

  /**
   * Whether a union branch that did not pick `value` may have left a secret in it. One that
   * admits the value could be its schema (a plain string beside a secret one). One that
   * rejects it can only have left keys or items inside a container, and only if it has
   * child schemas: so `42` stays beside a secret string, and a key file's object beside a secret key.
   */
  const mayHaveLeftSecrets = (value: unknown, branch: AnySchema): boolean =>
    containsSecret(branch) && ((isContainer(value) && childrenOf(unlazy(branch)).length > 0) || matches(value, branch))

  /** Redact, one after another, what `branches` (which did not pick the value) may have left secret in it. */
  const redactLeftovers = (value: unknown, branches: AnySchema[], path: string[], slots: SecretSlot[]): unknown => {
    let result = value
    for (const branch of branches) {
      if (!mayHaveLeftSecrets(result, branch)) continue
      result = walk(result, branch, path, slots, false)
      if (result === REMOVED) return REMOVED
    }
    return result
  }

  /**
   * Redact `value` at `path` as `input` describes it. `resolved` tells whether the value
   * resolved through `input`: then absent secrets are listed as unset slots and a value of the
   * wrong shape is a secret (fail closed). Otherwise `input` is a union branch the value may
   * only have kept leftovers of: only what is present is redacted, and a container of another
   * shape is not that branch's to judge.
   */
  const walk = (value: unknown, input: AnySchema, path: string[], slots: SecretSlot[], resolved: boolean): unknown => {
    const node = unlazy(input)
    const present = value !== undefined && value !== null
    if (isSecretNode(input) || isSecretNode(node)) {
      if (!present && !resolved) return value
      slots.push({ path, set: present })
      return REMOVED
    }
    if (!containsSecret(node)) return value
    if (!present) {
      // Name the secret properties of an absent object, so a page can offer them as unset inputs.
      if (resolved && node.type === 'object') {
        for (const [key, child] of Object.entries(node.dict ?? {})) walk(undefined, child, [...path, key], slots, true)
      }
      return value
    }
    switch (node.type) {
      case 'object': {
        if (!isPlainObject(value)) return misfit(value, path, slots, resolved)
        const dict = node.dict ?? {}
        const result: Record<string, unknown> = { ...value }
        for (const key of Object.keys(dict)) {
          const child = walk(Object.hasOwn(value, key) ? value[key] : undefined, dict[key]!, [...path, key], slots, resolved)
          if (child === REMOVED) delete result[key]
          else if (Object.hasOwn(value, key)) result[key] = child
        }
        return result
      }
      case 'dict': {
        if (!isPlainObject(value) || !node.inner) return misfit(value, path, slots, resolved)
        const result: Record<string, unknown> = {}
        for (const key of Object.keys(value)) {
          const child = walk(value[key], node.inner, [...path, key], slots, resolved)
          if (child !== REMOVED) result[key] = child
        }
        return result
      }
      case 'array':
      case 'tuple': {
        if (!Array.isArray(value)) return misfit(value, path, slots, resolved)
        return value.map((item, index) => {
          const itemSchema = node.type === 'array' ? node.inner : node.list?.[index]
          if (!itemSchema) return item
          const child = walk(item, itemSchema, [...path, String(index)], slots, resolved)
          return child === REMOVED ? null : child
        })
      }
      case 'union': {
        const branches = node.list ?? []
        if (!resolved) return redactLeftovers(value, branches, path, slots)
        const branch = branches.find((candidate) => matches(value, candidate))
        if (!branch) return opaque(path, slots)
        const result = walk(value, branch, path, slots, true)
        return result === REMOVED ? REMOVED : redactLeftovers(result, branches.filter((other) => other !== branch), path, slots)
      }
      case 'intersect': {
        let result: unknown = value
        for (const part of node.list ?? []) {
          result = walk(result, part, path, slots, resolved)
          if (result === REMOVED) return REMOVED
        }
        return result
      }
      case 'transform':
        return node.inner ? walk(value, node.inner, path, slots, resolved) : opaque(path, slots)
      default:
        // A secret-bearing schema this walk does not know: it cannot prove any part safe.
        return opaque(path, slots)
    }
  }

  const redactWith = (value: unknown, node: AnySchema): Redaction => {
    const slots: SecretSlot[] = []
    const result = walk(value, node, [], slots, true)
    return { value: result === REMOVED ? undefined : result, slots: mergeSlots(slots) }
  }

  return {
    hasSecrets: containsSecret(schema),
    containsSecret,
    redact: (value) => redactWith(value, schema),
    redactWith,
    undeclared: (value) => undeclaredPaths(schema, value),
  }
}

/**
 * The paths of `value` where `redactor`'s schema marks a secret that holds a
 * value (its set slots); `[]` without a redactor or when the schema has no secret.
 */
export function setSecretPaths(redactor: Redactor | undefined, value: unknown): string[][] {
  if (!redactor?.hasSecrets) return []
  return redactor.redact(value).slots.filter((slot) => slot.set).map((slot) => slot.path)
}
