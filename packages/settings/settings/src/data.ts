/**
 * The data helpers every part of the seam shares: what counts as a plain
 * object, how a key is set safely, the one deep copy, and reading at a path.
 */
import { isPlainObject, setOwn } from 'dsh-json-data'

export { isPlainObject, setOwn, valueAt } from 'dsh-json-data'

/**
 * A deep copy of plain objects and arrays, optionally deep-frozen. Any other
 * value (a scalar, a class instance) is returned as it is. The input is never
 * frozen or aliased, and a `__proto__` key stays an own data property, so the
 * copy is safe for data read from storage and for caller objects alike.
 */
export function copyData<T>(value: T, options: { freeze?: boolean } = {}): T {
  return copyNode(value, options.freeze === true) as T
}

// A module-level walker rather than a closure per call: copies run on every write and every read of a value.
function copyNode(input: unknown, freeze: boolean): unknown {
  if (Array.isArray(input)) {
    const items: unknown[] = new Array(input.length)
    for (let index = 0; index < input.length; index++) items[index] = copyNode(input[index], freeze)
    return freeze ? Object.freeze(items) : items
  }
  if (!isPlainObject(input)) return input
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(input)) setOwn(result, key, copyNode(input[key], freeze))
  return freeze ? Object.freeze(result) : result
}

/** {@link copyData} with every plain object and array of the copy frozen. */
export function frozenCopy<T>(value: T): T {
  return copyData(value, { freeze: true })
}


/** A tree of paths to take out: `true` where a path ends. */
type PathTree = Map<string, PathTree | true>

function pathTree(paths: readonly (readonly string[])[]): PathTree {
  const root: PathTree = new Map()
  for (const path of paths) {
    if (!path.length) continue
    let node = root
    for (const [index, segment] of path.entries()) {
      const known = node.get(segment)
      if (known === true) break
      if (index === path.length - 1) node.set(segment, true)
      else if (known) node = known
      else node.set(segment, (node = new Map()))
    }
  }
  return root
}

/**
 * A copy of `value` without what sits at each of `paths` (an object's key is
 * deleted, an array's item is removed, later items moving down). Only the
 * containers on the way to a removed place are copied; the rest is shared
 * with `value`, which is never changed, so a frozen value may be passed.
 * A path that leads nowhere is skipped; an empty path removes nothing.
 */
export function withoutPaths<T>(value: T, paths: readonly (readonly string[])[]): T {
  return paths.length ? (takeOut(value, pathTree(paths)) as T) : value
}

function takeOut(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) {
    const items = [...value]
    const removed: number[] = []
    for (const [segment, below] of tree) {
      const index = /^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : -1
      if (index < 0 || index >= items.length) continue
      if (below === true) removed.push(index)
      else items[index] = takeOut(items[index], below)
    }
    for (const index of removed.sort((a, b) => b - a)) items.splice(index, 1)
    return items
  }
  if (!isPlainObject(value)) return value
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const below = tree.get(key)
    if (below === true) continue
    setOwn(result, key, below ? takeOut(value[key], below) : value[key])
  }
  return result
}
