import Schema from 'schemastery'
import { frozenCopy, isPlainObject } from './data.ts'
import { mergeLayers } from './merge.ts'
import type { SettingsSchema } from './types.ts'

/**
 * Re-resolving only what a write changed. A kind whose schema is a plain
 * `Schema.object` resolves each declared key from that key's data alone, and
 * keeps undeclared keys as they are: so when the layers differ from the last
 * resolution only at some top-level keys (by identity: stored sections share
 * what a write does not reach), the keys that did not change keep their last
 * resolved, frozen values and only the others go through the schema. This is
 * what makes a one-field write into a large section cost that field, not the
 * section. Anything else (another root type, a layer that is not an object,
 * keys in another order) answers `undefined`, and the caller resolves whole.
 */

/** A resolution to start the next one from: the layers' data and the frozen value made of them. */
export interface Resolution {
  readonly layers: readonly unknown[]
  readonly value: unknown
}

/** Past this share of changed keys, resolving whole costs no more. */
const MOST_CHANGED = 0.5

/** The keys a merge of `layers` holds, in the order the merge puts them (`undefined` values are skipped). */
function mergedKeys(layers: readonly unknown[]): string[] {
  const keys: string[] = []
  const seen = new Set<string>()
  for (const layer of layers) {
    if (layer === undefined) continue
    for (const key of Object.keys(layer as object)) {
      if (seen.has(key) || (layer as Record<string, unknown>)[key] === undefined) continue
      seen.add(key)
      keys.push(key)
    }
  }
  return keys
}

const own = (layer: unknown, key: string): unknown => (layer !== undefined && Object.hasOwn(layer as object, key) ? (layer as Record<string, unknown>)[key] : undefined)

/**
 * The frozen value of `schema` over `layers`, resolving only the top-level
 * keys whose data differs from `last`; `undefined` when that shortcut does not apply.
 * @throws schemastery's `ValidationError` for a changed key that does not resolve (its path starts with the key).
 */
export function resolveChanged(schema: SettingsSchema<unknown>, layers: readonly unknown[], last: Resolution): unknown {
  const root = schema as Schema & { dict?: Record<string, Schema> }
  if (root.type !== 'object' || !root.dict || root.meta?.loose || layers.length !== last.layers.length || !isPlainObject(last.value)) return undefined
  let holds = false
  let held = false
  for (let index = 0; index < layers.length; index++) {
    const now = layers[index]
    const before = last.layers[index]
    if ((now !== undefined && !isPlainObject(now)) || (before !== undefined && !isPlainObject(before))) return undefined
    holds ||= now !== undefined
    held ||= before !== undefined
  }
  // With no data at all the schema's default stands for the object: resolved whole.
  if (!holds || !held) return undefined
  const keys = mergedKeys(layers)
  const lastKeys = mergedKeys(last.layers)
  if (keys.length !== lastKeys.length || keys.some((key, index) => lastKeys[index] !== key)) return undefined
  const changed = new Set<string>()
  for (const key of keys) {
    for (let index = 0; index < layers.length; index++) {
      if (own(layers[index], key) !== own(last.layers[index], key)) {
        changed.add(key)
        break
      }
    }
  }
  if (changed.size > keys.length * MOST_CHANGED) return undefined
  const present = new Set(keys)
  const previous = last.value as Record<string, unknown>
  // What schemastery's object resolver does: declared keys in the schema's order, each resolved from its own
  // data (kept when it resolves to a value or the data holds the key), then undeclared keys as they are.
  const result: Record<string, unknown> = {}
  for (const key in root.dict) {
    if (!changed.has(key)) {
      if (Object.hasOwn(previous, key)) result[key] = previous[key]
      continue
    }
    const data = mergeLayers(layers.map((layer) => own(layer, key)))
    const [value] = Schema.resolve(data, root.dict[key]!, { path: [key] })
    if ((value !== null && value !== undefined) || present.has(key) || key in Object.prototype) result[key] = frozenCopy(value)
  }
  for (const key of keys) {
    if (key in result) continue
    result[key] = changed.has(key) ? frozenCopy(mergeLayers(layers.map((layer) => own(layer, key)))) : previous[key]
  }
  return Object.freeze(result)
}
