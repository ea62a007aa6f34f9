/**
 * Places inside a section's JSON: finding the nodes a test picks (a
 * reference, an encrypted box) and replacing values at paths without changing
 * the input (sections are shared with the seam and never changed).
 */
import { isPlainObject, setOwn } from 'dsh-settings/data'

/** A node `find` picked, with its path (array indexes as strings). */
export interface FoundPlace {
  path: string[]
  node: unknown
}

/** Every node under `value` that `pick` takes, outermost first; a picked node is not searched further. */
export function findPlaces(value: unknown, pick: (node: unknown) => boolean, path: string[] = [], into: FoundPlace[] = []): FoundPlace[] {
  if (pick(value)) {
    into.push({ path, node: value })
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) findPlaces(value[index], pick, [...path, String(index)], into)
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) findPlaces(value[key], pick, [...path, key], into)
  }
  return into
}

/**
 * A copy of `root` with `value` at `path`; only the containers on the way are
 * copied, and none when nothing changes. A path that leads nowhere (a missing
 * key, an index past the end) answers `root` itself; an empty path answers `value`.
 */
export function withValueAt(root: unknown, path: readonly string[], value: unknown): unknown {
  if (!path.length) return value
  const [head, ...rest] = path as [string, ...string[]]
  if (Array.isArray(root)) {
    const index = /^(0|[1-9][0-9]*)$/.test(head) ? Number(head) : -1
    if (index < 0 || index >= root.length) return root
    const child = withValueAt(root[index], rest, value)
    if (child === root[index]) return root
    const copy = [...root]
    copy[index] = child
    return copy
  }
  if (!isPlainObject(root) || !Object.hasOwn(root, head)) return root
  const child = withValueAt(root[head], rest, value)
  if (child === root[head]) return root
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(root)) setOwn(copy, key, key === head ? child : root[key])
  return copy
}

/** Whether `prefix` is `path` or an ancestor of it. */
export function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => path[index] === segment)
}
