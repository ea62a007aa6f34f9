/**
 * The few data helpers the codec needs, kept here so the codec stands alone
 * (it imports nothing from `dsh-settings`). They behave as `dsh-settings/data`
 * and `dsh-settings`' `dataEqual` do on what a parse yields: plain objects,
 * arrays and scalars, with any key (`__proto__`, `valueOf`) a plain key.
 * `fast-deep-equal` is not used: it calls an object's own `valueOf`, so a
 * document key named `valueOf` would make it throw.
 */

/** A path into a document: object keys as strings, array indexes as numbers. */
export type DocumentPath = (string | number)[]

/** Whether `value` is a plain object (its prototype `Object.prototype` or `null`), not an array or a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Set an own data property, also for the key `__proto__` (which assignment would turn into a prototype change). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** The value at `path` (array indexes as numbers or digit strings), or `undefined` when nothing is there. */
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

/**
 * Deep equality of parsed data: scalars by `===` (`NaN` equals `NaN`), arrays
 * item by item, objects by their own enumerable keys whatever their prototype.
 * Nothing found in the data is ever called.
 */
export function dataEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b
  const arrayA = Array.isArray(a)
  if (arrayA !== Array.isArray(b)) return false
  if (arrayA) {
    const left = a as unknown[]
    const right = b as unknown[]
    if (left.length !== right.length) return false
    for (let index = 0; index < left.length; index++) if (!dataEqual(left[index], right[index])) return false
    return true
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const keys = Object.keys(left)
  if (keys.length !== Object.keys(right).length) return false
  for (const key of keys) {
    if (!Object.hasOwn(right, key) || !dataEqual(left[key], right[key])) return false
  }
  return true
}

/** A place as `$`-rooted path text (`$.a.b`, `$[0]`, `$["odd key"]`), each key cut to 64 characters: never a value. */
export function pathText(path: readonly (string | number)[]): string {
  let text = '$'
  for (const raw of path) {
    const segment = typeof raw === 'string' && raw.length > 64 ? `${raw.slice(0, 64)}…` : raw
    if (typeof segment === 'number') text += `[${segment}]`
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) text += `.${segment}`
    else text += `[${JSON.stringify(segment)}]`
  }
  return text
}
