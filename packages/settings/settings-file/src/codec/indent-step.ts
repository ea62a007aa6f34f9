import type { Segment } from './segments.ts'

/** A key line whose value is below it: nothing after the colon but blanks or a comment. */
const OPENS_BLOCK = /:[ \t]*(?:#.*)?\r?$/
/** A line of a nested block: a key (`  name:`) or a list item (`  - x`), indented. */
const NESTED_LINE = /^([ ]+)(?:-(?:[ \t]|\r?$)|[^\s#\-{[][^#]*?:(?:[ \t]|\r?$)|-[^\s][^#]*?:(?:[ \t]|\r?$))/

/**
 * The indentation step of a document cut into top-level entries, read from its
 * text as the YAML editor reads it from the node tree: the indentation of the
 * first entry whose value is a block map or list indented below its key; 2 when
 * no entry shows one. A piece edited alone nests what it adds by this step, as
 * an edit of the whole document would. Reads a few lines of each entry until
 * one shows the step, never the whole text when the first entry shows it.
 */
export function indentStepOf(text: string, segments: readonly Segment[]): number {
  for (const segment of segments) {
    const keyLine = firstContentLine(text, segment.start, segment.end)
    if (!keyLine || !OPENS_BLOCK.test(text.slice(keyLine.start, keyLine.end))) continue
    const below = firstContentLine(text, keyLine.end, segment.end)
    if (!below) continue
    const match = NESTED_LINE.exec(text.slice(below.start, below.end))
    if (match) return match[1]!.length
  }
  return 2
}

/** The first line in `[from, to)` that is neither blank nor a comment, without its line break. */
function firstContentLine(text: string, from: number, to: number): { start: number; end: number } | undefined {
  let at = from
  while (at < to) {
    const newline = text.indexOf('\n', at)
    const end = newline < 0 || newline >= to ? to : newline
    const line = text.slice(at, end).trim()
    if (line && !line.startsWith('#')) return { start: at, end }
    at = end + 1
  }
  return undefined
}
