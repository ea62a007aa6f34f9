import { isCoreNonString } from './core-schema.ts'

/**
 * The children of a block collection, found by indentation alone: a large
 * section is cut into the pieces of text its entries (or items) span, so a
 * write can parse, edit and check the piece it changes instead of the whole
 * section. Nothing here is trusted on its own: a cut is used only when the
 * keys it finds are exactly the keys the data holds, in order, and when the
 * piece read alone is exactly the value it holds in the document (see
 * `nested-edit.ts`); anything unusual (tabs, quoted or complex keys, a value
 * on the key's own line) answers `undefined`, and the caller edits the
 * section whole.
 */

/** One child of a block collection: a map entry (`key`) or a sequence item (`index`), as a stretch of text. */
export interface BlockPiece {
  readonly key: string | number
  /** Offset of the start of the child's first line. */
  readonly start: number
  /** Offset of the start of the next child's first line, or the end of the parent's stretch. */
  readonly end: number
  /** The child's first line as far as its key (`  name:` or `  -`), for a check that reads it with no value. */
  readonly head: string
}

/** The children of one block collection. */
export interface BlockChildren {
  readonly kind: 'map' | 'seq'
  /** The children's indentation, in spaces. */
  readonly indent: number
  readonly pieces: readonly BlockPiece[]
}

/** A plain key that reads as itself (no quoting, no escapes, nothing YAML would resolve to a non-string): letters, digits, `_`, `-`, `.`, `/`, `$`. */
const PLAIN_KEY = /^[A-Za-z_$][\w$./-]*$/

/** `name:` alone on its line (its value below), optionally followed by a comment. */
const KEY_ALONE = /^( *)([^\s:#'"][^:#]*?)[ ]*:[ ]*(?:#.*)?\r?$/

/** Keys never cut at: the seam refuses them in data anyway. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])


/**
 * The key of an entry whose line is `name:` alone (the value a block below
 * it), with the line's indentation; `undefined` for any other line.
 */
export function keyAlone(line: string): { indent: number; key: string } | undefined {
  const match = KEY_ALONE.exec(line)
  if (!match) return undefined
  const key = match[2]!
  if (!PLAIN_KEY.test(key) || isCoreNonString(key) || PROTOTYPE_KEYS.has(key)) return undefined
  return { indent: match[1]!.length, key }
}

/** The offset just past the line that starts at `at` (its `\n` included), or `end`. */
function lineEnd(text: string, at: number, end: number): number {
  const newline = text.indexOf('\n', at)
  return newline < 0 || newline >= end ? end : newline + 1
}

/**
 * The children of the block collection that is the value of the entry whose
 * key line starts at `lineStart` (`name:` alone on it), up to `end`: each
 * child starts a line at the collection's indentation, deeper than the key's.
 * Blank lines and comments belong to the child before them.
 * @returns `undefined` when the text is not that simple shape.
 */
export function blockChildren(text: string, lineStart: number, end: number): BlockChildren | undefined {
  const keyLineEnd = lineEnd(text, lineStart, end)
  const parent = keyAlone(text.slice(lineStart, keyLineEnd).replace(/\n$/, ''))
  if (!parent) return undefined
  let indent = -1
  let kind: 'map' | 'seq' | undefined
  const starts: { key: string | number; at: number; head: string }[] = []
  for (let at = keyLineEnd; at < end; ) {
    const next = lineEnd(text, at, end)
    let column = at
    while (column < next && text.charCodeAt(column) === 32) column++
    const first = text[column]
    // Blank lines and comments carry no structure; a tab in the indentation is not worth the risk.
    if (column >= next || first === '\n' || first === '\r' || first === '#') {
      at = next
      continue
    }
    if (first === '\t') return undefined
    const depth = column - at
    if (indent < 0) {
      if (depth <= parent.indent) return undefined
      indent = depth
    }
    if (depth < indent) return undefined
    if (depth === indent) {
      const line = text.slice(at, next).replace(/\r?\n$/, '')
      if (first === '-' && (line.length === depth + 1 || line[depth + 1] === ' ')) {
        if (kind === 'map') return undefined
        kind = 'seq'
        starts.push({ key: starts.length, at, head: `${' '.repeat(depth)}-` })
      } else {
        const key = mapKeyOf(line, depth)
        if (key === undefined || kind === 'seq') return undefined
        kind = 'map'
        starts.push({ key, at, head: `${' '.repeat(depth)}${key}:` })
      }
    }
    at = next
  }
  if (!kind || !starts.length) return undefined
  const pieces = starts.map((start, index) => ({ key: start.key, start: start.at, end: starts[index + 1]?.at ?? end, head: start.head }))
  return { kind, indent, pieces }
}

/** The plain key a map entry's line starts with (`name:` then a space, a comment or the end), or `undefined`. */
function mapKeyOf(line: string, depth: number): string | undefined {
  const colon = line.indexOf(':', depth)
  if (colon < 0) return undefined
  const after = line[colon + 1]
  if (after !== undefined && after !== ' ') return undefined
  const key = line.slice(depth, colon)
  return PLAIN_KEY.test(key) && !isCoreNonString(key) && !PROTOTYPE_KEYS.has(key) ? key : undefined
}
