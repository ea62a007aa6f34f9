import { dataEqual, isPlainObject, type DocumentPath } from './data.ts'

export type { DocumentPath }

/** One change between two plain documents, at the deepest path where they differ. */
export type DocumentEdit =
  | { op: 'set'; path: DocumentPath; value: unknown }
  | { op: 'delete'; path: DocumentPath }

/**
 * The edits that turn `prev` into `next`, as deep as possible, so an editor can
 * touch only the bytes of what changed. Objects are compared key by key (removed
 * keys first, then changed and added keys in `next`'s order) while they
 * share a key; arrays element
 * by element, with appended and removed tail items; anything else that
 * differs is set whole. An object
 * that becomes empty is set to `{}`, so it stays an object rather than losing all its keys.
 */
export function diffDocuments(prev: unknown, next: unknown, path: DocumentPath = [], edits: DocumentEdit[] = []): DocumentEdit[] {
  if (prev === next) return edits
  // Objects and arrays are walked key by key (an equal pair yields no edit), not compared whole first:
  // a second walk over a document most of whose sections are shared would cost as much again.
  // Below the root, objects sharing no key are different values: set whole rather than emptied and refilled.
  const related = isPlainObject(prev) && isPlainObject(next) && Object.keys(next).length > 0
  if (related && (!path.length || !Object.keys(prev).length || Object.keys(next).some((key) => Object.hasOwn(prev, key)))) {
    for (const key of Object.keys(prev)) if (!Object.hasOwn(next, key)) edits.push({ op: 'delete', path: [...path, key] })
    for (const key of Object.keys(next)) {
      if (!Object.hasOwn(prev, key)) edits.push({ op: 'set', path: [...path, key], value: next[key] })
      // A part the next document shares with the last is unchanged: no path is made for it.
      else if (prev[key] !== next[key]) diffDocuments(prev[key], next[key], [...path, key], edits)
    }
    return edits
  }
  if (Array.isArray(prev) && Array.isArray(next) && next.length > 0) {
    // Element by element; items past the old end are appended, items past the new end removed.
    const shared = Math.min(prev.length, next.length)
    for (let index = 0; index < shared; index++) diffDocuments(prev[index], next[index], [...path, index], edits)
    for (let index = shared; index < next.length; index++) edits.push({ op: 'set', path: [...path, index], value: next[index] })
    for (let index = prev.length - 1; index >= shared; index--) edits.push({ op: 'delete', path: [...path, index] })
    return edits
  }
  if (dataEqual(prev, next)) return edits
  edits.push({ op: 'set', path, value: next })
  return edits
}
