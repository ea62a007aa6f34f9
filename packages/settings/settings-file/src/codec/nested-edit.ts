import { dataEqual, isPlainObject, setOwn } from './data.ts'
import type { Document } from 'yaml'
import { blockChildren, keyAlone, type BlockChildren } from './block-pieces.ts'
import type { DocumentEdit } from './diff.ts'
import { parseYaml, YAML_OPTIONS } from './parse.ts'

/**
 * Editing inside a large top-level entry without reading all of it: the
 * entry's value is cut into its children by indentation (`block-pieces.ts`),
 * down to the smallest child that holds each change, and only that child is
 * parsed, edited and checked. The checks are what make a cut trustworthy:
 * - the cut finds exactly the keys (or as many items) as the data holds there,
 *   at every level it descends;
 * - the child read alone is exactly the value the data holds for it;
 * - the edited child reads alone as its next value (the edit's own check);
 * - read under its parents' key lines, with the next child's key after it
 *   (no value), the edited child and that key read as they must: the edit
 *   neither runs into the next line nor leaves its indentation.
 * Anything else answers `undefined` and the entry is edited whole.
 */

/** Entries smaller than this are edited whole: cutting them saves less than its checks cost. */
export const NESTED_MIN_BYTES = 16 * 1024

/** An in-place edit of YAML text with its check (serialize.ts `editChecked`): `undefined` when it does not pass. */
export type CheckedEdit = (text: string, doc: Document.Parsed, edits: DocumentEdit[], next: unknown) => { text: string } | undefined

/** One stretch of the text and what replaces it. */
interface Replacement {
  start: number
  end: number
  text: string
}

/**
 * The next text of the top-level entry `key` spanning `[start, end)` of
 * `text`, with `edits` (paths from the document's root, each below `key`)
 * applied inside it, or `undefined` when the entry cannot be cut safely.
 */
export function editNested(text: string, start: number, end: number, key: string, prev: unknown, next: unknown, edits: readonly DocumentEdit[], check: CheckedEdit): string | undefined {
  if (edits.some((edit) => edit.path.length < 2 || edit.path[0] !== key)) return undefined
  const keyLine = keyLineOf(text, start, end, key)
  if (keyLine === undefined) return undefined
  const inner = edits.map((edit) => ({ ...edit, path: edit.path.slice(1) }))
  const replacements = editInside(text, keyLine, end, prev, next, inner, [], check)
  if (!replacements) return undefined
  let result = ''
  let cursor = start
  for (const replacement of replacements.sort((a, b) => a.start - b.start)) {
    result += text.slice(cursor, replacement.start) + replacement.text
    cursor = replacement.end
  }
  return result + text.slice(cursor, end)
}

/** Where the line `key:` (alone, at column 0) starts inside `[start, end)`, after any leading comments and blank lines. */
function keyLineOf(text: string, start: number, end: number, key: string): number | undefined {
  for (let at = start; at < end; ) {
    const newline = text.indexOf('\n', at)
    const next = newline < 0 || newline >= end ? end : newline + 1
    const line = text.slice(at, next).replace(/\r?\n$/, '')
    if (line.trim() && !line.startsWith('#')) return keyAlone(line)?.key === key && !line.startsWith(' ') ? at : undefined
    at = next
  }
  return undefined
}

/** What `parseYaml` reads `text` as, or `undefined` when it reports a problem or does not resolve. */
function readAlone(text: string): { doc: Document.Parsed; data: unknown } | undefined {
  const { doc, problems } = parseYaml(text)
  if (problems.length) return undefined
  try {
    return { doc, data: doc.toJS(YAML_OPTIONS) ?? null }
  } catch {
    return undefined
  }
}

/** Whether the cut found exactly the children the data holds, and the edits keep that shape. */
function matchesData(children: BlockChildren, prev: unknown, next: unknown): boolean {
  if (children.kind === 'seq') {
    return Array.isArray(prev) && Array.isArray(next) && prev.length === children.pieces.length && next.length === prev.length
  }
  if (!isPlainObject(prev) || !isPlainObject(next)) return false
  const keys = Object.keys(prev)
  const nextKeys = Object.keys(next)
  if (keys.length !== children.pieces.length || nextKeys.length !== keys.length) return false
  return children.pieces.every((piece, index) => piece.key === keys[index] && nextKeys[index] === keys[index])
}

/**
 * The replacements that apply `edits` (paths from this value) inside the block
 * value of the entry whose key line starts at `lineStart`; `headers` are the
 * key lines of the entries above it, outermost first.
 */
function editInside(text: string, lineStart: number, end: number, prev: unknown, next: unknown, edits: readonly DocumentEdit[], headers: readonly string[], check: CheckedEdit): Replacement[] | undefined {
  const children = blockChildren(text, lineStart, end)
  if (!children || !matchesData(children, prev, next)) return undefined
  const keyLineEnd = text.indexOf('\n', lineStart) + 1
  if (keyLineEnd <= 0) return undefined
  const above = [...headers, text.slice(lineStart, keyLineEnd)]
  const byChild = new Map<string | number, DocumentEdit[]>()
  for (const edit of edits) {
    if (!edit.path.length) return undefined
    const child = edit.path[0]!
    byChild.get(child)?.push(edit) ?? byChild.set(child, [edit])
  }
  const prevOf = (key: string | number) => (prev as Record<string | number, unknown>)[key]
  const nextOf = (key: string | number) => (next as Record<string | number, unknown>)[key]
  const replacements: Replacement[] = []
  for (const [child, childEdits] of byChild) {
    const index = children.pieces.findIndex((piece) => piece.key === child)
    if (index < 0) return undefined
    const piece = children.pieces[index]!
    // A large child whose every change lies below it is cut again.
    if (piece.end - piece.start >= NESTED_MIN_BYTES && children.kind === 'map' && childEdits.every((edit) => edit.path.length >= 2)) {
      const deeper = editInside(
        text,
        piece.start,
        piece.end,
        prevOf(child),
        nextOf(child),
        childEdits.map((edit) => ({ ...edit, path: edit.path.slice(1) })),
        above,
        check,
      )
      if (deeper) {
        replacements.push(...deeper)
        continue
      }
    }
    const edited = editPiece(text, children, index, prevOf(child), nextOf(child), childEdits, above, check)
    if (edited === undefined) return undefined
    replacements.push({ start: piece.start, end: piece.end, text: edited })
  }
  return replacements
}

/** The edited text of one child, checked alone and in its place; `undefined` when a check fails. */
function editPiece(text: string, children: BlockChildren, index: number, prev: unknown, next: unknown, edits: readonly DocumentEdit[], above: readonly string[], check: CheckedEdit): string | undefined {
  const piece = children.pieces[index]!
  const seq = children.kind === 'seq'
  const wrap = (value: unknown) => (seq ? [value] : { [piece.key]: value })
  const pieceText = text.slice(piece.start, piece.end)
  const alone = readAlone(pieceText)
  if (!alone || !dataEqual(alone.data, wrap(prev))) return undefined
  // Read alone, a sequence item is item 0.
  const local = edits.map((edit) => ({ ...edit, path: seq ? [0, ...edit.path.slice(1)] : [...edit.path] }))
  const edited = check(pieceText, alone.doc, local, wrap(next))
  if (!edited) return undefined
  if (piece.end < text.length && !edited.text.endsWith('\n')) return undefined
  return readsInPlace(above, edited.text, children, index, next) ? edited.text : undefined
}

/**
 * Whether `pieceText`, standing for child `index` of `children`, reads as
 * `value` in its place: under the key lines `above`, followed by the next
 * child's key with no value (which must still read as that key).
 */
function readsInPlace(above: readonly string[], pieceText: string, children: BlockChildren, index: number, value: unknown): boolean {
  const piece = children.pieces[index]!
  const following = children.pieces[index + 1]
  const placed = readAlone(above.join('') + pieceText + (following ? `${following.head}\n` : ''))
  if (!placed) return false
  let expected: unknown =
    children.kind === 'seq' ? (following ? [value, null] : [value]) : following ? { [piece.key]: value, [following.key]: null } : { [piece.key]: value }
  for (let level = above.length - 1; level >= 0; level--) expected = { [keyAlone(above[level]!.replace(/\r?\n$/, ''))!.key]: expected }
  return dataEqual(placed.data, expected)
}

/**
 * Read `text`, a new version of `before`, where the only change (`[head,
 * beforeEnd)` of `before`, `[head, textEnd)` of `text`) lies inside the large
 * top-level entry `key` at `[start, end)` of `before`: the smallest child
 * holding the change is read alone in the new text, checked in its place, and
 * put into a copy of `prev` (the entry's data) along its path, the rest shared.
 * @returns the entry's next data, or `undefined` when that is not certain to
 *   read as a whole parse would.
 */
export function rereadNested(before: string, text: string, start: number, end: number, key: string, prev: unknown, head: number, beforeEnd: number): unknown {
  const keyLine = keyLineOf(before, start, end, key)
  if (keyLine === undefined || head <= keyLine + key.length + 1) return undefined
  return rereadInside(before, text, keyLine, end, prev, head, beforeEnd, [])
}

function rereadInside(before: string, text: string, lineStart: number, end: number, prev: unknown, head: number, beforeEnd: number, headers: readonly string[]): unknown {
  const children = blockChildren(before, lineStart, end)
  if (!children || !matchesData(children, prev, prev)) return undefined
  const keyLineEnd = before.indexOf('\n', lineStart) + 1
  if (keyLineEnd <= 0 || head < keyLineEnd) return undefined
  const above = [...headers, before.slice(lineStart, keyLineEnd)]
  const index = children.pieces.findIndex((piece) => piece.start <= head && beforeEnd <= piece.end && head < piece.end)
  if (index < 0) return undefined
  const piece = children.pieces[index]!
  const prevChild = (prev as Record<string | number, unknown>)[piece.key]
  let value: unknown
  // A large child whose key line the change leaves alone is cut again.
  if (piece.end - piece.start >= NESTED_MIN_BYTES && children.kind === 'map') {
    const line = before.indexOf('\n', piece.start) + 1
    if (line > 0 && head >= line) value = rereadInside(before, text, piece.start, piece.end, prevChild, head, beforeEnd, above)
  }
  const shift = text.length - before.length
  if (value === undefined) {
    const pieceText = text.slice(piece.start, piece.end + shift)
    if (piece.end < before.length && !pieceText.endsWith('\n')) return undefined
    const alone = readAlone(pieceText)
    if (!alone) return undefined
    const read = alone.data
    if (children.kind === 'seq') {
      if (!Array.isArray(read) || read.length !== 1) return undefined
      value = read[0]
    } else {
      if (!isPlainObject(read) || Object.keys(read).length !== 1 || !Object.hasOwn(read, piece.key as string)) return undefined
      value = read[piece.key as string]
    }
    if (!readsInPlace(above, pieceText, children, index, value)) return undefined
    // Unchanged after all (a touch, or an edit undone): the very object it was.
    if (dataEqual(value, prevChild)) value = prevChild
  }
  if (children.kind === 'seq') {
    const copy = [...(prev as unknown[])]
    copy[piece.key as number] = value
    return copy
  }
  const copy: Record<string, unknown> = {}
  for (const name of Object.keys(prev as object)) setOwn(copy, name, name === piece.key ? value : (prev as Record<string, unknown>)[name])
  return copy
}
