import { valueAt } from './data.ts'
import type { Scalar } from 'yaml'
import type { DocumentEdit } from './diff.ts'
import { renderScalar } from './render.ts'

/** How a scalar is written on its key's line: the `type` names of yaml's scalars. */
type InlineStyle = 'PLAIN' | 'QUOTE_DOUBLE' | 'QUOTE_SINGLE'

/** Where a scalar value stands in the text, and how it is written. */
interface ScalarPlace {
  start: number
  end: number
  style: InlineStyle
}

function isScalarValue(value: unknown): value is string | number | boolean | null {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

/** The end of the line holding `at` (the index of its `\n`, or the text's length). */
function endOfLine(text: string, at: number): number {
  const end = text.indexOf('\n', at)
  return end < 0 ? text.length : end
}

/** How many spaces open the line at `start`; -1 for a blank or comment-only line (it belongs to no block). */
function indentOf(text: string, start: number, end: number): number {
  let at = start
  while (at < end && text.charCodeAt(at) === 0x20) at++
  if (at === end) return -1
  const first = text.charCodeAt(at)
  return first === 0x23 || first === 0x0d ? -1 : at - start
}

/**
 * Find the line `key: …` of the block map whose lines run from `from` to
 * `to`, at that block's own indentation (its first content line's).
 * @returns the index just after the key's colon, and the key's indentation.
 */
function keyLine(text: string, from: number, to: number, key: string): { afterColon: number; indent: number } | undefined {
  let blockIndent = -1
  for (let start = from; start < to; ) {
    const end = endOfLine(text, start)
    const indent = indentOf(text, start, end)
    if (indent >= 0) {
      if (blockIndent < 0) blockIndent = indent
      if (indent === blockIndent && text.startsWith(key, start + indent) && text.charCodeAt(start + indent + key.length) === 0x3a) {
        const afterColon = start + indent + key.length + 1
        const next = text.charCodeAt(afterColon)
        if (afterColon === end || next === 0x20 || next === 0x0d) return { afterColon, indent }
      }
    }
    start = end + 1
  }
  return undefined
}

/** Where the block under a key at `indent` ends: the first content line not indented deeper, from `from` on. */
function blockEnd(text: string, from: number, indent: number): number {
  for (let start = from; start < text.length; ) {
    const end = endOfLine(text, start)
    const lineIndent = indentOf(text, start, end)
    if (lineIndent >= 0 && lineIndent <= indent) return start
    start = end + 1
  }
  return text.length
}

/** The scalar written after a key's colon on its own line, or `undefined` for anything else (a block below, a flow collection, a tag). */
function scalarAfterColon(text: string, afterColon: number): ScalarPlace | undefined {
  const end = endOfLine(text, afterColon)
  let start = afterColon
  while (start < end && text.charCodeAt(start) === 0x20) start++
  const first = text[start]
  if (start === end || first === '#' || first === '\r' || (first !== undefined && '[{|>&*!%@`'.includes(first))) return undefined
  let stop: number
  let style: InlineStyle
  if (first === '"' || first === "'") {
    style = first === '"' ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE'
    stop = -1
    for (let at = start + 1; at < end; at++) {
      const char = text[at]
      if (first === '"' && char === '\\') {
        at++
        continue
      }
      if (char !== first) continue
      if (first === "'" && text[at + 1] === "'") {
        at++
        continue
      }
      stop = at + 1
      break
    }
    if (stop < 0) return undefined // runs on to another line
    const rest = text.slice(stop, end).replace(/\r$/, '')
    if (rest.trim() && !/^ +#/.test(rest)) return undefined
  } else {
    style = 'PLAIN'
    const comment = text.slice(start, end).search(/ #/)
    stop = comment < 0 ? end : start + comment
    while (stop > start && (text.charCodeAt(stop - 1) === 0x20 || text.charCodeAt(stop - 1) === 0x0d)) stop--
  }
  return { start, end: stop, style }
}

/** Where the scalar at `path` (map keys from the top) is written in `text`, found by indentation. */
function placeOf(text: string, path: readonly string[]): ScalarPlace | undefined {
  let from = 0
  let to = text.length
  for (let depth = 0; depth < path.length; depth++) {
    const line = keyLine(text, from, to, path[depth]!)
    if (!line) return undefined
    if (depth === path.length - 1) return scalarAfterColon(text, line.afterColon)
    from = endOfLine(text, line.afterColon) + 1
    to = Math.min(to, blockEnd(text, from, line.indent))
  }
  return undefined
}

/** What {@link editScalarsInPlace} made: the text, and whether its last content line is as it was. */
export interface ScalarsEdited {
  text: string
  /** True when every edit lies above the text's last line holding anything but blanks and comments. */
  endKept: boolean
}

/** Where the last line holding something but blanks and a comment starts. */
function lastContentLine(text: string): number {
  let end = text.length
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1 - (text[end - 1] === '\n' ? 1 : 0)) + 1
    const line = text.slice(start, end)
    if (line.trim() && !line.trimStart().startsWith('#')) return start
    end = start
  }
  return 0
}

/**
 * `text` with each scalar an edit sets replaced in place, when every edit sets
 * one scalar to another scalar and each is written on its key's line in a
 * block map of plain keys. The new scalar is written as yaml's edit writes it
 * in place (keeping double or single quotes), so the bytes match the full
 * edit's. Nothing here proves the result: the caller reads it back, and a text
 * that does not read as intended goes to the full edit.
 * @param before - what `text` reads as, to know each edited value was a scalar.
 * @returns the edited text, or `undefined` when some edit is not of that kind.
 */
export function editScalarsInPlace(text: string, edits: readonly DocumentEdit[], before: unknown): ScalarsEdited | undefined {
  const places: { place: ScalarPlace; value: unknown }[] = []
  for (const edit of edits) {
    if (edit.op !== 'set' || !isScalarValue(edit.value) || !edit.path.every((key) => typeof key === 'string')) return undefined
    if (!isScalarValue(valueAt(before, edit.path))) return undefined
    const place = placeOf(text, edit.path as string[])
    if (!place) return undefined
    places.push({ place, value: edit.value })
  }
  places.sort((a, b) => b.place.start - a.place.start)
  let result = text
  for (const { place, value } of places) {
    const written = renderScalar(value, { type: place.style } as Scalar)
    if (written.includes('\n')) return undefined
    result = result.slice(0, place.start) + written + result.slice(place.end)
  }
  const lastEnd = places.length ? places[0]!.place.end : 0
  return { text: result, endKept: lastEnd <= lastContentLine(text) }
}
