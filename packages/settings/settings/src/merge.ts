import { copyData, isPlainObject, setOwn } from './data.ts'


/**
 * Layer values over each other, lowest first. Plain objects merge key by key,
 * recursively; any other value (array, scalar, `null`) at a key replaces what
 * lies below it. `undefined` layers are skipped. The result shares nothing with
 * its inputs, so it may be handed to code that mutates or freezes it.
 */
export function mergeLayers(layers: readonly unknown[]): unknown {
  let result: unknown = undefined
  for (const layer of layers) {
    if (layer === undefined) continue
    result = mergeOwned(result, layer)
  }
  return result
}

/**
 * `upper` over `owned`, a value this merge made (it is changed in place): each
 * layer is copied once, however many layers lie above it.
 */
function mergeOwned(owned: unknown, upper: unknown): unknown {
  if (!isPlainObject(upper)) return copyData(upper)
  const result: Record<string, unknown> = isPlainObject(owned) ? owned : {}
  for (const key of Object.keys(upper)) {
    const value = upper[key]
    if (value === undefined) continue
    setOwn(result, key, Object.hasOwn(result, key) ? mergeOwned(result[key], value) : copyData(value))
  }
  return result
}

/**
 * `patch` merged over `section` the way {@link mergeLayers} merges two layers,
 * sharing every part of `section` the patch does not reach: only the objects
 * on the way to a patched key are new. For a stored section, which nobody
 * changes once stored, so one write of one field copies only its path.
 */
export function mergeShared(section: Record<string, unknown>, patch: unknown): unknown {
  if (!isPlainObject(patch)) return copyData(patch)
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(section)) setOwn(result, key, section[key])
  for (const key of Object.keys(patch)) {
    const value = patch[key]
    if (value === undefined) continue
    const below = Object.hasOwn(result, key) ? result[key] : undefined
    setOwn(result, key, isPlainObject(below) ? mergeShared(below, value) : copyData(value))
  }
  return result
}
