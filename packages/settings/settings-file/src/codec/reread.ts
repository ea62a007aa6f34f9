import { setOwn } from './data.ts'
import { rereadNested, NESTED_MIN_BYTES } from './nested-edit.ts'
import { reparseChanged, type ParsedDocument } from './parse.ts'
import type { Segment } from './segments.ts'
import { withKeptTags } from './tagged.ts'

/**
 * Parse `text`, a new version of `before` (parsed as `parsed`), reading as
 * little as is certain to read as a whole parse would: a change inside one
 * large top-level entry reads only the smallest child holding it (see
 * `rereadNested`); a change across entries reads those entries
 * (`reparseChanged`). `undefined`: parse the whole text.
 */
export function rereadChanged(before: string, parsed: ParsedDocument, text: string): ParsedDocument | undefined {
  const read = withKeptTags(parsed.tags, () => rereadInsideEntry(before, parsed, text) ?? reparseChanged(before, parsed, text))
  if (read && parsed.tags) read.tags = parsed.tags
  return read
}

function rereadInsideEntry(before: string, parsed: ParsedDocument, text: string): ParsedDocument | undefined {
  const segments = parsed.segments
  if (!segments?.length) return undefined
  const { head, tail } = sharedEnds(before, text)
  const changedEnd = before.length - tail
  const at = segments.findIndex((segment) => segment.start <= head && changedEnd <= segment.end && head < segment.end)
  if (at < 0) return undefined
  const segment = segments[at]!
  if (segment.end - segment.start < NESTED_MIN_BYTES) return undefined
  const value = rereadNested(before, text, segment.start, segment.end, segment.key, parsed.data[segment.key], head, changedEnd)
  if (value === undefined) return undefined
  const data: Record<string, unknown> = {}
  for (const key of Object.keys(parsed.data)) setOwn(data, key, key === segment.key ? value : parsed.data[key])
  const shift = text.length - before.length
  const placed: Segment[] = segments.map((entry, index) =>
    index < at ? entry : index === at ? { key: entry.key, start: entry.start, end: entry.end + shift } : { key: entry.key, start: entry.start + shift, end: entry.end + shift },
  )
  return { data, segments: placed }
}

/** Compared a block at a time first: a one-field edit of a 10 MB document shares almost all of it. */
const BLOCK = 4096

/** How many characters `before` and `text` share at their start (`head`) and, after that, at their end (`tail`). */
function sharedEnds(before: string, text: string): { head: number; tail: number } {
  const shortest = Math.min(before.length, text.length)
  let head = 0
  while (head + BLOCK <= shortest && before.slice(head, head + BLOCK) === text.slice(head, head + BLOCK)) head += BLOCK
  while (head < shortest && before.charCodeAt(head) === text.charCodeAt(head)) head++
  let tail = 0
  const room = shortest - head
  while (tail + BLOCK <= room && before.slice(before.length - tail - BLOCK, before.length - tail) === text.slice(text.length - tail - BLOCK, text.length - tail)) tail += BLOCK
  while (tail < room && before.charCodeAt(before.length - 1 - tail) === text.charCodeAt(text.length - 1 - tail)) tail++
  return { head, tail }
}
