import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml'
import { coreScalar, isCoreNonString } from './core-schema.ts'
import { readLineData } from './yaml-line-read.ts'

/**
 * The fast reader: the data of a YAML text without `yaml`'s composer (which
 * also builds the node tree and the positions an edit needs), for texts where
 * it is certain to read exactly as `yaml` does with our parse options. It
 * tries the line reader first ({@link readLineData}: one entry per line, about
 * three times faster than js-yaml), then js-yaml 4 (about twenty times faster
 * than `yaml`). Anything else is left to `yaml`: this reader answers
 * `undefined` and never a different value.
 *
 * Certainty comes from two sides. Before reading, the text must use nothing
 * the two readers treat differently or that `yaml` checks and js-yaml does
 * not: no anchors or aliases (`yaml` caps their expansion), no tags, no
 * directives or document markers, no explicit keys, no merge keys, no tabs
 * (where each reader allows them differs), no line breaks inside plain
 * scalars or flow collections, no byte-order mark, no control
 * characters, line separators or unpaired surrogates. The check is coarse on
 * purpose: it does not know where a quoted string starts, so such an
 * indicator inside one sends the text to `yaml` too. While reading, plain
 * scalars resolve by the YAML 1.2 core schema, as in `yaml` (js-yaml's own
 * default adds timestamps, `!!binary` and underscores in numbers). After
 * reading, the root must be a map and every key a string no plain scalar
 * rule turns into something else (keys `yaml` reads as `null`, a boolean or a
 * number become strings differently in the two). Both readers refuse
 * duplicate keys; js-yaml also refuses some that `yaml` accepts (`1` and
 * `"1"`): this reader leaves those to `yaml`, as every text js-yaml refuses
 * or warns about.
 *
 * The agreement is tested on every document of the YAML test suite and on
 * generated texts (fast-check) against `yaml` itself.
 */

/**
 * What sends a text to `yaml`: an anchor, alias or tag indicator where a
 * node may start (after a line start, a blank, a flow indicator or a `:`);
 * an explicit key (`? `); a directive; a line that starts as a document
 * marker does (js-yaml ends the document at `---b`, which `yaml` reads as a
 * key); a merge key; a flow collection as a key, or where it may be one
 * (js-yaml makes `a,b` of `[a, b]`); a `#` glued to a quoted scalar or a flow
 * indicator; an escaped or lone carriage return; keep-chomping and space-led
 * block scalars; empty and nested-on-one-line sequence items (where js-yaml
 * lets wrong indentation through); trailing spaces at the end of the text; a
 * tab, a byte-order mark, a control character, a line or paragraph
 * separator, a noncharacter, an unpaired surrogate. `&`, `*`, `!` and `?`
 * elsewhere (`a=1&b=2`, `why?`) are plain text to both readers.
 */
export const OUTSIDE_SUBSET =
  /(?:^|[\s[{,:])(?:[&*!]|\?(?:[\s]|$))|^%|<<|[\]}][ ]*:|[{,][ ]*[[{]|["'[\]{},]#|\r(?!\n)|\\\r|[|>][0-9]?\+|\n[ ]+(?![\s\S])|^[ ]*-[ ]*(?:-|#[^\n]*)?\r?$|^[ ]*- [ ]*-(?:[ \r]|$)|[|>][-+0-9]*[ ]*(?:#[^\n]*)?\r?\n(?:[ ]*\r?\n)*?[ ]+\r?\n|^(?:---|\.\.\.)|[\t\uFEFF\u2028\u2029\uFFFE\uFFFF\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/m

/**
 * A quicker look that matches every text {@link OUTSIDE_SUBSET} matches (and
 * some it does not): each of its alternatives, cut down to a part it must
 * contain that starts at a character settings files rarely hold. Without the
 * line anchors and the blank-led alternatives of the full pattern, which make
 * it try at every space and line start, it passes over a plain text about
 * twice as fast; only a text it matches is tried with the full pattern. (A
 * document marker `---` needs no part of its own: its dash is followed by a
 * dash.) The full pattern's end-of-text alternative (trailing spaces) is
 * {@link endsInSpaces}. Tested to hold on every text the full pattern matches.
 */
export const MAYBE_OUTSIDE_SUBSET =
  /[&*!?%]|<<|[\]}][ ]*:|[{,][ ]*[[{]|["'[\]{},]#|\r(?!\n)|\\\r|[|>][0-9]?\+|-[ ]*(?:[-#\r\n]|$)|[|>][-+0-9]*[ ]*(?:#[^\n]*)?\r?\n(?:[ ]*\r?\n)*?[ ]+\r?\n|\.\.\.|[\t\uFEFF\u2028\u2029\uFFFE\uFFFF\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\uD800-\uDFFF]/

/** Whether the text's last line holds spaces and nothing else (the end-of-text alternative of {@link OUTSIDE_SUBSET}). */
function endsInSpaces(text: string): boolean {
  const last = text.lastIndexOf('\n')
  if (last < 0 || last === text.length - 1) return false
  for (let at = last + 1; at < text.length; at++) if (text.charCodeAt(at) !== 0x20) return false
  return true
}

/** Whether `text` uses something outside the fast reader's subset ({@link OUTSIDE_SUBSET}), looked for quickly first. */
export function outsideSubset(text: string): boolean {
  return (MAYBE_OUTSIDE_SUBSET.test(text) || endsInSpaces(text)) && OUTSIDE_SUBSET.test(text)
}

/**
 * js-yaml's failsafe schema (strings, sequences, maps) with the YAML 1.2 core
 * schema's plain scalars, as one implicit type (js-yaml asks each implicit type
 * in turn about every plain scalar, keys included: one question instead of
 * four). js-yaml hands an empty plain scalar over as `null`.
 */
const YAML_CORE = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type('tag:yaml.org,2002:core', {
      kind: 'scalar',
      resolve: (text: string | null) => {
        resolved = text === null ? null : coreScalar(text)
        return resolved !== undefined
      },
      // js-yaml constructs right after the resolve that said yes, from the same text.
      construct: () => resolved,
    }),
  ],
})

/** The value the last `resolve` of {@link YAML_CORE} found. */
let resolved: null | boolean | number | undefined

/** Thrown at js-yaml's first warning: a text it warns about is left to `yaml`. */
class Warned extends Error {}

/**
 * The data of `text` when it is a map (or nothing at all) that the fast reader
 * reads certainly as `yaml` would; `undefined` otherwise (then read it with
 * `yaml`, which also gives a refusal its position). A text the fast reader
 * takes has no anchors, aliases, tags or merge keys, so its data is a tree.
 */
export function readYamlData(text: string): Record<string, unknown> | undefined {
  if (outsideSubset(text)) return undefined
  const lines = readLineData(text)
  if (lines !== undefined) return lines
  if (runsOverLines(text)) return undefined
  let data: unknown
  try {
    data = load(text, {
      schema: YAML_CORE,
      onWarning: () => {
        throw new Warned()
      },
    })
  } catch {
    return undefined
  }
  if (data === undefined || data === null) return isBlank(text) ? {} : undefined
  if (typeof data !== 'object' || Array.isArray(data)) return undefined
  return plainKeysOnly(data) ? (data as Record<string, unknown>) : undefined
}

/** A key where a line's content starts: quoted, or plain up to `: ` (or a `:` ending the line). Sticky: tried at `lastIndex`. */
const KEY_AT = /(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\s#'"][^#\n]*?)[ ]*:(?:[ ]+|(?=\r?\n)|$)/y

/**
 * Whether a plain scalar or a flow collection may run over more than one
 * line. A flow collection does when some line's brackets do not balance. A
 * plain scalar does when a line is neither blank, a comment, a key, a
 * sequence item, inside a block scalar nor inside a quoted scalar left open.
 * Where such a scalar or collection ends (a comment in between, a key after)
 * is where the two readers' rules part most, and settings files quote or use
 * block scalars for text of several lines. One pass over the text, by index.
 */
function runsOverLines(text: string): boolean {
  /** The indentation of the line whose value is the block scalar being read; -1 when none is. */
  let blockParent = -1
  /** The quote of a quoted scalar left open at the end of the last line. */
  let open: number | undefined
  /** Where the next bracket stands at or after the line being read (most lines hold none: their brackets need no count). */
  let nextBracket = -1
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start)
    const end = newline < 0 ? text.length : newline
    const lineStart = start
    start = end + 1
    let at = lineStart
    while (at < end && text.charCodeAt(at) === 0x20) at++
    const indent = at - lineStart
    const blank = at === end || (text.charCodeAt(at) === 0x0d && at + 1 === end)
    if (open !== undefined) {
      open = quoteLeftOpen(text, at, end, open)
      continue
    }
    if (blockParent >= 0) {
      if (blank || indent > blockParent) continue
      blockParent = -1
    }
    if (blank || text.charCodeAt(at) === 0x23) continue
    if (nextBracket < at) {
      BRACKET.lastIndex = at
      nextBracket = BRACKET.test(text) ? BRACKET.lastIndex - 1 : text.length
    }
    if (nextBracket < end && !bracketsBalance(text, at, end)) return true
    const contentStart = at
    while (text.charCodeAt(at) === 0x2d && text.charCodeAt(at + 1) === 0x20) {
      at += 2
      while (text.charCodeAt(at) === 0x20) at++
    }
    KEY_AT.lastIndex = at
    // `test`, not `exec`: a sticky match leaves where it ended in lastIndex, and no match array is made per line.
    const keyed = KEY_AT.test(text)
    if (!keyed && at === contentStart) return true
    const value = keyed ? KEY_AT.lastIndex : at
    const first = text.charCodeAt(value)
    if (first === 0x7c || first === 0x3e) blockParent = indent
    else if (first === 0x22 || first === 0x27) open = quoteLeftOpen(text, value + 1, end, first)
  }
  return false
}

/** A bracket of a flow collection, searched from `lastIndex`. */
const BRACKET = /[[\]{}]/g

/** Whether the brackets of `text[from, to)` balance: a flow collection opened there also closes there. */
function bracketsBalance(text: string, from: number, to: number): boolean {
  let square = 0
  let curly = 0
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (code === 0x5b) square++
    else if (code === 0x5d) square--
    else if (code === 0x7b) curly++
    else if (code === 0x7d) curly--
  }
  return square === 0 && curly === 0
}

/** The quote (its char code) still open at `to` when a scalar quoted with `quote` is open at `from`, else `undefined`. */
function quoteLeftOpen(text: string, from: number, to: number, quote: number): number | undefined {
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at)
    if (quote === 0x22 && code === 0x5c) at++
    else if (code === quote) {
      if (quote === 0x27 && text.charCodeAt(at + 1) === 0x27) at++
      else return undefined
    }
  }
  return quote
}

/** Whether the text holds nothing but blank lines and comments (a root `~` or `null` is left to `yaml`). */
function isBlank(text: string): boolean {
  return /^(?:[ \r\n]|#[^\n]*)*$/.test(text)
}

/** Whether every map key in the tree is a string `yaml` would also read as that string (an explicit stack: deep trees must not overflow). */
function plainKeysOnly(root: object): boolean {
  const stack: unknown[] = [root]
  while (stack.length) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null) continue
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === 'object' && item !== null) stack.push(item)
      continue
    }
    // `for…in` lists a parsed map's keys without making an array of them; an inherited one (a prototype some other
    // code polluted) is not the map's and must not be walked, or a polluted object-valued key loops for ever.
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue
      if (key === '__proto__' || isCoreNonString(key)) return false
      const child = (node as Record<string, unknown>)[key]
      if (typeof child === 'object' && child !== null) stack.push(child)
    }
  }
  return true
}
