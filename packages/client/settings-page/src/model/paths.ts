/** Small helpers for reading JSON data by path, shared by the field builder and the op planner. */

import { isPlainObject, valueAt as getAt } from 'dsh-settings/data'

// The seam's own data helpers: the page reads views by the same rules the seam wrote them with.
export { getAt, isPlainObject }

/** Whether `root` holds an entry at `path` (a stored `null` counts: it masks the layers below). */
export function hasAt(root: unknown, path: readonly string[]): boolean {
  if (path.length === 0) return root !== undefined
  const parent = getAt(root, path.slice(0, -1))
  const key = path[path.length - 1]!
  if (Array.isArray(parent)) return /^\d+$/.test(key) && Number(key) < parent.length
  return isPlainObject(parent) && Object.hasOwn(parent, key)
}

/** Whether `prefix` is `path` or one of its ancestors. */
export function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((key, index) => path[index] === key)
}

/** A deep copy of JSON data, so planned edits never alias the view the page holds. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T)
}

