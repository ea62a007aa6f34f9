/** Small helpers for reading JSON data by path, shared by the field builder and the op planner. */

/** A plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The value at `path` inside `root`, or `undefined` when some step is missing. */
export function getAt(root: unknown, path: readonly string[]): unknown {
  let current = root
  for (const key of path) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)]
    else if (isPlainObject(current) && Object.hasOwn(current, key)) current = current[key]
    else return undefined
  }
  return current
}

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

