import { isMap, isPair, isSeq, type Node, type Pair, type ParsedNode, type YAMLMap } from 'yaml'

/**
 * Reading positions in YAML source: where a node, a pair or a line starts and
 * ends, as the byte-stable editor needs them. yaml's node ranges leave out a
 * node's properties (`&a`, `!tag`, a `?` indicator) and count trailing comment
 * lines into it; these functions say where the text a user sees as one item begins and ends.
 */

/** A node of a parsed document, or nothing. */
export type AnyNode = Node | ParsedNode | null | undefined

/** A node's `[start, value end, node end]` offsets, when it has them. */
export function range(node: AnyNode): [number, number, number] | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range ?? undefined
}

/** Whether a node is a flow collection (`{…}` or `[…]`). */
export function isFlow(node: AnyNode): boolean {
  return (isMap(node) || isSeq(node)) && (node as YAMLMap).flow === true
}

/** Column of an offset: its distance from the start of its line. */
export function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1)
}

/** The offset just past the newline ending the line that holds `offset - 1`. */
export function lineEnd(text: string, offset: number): number {
  if (text[offset - 1] === '\n') return offset
  const newline = text.indexOf('\n', offset)
  return newline === -1 ? text.length : newline + 1
}

/**
 * The `:` that follows a block map key ending at `keyEnd`: the next one
 * outside a comment (an explicit key's `:` may stand on a later line, after
 * comments that hold colons of their own).
 */
export function colonAfter(text: string, keyEnd: number): number {
  for (let at = keyEnd; at < text.length; at++) {
    const char = text[at]
    if (char === ':') return at
    if (char === '#' && (at === keyEnd || /\s/.test(text[at - 1]!))) {
      const newline = text.indexOf('\n', at)
      if (newline === -1) break
      at = newline
    }
  }
  return text.indexOf(':', keyEnd)
}

/**
 * Where a block map's pair begins on its line: its key, or the properties and
 * `?` indicator written before it (`&a key:`, `!!str key:`, `? key`). Its column
 * is the map's indentation; a key's own column is not, when it has those.
 */
export function itemStart(text: string, pair: Pair): number {
  const keyStart = (range(pair.key as AnyNode) ?? range(pair.value as AnyNode))?.[0] ?? 0
  const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1
  const props = /(?:(?:[&!]\S*|\?)[ \t]+)+$/.exec(text.slice(lineStart, keyStart))
  return props ? keyStart - props[0].length : keyStart
}

/** Where the properties (`&a`, `!tag`) written before a node's content at `start` begin, on its line. */
export function propertiesStart(text: string, start: number): number {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1
  const props = /(?:[&!]\S*[ \t]+)+$/.exec(text.slice(lineStart, start))
  return props ? start - props[0].length : start
}

/**
 * Where a node's content ends: a scalar's or flow collection's own end, a
 * block collection's last item's. Comment lines after the content (which yaml
 * counts into the node) are not part of it: removing or replacing the node
 * leaves them.
 */
export function contentEnd(node: AnyNode): number {
  let end = 0
  let current = node
  for (;;) {
    const nodeRange = range(current)
    if (!nodeRange) return end
    if (!(isMap(current) || isSeq(current)) || isFlow(current) || !current.items.length) return Math.max(end, nodeRange[1])
    const last = current.items[current.items.length - 1]
    if (isPair(last)) {
      end = Math.max(end, range(last.key as AnyNode)?.[1] ?? 0)
      current = last.value as AnyNode
    } else {
      end = Math.max(end, nodeRange[0])
      current = last as AnyNode
    }
  }
}

/** Where a pair's content ends (see {@link contentEnd}): its value's, or its key's when the value is empty. */
export function pairEnd(pair: Pair): number {
  return Math.max(range(pair.key as AnyNode)?.[1] ?? 0, contentEnd(pair.value as AnyNode))
}

/** yaml's core tags, and the values that still fit each. */
const TAG_FITS: Record<string, (value: unknown) => boolean> = {
  'tag:yaml.org,2002:str': (value) => typeof value === 'string',
  'tag:yaml.org,2002:int': (value) => Number.isInteger(value),
  'tag:yaml.org,2002:float': (value) => typeof value === 'number',
  'tag:yaml.org,2002:bool': (value) => typeof value === 'boolean',
  'tag:yaml.org,2002:null': (value) => value === null,
}

/**
 * Whether a node's tag still fits `value` (no tag always does): a scalar edited
 * in place keeps its tag, so `!!int 42` may become `!!int 7` but never
 * `!!int edited`, which reads with a warning and a strict reader refuses.
 */
export function tagFits(node: AnyNode, value: unknown): boolean {
  const tag = (node as { tag?: string } | null)?.tag
  return tag === undefined || TAG_FITS[tag]?.(value) === true
}
