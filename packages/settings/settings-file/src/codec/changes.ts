import { isPlainObject, setOwn, valueAt } from './data.ts'
import { diffDocuments, type DocumentEdit } from './diff.ts'
import type { DocumentFormat } from './format.ts'
import type { ParsedDocument } from './parse.ts'
import { renderDocument, renderYaml, type Rendered } from './serialize.ts'
import { withKeptTags } from './tagged.ts'

/** One change to a document: the value at `path` becomes `value`; `undefined` removes it. */
export interface DocumentChange {
  /** Keys from the document's root (a section: `['web-search']`, a scoped one: `['scopes', 'work', 'web-search']`). */
  path: readonly string[]
  value: unknown
}

/**
 * `data` with the changes put in, `data` itself untouched: each map on a
 * change's path is copied once (a missing one, or one that is not a map,
 * becomes a new map), everything else is shared, so what a change does not
 * touch is the very object it was. A key a change adds goes last in its map.
 */
export function dataWith(data: Record<string, unknown>, changes: readonly DocumentChange[]): Record<string, unknown> {
  const root = { ...data }
  const copied = new Set<object>([root])
  for (const { path, value } of changes) {
    if (!path.length) continue
    let map = root
    for (const key of path.slice(0, -1)) {
      const child = Object.hasOwn(map, key) ? map[key] : undefined
      if (isPlainObject(child) && copied.has(child)) {
        map = child
        continue
      }
      const copy = isPlainObject(child) ? { ...child } : {}
      copied.add(copy)
      setOwn(map, key, copy)
      map = copy
    }
    const last = path[path.length - 1]!
    if (value === undefined) delete map[last]
    else setOwn(map, last, value)
  }
  return root
}

/**
 * The edits that turn `prev` into `next` along the changes' paths only: each
 * path is walked from the root to where the two part (a key one has and the
 * other lacks is set or deleted whole there), and the changed value is
 * compared with the one it replaces. Nothing off the paths is looked at.
 */
export function editsOfChanges(prev: Record<string, unknown>, next: Record<string, unknown>, changes: readonly DocumentChange[]): DocumentEdit[] {
  // A map left empty is set to `{}` whole, as the whole-document diff does (it stays a map, and the bytes agree).
  if (!Object.keys(next).length) return diffDocuments(prev, next)
  const edits: DocumentEdit[] = []
  const done = new Set<string>()
  for (const { path } of changes) {
    for (let depth = 1; depth <= path.length; depth++) {
      const at = path.slice(0, depth)
      const before = valueAt(prev, at)
      const after = valueAt(next, at)
      if (before === after) break
      const place = JSON.stringify(at)
      // Two changes under one new map set it once.
      if (done.has(place)) break
      if (before === undefined || after === undefined || depth === path.length || !isPlainObject(before) || !isPlainObject(after) || !Object.keys(after).length) {
        done.add(place)
        if (before === undefined) edits.push({ op: 'set', path: at, value: after })
        else if (after === undefined) edits.push({ op: 'delete', path: at })
        else diffDocuments(before, after, at, edits)
        break
      }
    }
  }
  return edits
}

/** What {@link renderChanges} gives: the next text, and the data it reads as. */
export interface RenderedChanges extends Rendered {
  /** The document's next data ({@link dataWith} of the changes). */
  data: Record<string, unknown>
}

/**
 * The next text of a document after `changes`, from its current text and
 * parse: the work follows what changed, not the document. A YAML document
 * edits only the entries the changes touch (a new section is added to the
 * last entry's piece, without parsing the rest), byte-stable as
 * `renderDocument` is and checked the same way; a JSON document is written
 * whole and hands back its parse (`parsed`) for the next write.
 * @param next - the next data, when the caller has built it already: it must be what
 *   {@link dataWith} makes of `parsed.data` and `changes` (shared where they did not change).
 * @throws {DocumentCannotHoldError} for data YAML cannot hold; nothing is rendered.
 */
export function renderChanges(format: DocumentFormat, text: string, parsed: ParsedDocument, changes: readonly DocumentChange[], file = '', next?: Record<string, unknown>): RenderedChanges {
  const data = next ?? dataWith(parsed.data, changes)
  if (format === 'json') return { ...renderDocument('json', text, parsed, data, file), data }
  const rendered = withKeptTags(parsed.tags, () => renderYaml(text, parsed, data, file, editsOfChanges(parsed.data, data, changes)))
  if (rendered.parsed && parsed.tags) rendered.parsed.tags = parsed.tags
  return { ...rendered, data }
}
