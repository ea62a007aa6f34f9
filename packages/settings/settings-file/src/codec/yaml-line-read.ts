import { coreScalar, isCoreNonString } from './core-schema.ts'

/**
 * The line reader: the data of the YAML that settings files mostly are, one
 * entry per line, read line by line without a general YAML parser. It is the
 * fast reader's first try ({@link readYamlData}); js-yaml reads what it
 * declines, and `yaml` what js-yaml may not. Like them, it answers `undefined`
 * rather than ever a value `yaml` would not read.
 *
 * What it takes, and nothing else: a root map at the first column; block maps
 * and block sequences, nested by indentation (a sequence may stand at its
 * key's column); every entry on one line: `key: value`, `key:` with its value
 * below, `- value`, `- key: value` (a map inside an item); keys plain or
 * quoted; values plain, single- or double-quoted (with JSON's escapes only) or
 * an empty `[]` / `{}`, each closed on its line; full-line and trailing
 * comments; blank lines; CRLF. Anything else (block scalars, flow collections
 * with content, text over several lines, a key `yaml` would read as a
 * non-string, `__proto__`, a repeated key, an indicator where a scalar starts,
 * indentation that does not line up) declines the whole text.
 *
 * It runs after the fast reader's subset check ({@link outsideSubset}), so
 * tabs, anchors, tags, directives, document markers and control characters
 * never reach it. Plain scalars resolve by the YAML 1.2 core schema, as in
 * `yaml` with the provider's options. General readers spend most of a large
 * document's time on the cases this one declines; here a line costs a few
 * index searches (about three times faster than js-yaml on a 1 MB section).
 *
 * Tested against `yaml` itself, with the rest of the fast reader, on the YAML
 * test suite and on generated texts, and on its own on texts written in its
 * subset and then cut and spliced at random.
 */

/** Thrown when the text leaves the subset: the whole text goes to the next reader. */
class Declined extends Error {}
const DECLINED = new Declined()

function decline(): never {
  throw DECLINED
}

/** An open collection: its column, its value, and for a map the key whose value starts on a later line. */
interface Frame {
  indent: number
  map: Record<string, unknown> | undefined
  seq: unknown[] | undefined
  pending: string | undefined
}

/** Where the line being read starts. */
let lineStart = 0
/** Where the line being read ends (before a `\r\n`'s `\r`). */
let lineEnd = 0
/** Where the last {@link readKey} left off: just after its `:`. */
let afterKey = 0

/**
 * The data of `text` (its root a map, or nothing but blank lines and
 * comments: `{}`), or `undefined` when it uses anything outside the line
 * reader's subset.
 */
export function readLineData(text: string): Record<string, unknown> | undefined {
  try {
    return readLines(text)
  } catch (error) {
    if (error === DECLINED) return undefined
    throw error
  }
}

function readLines(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {}
  const stack: Frame[] = []
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start)
    let end = newline < 0 ? text.length : newline
    lineStart = start
    start = end + 1
    if (end > lineStart && text.charCodeAt(end - 1) === 0x0d) end--
    lineEnd = end
    let at = lineStart
    while (at < end && text.charCodeAt(at) === 0x20) at++
    if (at === end || text.charCodeAt(at) === 0x23) continue
    const indent = at - lineStart
    const item = isItemAt(text, at)
    if (!stack.length) {
      if (indent !== 0 || item) decline()
      stack.push(frameOf(root, undefined, 0))
      readEntry(stack[0]!, text, at)
      continue
    }
    let top = stack[stack.length - 1]!
    if (top.pending !== undefined) {
      // The value of the key on an earlier line: a collection starting here, or null.
      const key = top.pending
      top.pending = undefined
      if (indent > top.indent || (indent === top.indent && item)) {
        const nested = item ? frameOf(undefined, [], indent) : frameOf({}, undefined, indent)
        top.map![key] = nested.map ?? nested.seq
        push(stack, nested)
        if (item) readItem(text, stack, nested, at)
        else readEntry(nested, text, at)
        continue
      }
    }
    // Close what this line's indentation ends: deeper collections, and a sequence standing at its key's column.
    while (indent < top.indent || (indent === top.indent && !item && top.seq)) {
      stack.pop()
      if (!stack.length) decline()
      top = stack[stack.length - 1]!
    }
    if (indent !== top.indent) decline()
    if (top.seq) {
      if (!item) decline()
      readItem(text, stack, top, at)
    } else {
      if (item) decline()
      readEntry(top, text, at)
    }
  }
  return root
}

/**
 * Collections nested deeper than this decline the text: js-yaml's own limit
 * (`maxDepth`), so what the line reader takes is what js-yaml would have
 * taken, and a deeper text goes to `yaml` as before. The reader itself keeps
 * no call stack, but what takes its data (validation, copies, equality)
 * recurses. Settings nest a few levels; generated texts a few dozen.
 */
const MAX_DEPTH = 100

/** Open a collection nested in the one on top of `stack`. */
function push(stack: Frame[], frame: Frame): void {
  if (stack.length >= MAX_DEPTH) decline()
  stack.push(frame)
}

function frameOf(map: Record<string, unknown> | undefined, seq: unknown[] | undefined, indent: number): Frame {
  return { indent, map, seq, pending: undefined }
}

/** Whether a sequence item starts at `at`: a dash and a space (a lone dash ending its line is outside the subset). */
function isItemAt(text: string, at: number): boolean {
  return text.charCodeAt(at) === 0x2d && text.charCodeAt(at + 1) === 0x20
}

/** One item of the sequence `frame`: a scalar, or the first entry of a map inside the item. */
function readItem(text: string, stack: Frame[], frame: Frame, dash: number): void {
  let at = dash + 2
  while (text.charCodeAt(at) === 0x20) at++
  if (at >= lineEnd || text.charCodeAt(at) === 0x23 || isItemAt(text, at)) decline()
  const key = readKey(text, at)
  if (key !== undefined) {
    // The map's keys stand at the column of its first key.
    const map = frameOf({}, undefined, at - lineStart)
    frame.seq!.push(map.map)
    push(stack, map)
    addEntry(map, text, key)
    return
  }
  frame.seq!.push(readValue(text, at))
}

/** One `key: value` entry of the map `frame`; its value may start on a later line. */
function readEntry(frame: Frame, text: string, at: number): void {
  const key = readKey(text, at)
  if (key === undefined) decline()
  addEntry(frame, text, key)
}

/** The entry whose key {@link readKey} just read (its `:` ends at {@link afterKey}) into the map `frame`. */
function addEntry(frame: Frame, text: string, key: string): void {
  const map = frame.map!
  if (Object.prototype.hasOwnProperty.call(map, key)) decline()
  let value = afterKey
  while (text.charCodeAt(value) === 0x20) value++
  if (value >= lineEnd || text.charCodeAt(value) === 0x23) {
    frame.pending = key
    // A placeholder keeps the key's place in the map's order and counts for the repeated-key check.
    map[key] = null
    return
  }
  map[key] = readValue(text, value)
}

/**
 * The key of a `key: value` line starting at `at`, leaving where its `:` ends
 * in {@link afterKey}; `undefined` when the line holds no key there (it is a
 * scalar). Declines keys it cannot be sure of.
 */
function readKey(text: string, at: number): string | undefined {
  const first = text.charCodeAt(at)
  let key: string
  let after: number
  if (first === 0x22 || first === 0x27) {
    const close = quoteEnd(text, at)
    after = close + 1
    while (text.charCodeAt(after) === 0x20) after++
    if (text.charCodeAt(after) !== 0x3a || !endsKey(text, after + 1)) return undefined
    key = quoted(text, at, close)
  } else {
    // Searched by hand: an index search would run past the line when it holds no `:`, once per line.
    let colon = at
    while (colon < lineEnd && !(text.charCodeAt(colon) === 0x3a && endsKey(text, colon + 1))) colon++
    if (colon >= lineEnd) return undefined
    if (isIndicator(first) || colon - at > 1024) decline()
    let keyEnd = colon
    while (text.charCodeAt(keyEnd - 1) === 0x20) keyEnd--
    key = text.slice(at, keyEnd)
    // A `#` may start a comment before the `:`; a `:` inside the key is read differently by some readers.
    if (key.includes('#') || key.includes(':')) decline()
    after = colon
  }
  if (key === '__proto__' || isCoreNonString(key)) decline()
  afterKey = after + 1
  return key
}

/** Whether a `:` just before `at` ends a key: a space or the end of the line follows it. */
function endsKey(text: string, at: number): boolean {
  return at >= lineEnd || text.charCodeAt(at) === 0x20
}

/** A scalar value starting at `at` and running to the line's end or its comment. */
function readValue(text: string, at: number): unknown {
  const first = text.charCodeAt(at)
  if (first === 0x22 || first === 0x27) {
    const close = quoteEnd(text, at)
    endsLine(text, close + 1)
    return quoted(text, at, close)
  }
  if (first === 0x5b) return readFlowSequence(text, at)
  if (first === 0x7b) {
    // Only an empty flow map.
    if (text.charCodeAt(at + 1) !== 0x7d) decline()
    endsLine(text, at + 2)
    return {}
  }
  startsPlain(text, at)
  // Up to a comment (a `#` after a space) or the line's end; an index search would run past the line.
  let end = at
  while (end < lineEnd && !(text.charCodeAt(end) === 0x23 && text.charCodeAt(end - 1) === 0x20)) end++
  while (text.charCodeAt(end - 1) === 0x20) end--
  const plain = text.slice(at, end)
  // `a: b` in a value is a map `yaml` refuses here; a `:` ending it starts one.
  if (plain.includes(': ') || plain.charCodeAt(plain.length - 1) === 0x3a) decline()
  return plainScalar(plain)
}

/** What a plain scalar's text reads as: `null`, a boolean, a number or the text. */
function plainScalar(plain: string): unknown {
  const core = coreScalar(plain)
  return core === undefined ? plain : core
}

/** Decline unless a plain scalar may start at `at`: not at an indicator, nor at a dash an item or a document marker may start with. */
function startsPlain(text: string, at: number): void {
  const first = text.charCodeAt(at)
  if (first === 0x2d) {
    const next = text.charCodeAt(at + 1)
    // Nor a lone dash in a flow sequence (`[-, a]`): a flow indicator after it ends it.
    if (at + 1 >= lineEnd || next === 0x20 || next === 0x2d || next === 0x2c || next === 0x5b || next === 0x5d || next === 0x7b || next === 0x7d) decline()
  } else if (isIndicator(first)) decline()
}

/**
 * A flow sequence of scalars closed on its line (`[a, "b c", 1]`, `[]`).
 * Declined: nested collections, empty entries, a trailing comma, and plain
 * entries holding a `:` or a `#` (where flow rules part from block rules).
 */
function readFlowSequence(text: string, open: number): unknown[] {
  const items: unknown[] = []
  let at = skipSpaces(text, open + 1)
  if (text.charCodeAt(at) === 0x5d) {
    endsLine(text, at + 1)
    return items
  }
  for (;;) {
    const first = text.charCodeAt(at)
    if (first === 0x22 || first === 0x27) {
      const close = quoteEnd(text, at)
      items.push(quoted(text, at, close))
      at = skipSpaces(text, close + 1)
    } else {
      startsPlain(text, at)
      let end = at
      for (; end < lineEnd; end++) {
        const code = text.charCodeAt(end)
        if (code === 0x2c || code === 0x5d) break
        if (code === 0x3a || code === 0x23 || code === 0x5b || code === 0x7b || code === 0x7d) decline()
      }
      if (end >= lineEnd) decline()
      let trimmed = end
      while (text.charCodeAt(trimmed - 1) === 0x20) trimmed--
      items.push(plainScalar(text.slice(at, trimmed)))
      at = end
    }
    const code = text.charCodeAt(at)
    if (code === 0x5d) {
      endsLine(text, at + 1)
      return items
    }
    if (code !== 0x2c) decline()
    at = skipSpaces(text, at + 1)
    if (at >= lineEnd || text.charCodeAt(at) === 0x5d || text.charCodeAt(at) === 0x2c) decline()
  }
}

/** The first place at or after `at` on the line that is not a space. */
function skipSpaces(text: string, at: number): number {
  while (at < lineEnd && text.charCodeAt(at) === 0x20) at++
  return at
}

/** Decline unless only spaces and a comment follow `at` on the line. */
function endsLine(text: string, at: number): void {
  let after = at
  while (after < lineEnd && text.charCodeAt(after) === 0x20) after++
  if (after < lineEnd && (after === at || text.charCodeAt(after) !== 0x23)) decline()
}

/** Where the quoted scalar starting at `at` closes on its line; declines one left open or with an escape beyond JSON's. */
function quoteEnd(text: string, at: number): number {
  const quote = text.charCodeAt(at)
  for (let next = at + 1; next < lineEnd; next++) {
    const code = text.charCodeAt(next)
    if (quote === 0x22 && code === 0x5c) {
      next++
      if (!JSON_ESCAPE.has(text.charCodeAt(next))) decline()
    } else if (code === quote) {
      if (quote === 0x27 && text.charCodeAt(next + 1) === 0x27) next++
      else return next
    }
  }
  return decline()
}

/** The escapes a double-quoted scalar shares with JSON: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u`. */
const JSON_ESCAPE = new Set([...'"\\/bfnrtu'].map((char) => char.charCodeAt(0)))

/** The text of the quoted scalar from `open` to `close` (its quotes). */
function quoted(text: string, open: number, close: number): string {
  const inner = text.slice(open + 1, close)
  if (text.charCodeAt(open) === 0x27) return inner.includes("''") ? inner.replaceAll("''", "'") : inner
  if (!inner.includes('\\')) return inner
  try {
    return JSON.parse(text.slice(open, close + 1)) as string
  } catch {
    return decline()
  }
}

/** Whether this character is an indicator a plain key or scalar may not start with (for a dash, see {@link startsPlain}). */
function isIndicator(code: number): boolean {
  switch (code) {
    case 0x2d: // -
    case 0x3f: // ?
    case 0x3a: // :
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x23: // #
    case 0x26: // &
    case 0x2a: // *
    case 0x21: // !
    case 0x7c: // |
    case 0x3e: // >
    case 0x27: // '
    case 0x22: // "
    case 0x25: // %
    case 0x40: // @
    case 0x60: // `
      return true
    default:
      return false
  }
}
