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
    result = mergeTwo(result, layer)
  }
  return result
}

function mergeTwo(lower: unknown, upper: unknown): unknown {
  if (!isPlainObject(upper)) return copyData(upper)
  const result: Record<string, unknown> = isPlainObject(lower) ? (copyData(lower) as Record<string, unknown>) : {}
  for (const key of Object.keys(upper)) {
    const value = upper[key]
    if (value === undefined) continue
    setOwn(result, key, Object.hasOwn(result, key) ? mergeTwo(result[key], value) : copyData(value))
  }
  return result
}
