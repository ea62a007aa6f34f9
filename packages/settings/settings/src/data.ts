/**
 * The data helpers every part of the seam shares: what counts as a plain
 * object, how a key is set safely, the one deep copy, and reading at a path.
 */

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

/**
 * The value at a path, descending into arrays by index (a number, or its
 * decimal text) and into plain objects by own key; `undefined` when anything
 * on the way is absent.
 */
export function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root
  for (const segment of path) {
    if (Array.isArray(node)) {
      const index = typeof segment === 'number' ? segment : /^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : -1
      if (!Number.isInteger(index) || index < 0 || index >= node.length) return undefined
      node = node[index]
    } else if (isPlainObject(node) && Object.hasOwn(node, String(segment))) {
      node = node[String(segment)]
    } else {
      return undefined
    }
  }
  return node
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
