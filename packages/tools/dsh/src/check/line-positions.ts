/**
 * Positions in a settings document written one entry per line, found by one
 * pass over its lines instead of a second parse: the file provider's fast
 * reader takes such texts without building yaml's node tree, and building that
 * tree only to place the check's lines would cost the check more than the
 * provider's whole load.
 *
 * The scan follows the line reader's layout (block maps and sequences nested
 * by indentation, `key: value`, `key:` with its value below, `- value`,
 * `- key: value`, keys plain or quoted, values plain, quoted, `[…]` of scalars
 * or `{}`, each on its line) and declines anything else. A position is trusted
 * only when the scan has the shape of the data the provider read all along its
 * path (each map with the same keys, each list as long, a scalar where the data
 * has one), so a text it misreads is placed by yaml's tree instead, never wrongly.
 */
import { isPlainObject } from 'dsh-settings/data'
import { START, type Position, type Target } from './positions.ts'

/** One node as the scan sees it; offsets with the index of their line, so placing one needs no search. */
interface Spot {
  /** Where its content starts: a scalar's first character, a block collection's first entry, a `[`/`{`; none for an empty value. */
  start: number | undefined
  startLine: number
  /** A scalar spelled out in the text (what a `value` target points at). */
  scalar: boolean
  /** Where the key naming it starts, when it is a map's value. */
  key: number | undefined
  keyLine: number
  map?: MapSpot
  seq?: Spot[]
}

/** A map's entries in text order, and an index by key made at the first look-up. */
interface MapSpot {
  names: string[]
  children: Spot[]
  index?: Map<string, number>
  /** Whether the data's map has exactly these keys, once checked. */
  same?: boolean
  /** The entry found last: look-ups mostly come in text order (a warning per key), so the next one is tried first. */
  last: number
}

const emptyMap = (): MapSpot => ({ names: [], children: [], last: -1 })

/** An open collection: its column, its node, and the entry of a map whose value starts on a later line. */
interface Frame {
  indent: number
  spot: Spot
  pending: Spot | undefined
}

/** Thrown when the text leaves the layout the scan knows. */
class Declined extends Error {}

/** Collections nested deeper than the fast reader takes are left to yaml's tree. */
const MAX_DEPTH = 100

/** The scan of one text. */
class LineScan {
  readonly root: Spot = { start: undefined, startLine: 0, scalar: false, key: undefined, keyLine: 0, map: emptyMap() }
  readonly starts: number[] = []
  /** The index of the line being read. */
  private index = -1
  private lineEnd = 0
  private readonly stack: Frame[] = []

  constructor(private readonly text: string) {}

  run(): void {
    const { text, stack } = this
    for (let start = 0; start < text.length; ) {
      const newline = text.indexOf('\n', start)
      let end = newline < 0 ? text.length : newline
      const lineStart = start
      this.starts.push(lineStart)
      this.index++
      start = end + 1
      if (end > lineStart && text.charCodeAt(end - 1) === 0x0d) end--
      this.lineEnd = end
      let at = lineStart
      while (at < end && text.charCodeAt(at) === 0x20) at++
      if (at === end || text.charCodeAt(at) === 0x23) continue
      this.line(at, at - lineStart, this.isItem(at))
    }
  }

  private line(at: number, indent: number, item: boolean): void {
    const stack = this.stack
    if (!stack.length) {
      if (indent !== 0 || item) throw new Declined()
      this.root.start = at
      this.root.startLine = this.index
      stack.push({ indent: 0, spot: this.root, pending: undefined })
      return this.entry(stack[0]!, at)
    }
    let top = stack[stack.length - 1]!
    const pending = top.pending
    top.pending = undefined
    if (pending && (indent > top.indent || (indent === top.indent && item))) {
      // The value of the key on an earlier line: a collection starting here.
      pending.start = at
      pending.startLine = this.index
      if (item) pending.seq = []
      else pending.map = emptyMap()
      if (stack.length >= MAX_DEPTH) throw new Declined()
      const frame: Frame = { indent, spot: pending, pending: undefined }
      stack.push(frame)
      return item ? this.item(frame, at) : this.entry(frame, at)
    }
    // Close what this line's indentation ends: deeper collections, and a sequence standing at its key's column.
    while (indent < top.indent || (indent === top.indent && !item && top.spot.seq)) {
      stack.pop()
      if (!stack.length) throw new Declined()
      top = stack[stack.length - 1]!
    }
    if (indent !== top.indent || item !== (top.spot.seq !== undefined)) throw new Declined()
    return item ? this.item(top, at) : this.entry(top, at)
  }

  private isItem(at: number): boolean {
    return this.text.charCodeAt(at) === 0x2d && this.text.charCodeAt(at + 1) === 0x20
  }

  /** One `key: value` entry of the map `frame`. */
  private entry(frame: Frame, at: number): void {
    const key = this.key(at)
    if (!key) throw new Declined()
    this.add(frame, key.name, at, key.after)
  }

  /** The entry whose key starts at `keyStart` (its `:` ends at `after`) into the map `frame`. */
  private add(frame: Frame, name: string, keyStart: number, after: number): void {
    // A repeated key makes one more entry than the data has keys: the shape check turns the scan down.
    const map = frame.spot.map!
    map.names.push(name)
    let at = after
    while (this.text.charCodeAt(at) === 0x20) at++
    if (at >= this.lineEnd || this.text.charCodeAt(at) === 0x23) {
      const spot = this.spot(undefined, false, keyStart)
      map.children.push(spot)
      frame.pending = spot
      return
    }
    map.children.push(this.value(at, keyStart))
  }

  /** One item of the sequence `frame`: a scalar, or the first entry of a map inside the item. */
  private item(frame: Frame, dash: number): void {
    let at = dash + 2
    while (this.text.charCodeAt(at) === 0x20) at++
    if (at >= this.lineEnd || this.text.charCodeAt(at) === 0x23 || this.isItem(at)) throw new Declined()
    const key = this.key(at)
    if (!key) return void frame.spot.seq!.push(this.value(at, undefined))
    const spot = this.spot(at, false, undefined)
    spot.map = emptyMap()
    frame.spot.seq!.push(spot)
    if (this.stack.length >= MAX_DEPTH) throw new Declined()
    // The map's keys stand at the column of its first key.
    const map: Frame = { indent: at - this.starts[this.starts.length - 1]!, spot, pending: undefined }
    this.stack.push(map)
    this.add(map, key.name, at, key.after)
  }

  /** The key of a `key: value` line starting at `at` and where its `:` ends; `undefined` when the line holds a scalar there. */
  private key(at: number): { name: string; after: number } | undefined {
    const text = this.text
    const first = text.charCodeAt(at)
    if (first === 0x22 || first === 0x27) {
      const close = this.quoteEnd(at)
      let colon = close + 1
      while (text.charCodeAt(colon) === 0x20) colon++
      if (text.charCodeAt(colon) !== 0x3a || !this.endsKey(colon + 1)) return undefined
      return { name: this.quoted(at, close), after: colon + 1 }
    }
    let colon = at
    while (colon < this.lineEnd && !(text.charCodeAt(colon) === 0x3a && this.endsKey(colon + 1))) colon++
    if (colon >= this.lineEnd) return undefined
    let keyEnd = colon
    while (text.charCodeAt(keyEnd - 1) === 0x20) keyEnd--
    return { name: text.slice(at, keyEnd), after: colon + 1 }
  }

  private endsKey(at: number): boolean {
    return at >= this.lineEnd || this.text.charCodeAt(at) === 0x20
  }

  /** A node on this line. */
  private spot(start: number | undefined, scalar: boolean, key: number | undefined): Spot {
    return { start, startLine: this.index, scalar, key, keyLine: this.index }
  }

  /** A value starting at `at` on this line (named by the key at `key`, if any): a scalar, `{}`, or `[…]` of scalars. */
  private value(at: number, key: number | undefined): Spot {
    const first = this.text.charCodeAt(at)
    if (first === 0x7c || first === 0x3e) throw new Declined()
    const spot = this.spot(at, first !== 0x7b && first !== 0x5b, key)
    if (first === 0x7b) spot.map = emptyMap()
    else if (first === 0x5b) spot.seq = this.flowItems(at)
    return spot
  }

  /** Where each scalar of a one-line `[…]` starts. */
  private flowItems(open: number): Spot[] {
    const text = this.text
    const items: Spot[] = []
    let at = this.skipSpaces(open + 1)
    if (text.charCodeAt(at) === 0x5d) return items
    for (;;) {
      const first = text.charCodeAt(at)
      if (at >= this.lineEnd || first === 0x5b || first === 0x7b || first === 0x2c) throw new Declined()
      items.push(this.spot(at, true, undefined))
      if (first === 0x22 || first === 0x27) at = this.quoteEnd(at) + 1
      while (at < this.lineEnd && text.charCodeAt(at) !== 0x2c && text.charCodeAt(at) !== 0x5d) at++
      if (at >= this.lineEnd) throw new Declined()
      if (text.charCodeAt(at) === 0x5d) return items
      at = this.skipSpaces(at + 1)
    }
  }

  private skipSpaces(at: number): number {
    while (at < this.lineEnd && this.text.charCodeAt(at) === 0x20) at++
    return at
  }

  /** Where the quoted scalar starting at `at` closes on its line. */
  private quoteEnd(at: number): number {
    const text = this.text
    const quote = text.charCodeAt(at)
    for (let next = at + 1; next < this.lineEnd; next++) {
      const code = text.charCodeAt(next)
      if (quote === 0x22 && code === 0x5c) next++
      else if (code === quote) {
        if (quote === 0x27 && text.charCodeAt(next + 1) === 0x27) next++
        else return next
      }
    }
    throw new Declined()
  }

  /** The text of a quoted key (JSON's escapes in double quotes, `''` in single ones). */
  private quoted(open: number, close: number): string {
    const inner = this.text.slice(open + 1, close)
    if (this.text.charCodeAt(open) === 0x27) return inner.replaceAll("''", "'")
    try {
      return inner.includes('\\') ? (JSON.parse(this.text.slice(open, close + 1)) as string) : inner
    } catch {
      throw new Declined()
    }
  }
}

/**
 * Whether a node of the scan stands for `value`, the data the provider read at the same
 * place: a map with exactly the same keys (compared once per map), a list as long, a
 * scalar or an empty value where the data holds no map or list.
 */
function agrees(spot: Spot, value: unknown): boolean {
  if (spot.map) return isPlainObject(value) && sameKeys(spot.map, value)
  if (spot.seq) return Array.isArray(value) && value.length === spot.seq.length
  // An empty value reads as null; a scalar is anything but a map or a list (a parse makes nothing else).
  return spot.scalar ? typeof value !== 'object' || value === null : value === null
}

/** Whether `value` has exactly the keys the scan found in `map`: in order, as the parse inserts them, else by look-up. */
function sameKeys(map: MapSpot, value: Record<string, unknown>): boolean {
  if (map.same !== undefined) return map.same
  const keys = Object.keys(value)
  let same = keys.length === map.names.length
  for (let index = 0; same && index < keys.length; index++) {
    // An object lists integer-like keys first, whatever order the text has them in.
    if (keys[index] !== map.names[index]) same = new Set(map.names).size === keys.length && map.names.every((name) => Object.hasOwn(value, name))
  }
  map.same = same
  return same
}

/** How many entries after the one found last {@link entryOf} tries before it looks the name up. */
const NEAR = 8

/** The entry of `map` named `name`. */
function entryOf(map: MapSpot, name: string): Spot | undefined {
  // The next few entries first: look-ups skip the keys nothing reports (declared ones), and an index costs a pass over every key.
  let found = map.last + 1
  const near = Math.min(found + NEAR, map.names.length)
  while (found < near && map.names[found] !== name) found++
  if (found === near) {
    if (!map.index) {
      map.index = new Map()
      for (let index = 0; index < map.names.length; index++) map.index.set(map.names[index]!, index)
    }
    const indexed = map.index.get(name)
    if (indexed === undefined) return undefined
    found = indexed
  }
  map.last = found
  return map.children[found]
}

/** The positions of a text written one entry per line, checked against its data on the way to each. */
export class LinePositions {
  private constructor(
    private readonly root: Spot,
    private readonly starts: number[],
    private readonly data: Record<string, unknown>,
  ) {}

  /** The scan of `text`, whose data the provider read as `data`; `undefined` when the text leaves the layout the scan knows. */
  static of(text: string, data: Record<string, unknown>): LinePositions | undefined {
    const scan = new LineScan(text)
    try {
      scan.run()
    } catch (error) {
      if (error instanceof Declined) return undefined
      throw error
    }
    return new LinePositions(scan.root, scan.starts, data)
  }

  /**
   * The way down to the place found last: its segments, and the node and data at each depth
   * (depth 0 is the root). Look-ups mostly come many to one section (a warning per key), so
   * the next one starts from the deepest part of the way they share.
   */
  private way: { segments: string[]; spots: Spot[]; values: unknown[]; depth: number } | undefined

  /**
   * As `PositionedText.locate`: the node at `path`, or the nearest ancestor the text holds;
   * `undefined` when the scan and the data disagree on the way (then place it by yaml's tree).
   */
  locate(path: readonly string[], target: Target = 'value'): Position | undefined {
    if (!this.way) {
      if (!agrees(this.root, this.data)) return undefined
      this.way = { segments: [], spots: [this.root], values: [this.data], depth: 0 }
    }
    const way = this.way
    // What agreed on an earlier look-up agrees still: the text and the data do not change.
    let depth = 0
    while (depth < path.length && depth < way.depth && way.segments[depth] === path[depth]) depth++
    way.depth = depth
    let spot = way.spots[depth]!
    let value = way.values[depth]
    let complete = true
    for (; depth < path.length; depth++) {
      const segment = path[depth]!
      const next = spot.map ? entryOf(spot.map, segment) : spot.seq && /^(0|[1-9]\d*)$/.test(segment) ? spot.seq[Number(segment)] : undefined
      if (!next) {
        complete = false
        break
      }
      // The map's own key (its keys agree), or the list's item (its length agrees).
      value = (value as Record<string, unknown>)[segment]
      if (!agrees(next, value)) return undefined
      spot = next
      way.segments[depth] = segment
      way.spots[depth + 1] = spot
      way.values[depth + 1] = value
      way.depth = depth + 1
    }
    if (complete && target === 'value' && spot.scalar && spot.start !== undefined) return this.at(spot.startLine, spot.start)
    if (spot.key !== undefined) return this.at(spot.keyLine, spot.key)
    if (spot.start !== undefined) return this.at(spot.startLine, spot.start)
    return START
  }

  private at(line: number, offset: number): Position {
    return { line: line + 1, column: offset - this.starts[line]! + 1 }
  }
}
