/**
 * What counts as a plain object, how a key is set safely, and reading at a path, for data parsed from
 * JSON or YAML (plain objects, arrays, scalars), where any key (`__proto__`, `valueOf`) is a plain key.
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
