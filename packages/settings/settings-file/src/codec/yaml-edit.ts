import { isAlias, isMap, isScalar, isSeq, type Document, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml'
import { valueAt } from './data.ts'
import type { DocumentEdit, DocumentPath } from './diff.ts'
import { findAliasUses, findAnchors, isMergePair, mergedKeys } from './yaml-anchors.ts'
import { colonAfter, column, contentEnd, isFlow, itemStart, lineEnd, pairEnd, propertiesStart, range, tagFits, type AnyNode } from './yaml-source.ts'
import { isPadded, planBlockRemovals, planFlowChanges, type FlowChange } from './collection-changes.ts'
import { applySplices, type Splice } from './splices.ts'
import { isInline, renderAfterColon, renderBlock, renderBlockKey, renderBlockScalar, renderFlow, renderKey, renderScalar } from './render.ts'


/** Where a node sits: as a map pair's value, as a sequence item, or as the document root. */
type Slot =
  | { kind: 'pair'; map: YAMLMap; pair: Pair }
  | { kind: 'item'; seq: YAMLSeq; index: number }
  | { kind: 'root' }

function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String((pair.key as Scalar).value) : undefined
}

/** The pair of `map` whose key is `segment`, among its own pairs (merge pairs excluded). */
function ownPair(map: YAMLMap, segment: string): Pair | undefined {
  return map.items.find((pair) => !isMergePair(pair as Pair) && keyText(pair as Pair) === segment) as Pair | undefined
}

function pathKey(path: DocumentPath): string {
  return JSON.stringify(path.map(String))
}

function isPrefix(prefix: DocumentPath, path: DocumentPath): boolean {
  return prefix.length <= path.length && prefix.every((segment, index) => String(segment) === String(path[index]))
}

/**
 * Text edits that apply document edits to YAML source, touching only the
 * bytes of the values that change, the keys added and the keys removed.
 */
export class YamlEditor {
  private readonly splices: Splice[] = []
  private rootReplaced = false
  /**
   * Items removed from and added to flow collections: applied together at the
   * end, so adjacent commas are handled once.
   */
  private readonly flowChanges = new Map<YAMLMap | YAMLSeq, FlowChange>()
  /** Pairs removed from block maps, by index: a list item's first key is removed together with what follows it. */
  private readonly blockRemovals = new Map<YAMLMap, Set<number>>()
  /** Maps whose `<<` merges are written out as concrete keys in this edit, by path. */
  private readonly expanding = new Map<string, YAMLMap>()
  /** Indentation step for new nested blocks: the document's own, else 2. */
  private readonly step: number
  /** The document's line ending: new lines follow it, so a CRLF file stays CRLF. */
  private readonly eol: string

  constructor(
    private readonly text: string,
    private readonly doc: Document.Parsed,
    private readonly next: unknown,
    /** The indentation step of the document `text` is a piece of, when the caller knows it (a piece alone may not show it). */
    step?: number,
  ) {
    this.step = step ?? this.detectStep()
    this.eol = text.includes('\r\n') ? '\r\n' : '\n'
  }

  /**
   * Apply `edits` and return the edited text. Splices are applied from the end
   * so earlier offsets stay valid; one that falls inside a wider replacement is
   * covered by it, and insertions at one offset keep their planned order.
   * @throws {Error} when two splices overlap without one containing the other.
   */
  apply(edits: readonly DocumentEdit[]): string {
    const all = [...edits, ...this.aliasRepairs(edits)]
    for (const edit of all) if (edit.op === 'delete') this.markExpansions(edit.path)
    for (const [key, map] of this.expanding) this.expandMerges(map, JSON.parse(key) as string[])
    for (const edit of all) this.plan(edit)
    planFlowChanges(this.text, this.flowChanges, this.next, (start, end, text) => this.splice(start, end, text))
    planBlockRemovals(this.text, this.blockRemovals, (start, end, text) => this.splice(start, end, text))
    return applySplices(this.text, this.splices)
  }

  private detectStep(): number {
    const root = this.doc.contents
    if (!isMap(root)) return 2
    for (const pair of root.items) {
      const keyRange = range(pair.key as AnyNode)
      const valueRange = range(pair.value as AnyNode)
      if (keyRange && valueRange && (isMap(pair.value) || isSeq(pair.value)) && !isFlow(pair.value as AnyNode)) {
        const step = column(this.text, valueRange[0]) - column(this.text, itemStart(this.text, pair as Pair))
        if (step > 0) return step
      }
    }
    return 2
  }

  /**
   * Edits that keep aliases working when an edit removes the anchor they
   * point at: each such alias is written out concretely, and each map merging
   * it has its merge written out.
   */
  private aliasRepairs(edits: readonly DocumentEdit[]): DocumentEdit[] {
    const removed = new Set<string>()
    for (const edit of edits) {
      const node = this.nodeAt(edit.path)
      if (!node) continue
      // A replaced node keeps its own anchor (it is written again); a deleted one loses it too.
      for (const anchor of findAnchors(node, edit.op === 'set')) removed.add(anchor)
    }
    if (!removed.size) return []
    const repairs: DocumentEdit[] = []
    for (const use of findAliasUses(this.doc)) {
      if (!removed.has(use.anchor) || edits.some((edit) => isPrefix(edit.path, use.path))) continue
      if (use.merge) {
        if (valueAt(this.next, use.path) !== undefined) this.expanding.set(pathKey(use.path), this.nodeAt(use.path) as YAMLMap)
      } else if (valueAt(this.next, use.path) !== undefined) {
        repairs.push({ op: 'set', path: use.path, value: valueAt(this.next, use.path) })
      }
    }
    return repairs
  }

  /** The node at `path` following own pairs and items only, or `undefined`. */
  private nodeAt(path: DocumentPath): AnyNode {
    let node: AnyNode = this.doc.contents
    for (const segment of path) {
      if (isMap(node)) node = ownPair(node, String(segment))?.value as AnyNode
      else if (isSeq(node)) node = node.items[Number(segment)] as AnyNode
      else return undefined
      if (node === undefined) return undefined
    }
    return node
  }

  /**
   * A delete of a key a map has through a merge (alone, or under an own key
   * that overrides it) needs that map's merges written out.
   */
  private markExpansions(path: DocumentPath): void {
    let node: AnyNode = this.doc.contents
    for (let depth = 0; depth < path.length; depth++) {
      if (isMap(node)) {
        const segment = String(path[depth])
        const pair = ownPair(node, segment)
        const merged = node.items.some((item) => isMergePair(item as Pair))
        if (!pair || (depth === path.length - 1 && merged && mergedKeys(node, this.doc).has(segment))) {
          if (merged) this.expanding.set(pathKey(path.slice(0, depth)), node)
          return
        }
        node = pair.value as AnyNode
      } else if (isSeq(node)) {
        node = node.items[Number(path[depth])] as AnyNode
      } else {
        return
      }
    }
  }

  /** Locate an edit's target in the parsed document and queue the splice that makes it. */
  private plan(edit: DocumentEdit): void {
    let node: AnyNode = this.doc.contents
    let slot: Slot = { kind: 'root' }
    let parentIndent: number | undefined
    const { path } = edit
    if (!path.length || node === null || node === undefined) return this.replace(slot, node, [])
    for (let depth = 0; depth < path.length; depth++) {
      const segment = path[depth]!
      const prefix = path.slice(0, depth)
      // A path through an alias, or through a scalar where a container now stands, replaces that node whole.
      if (isAlias(node) || (!isMap(node) && !isSeq(node))) return this.replace(slot, node, prefix)
      const last = depth === path.length - 1
      if (isMap(node)) {
        const pair = ownPair(node, String(segment))
        if (!pair) {
          // A map whose merges are being written out already gets every key it does not own.
          if (this.expanding.has(pathKey(prefix)) || edit.op === 'delete') return
          return this.addKey(node, prefix, String(segment), valueAt(this.next, path.slice(0, depth + 1)), parentIndent)
        }
        if (last) return edit.op === 'delete' ? this.removePair(node, pair, prefix) : this.replace({ kind: 'pair', map: node, pair }, pair.value as AnyNode, path)
        slot = { kind: 'pair', map: node, pair }
        parentIndent = column(this.text, itemStart(this.text, pair))
        node = pair.value as AnyNode
      } else {
        const seq = node as YAMLSeq
        const index = Number(segment)
        const item = seq.items[index] as AnyNode
        if (last && edit.op === 'delete') return item ? this.removeItem(seq, index, prefix) : undefined
        if (last || !item) return this.replace({ kind: 'item', seq, index }, item, path.slice(0, depth + 1))
        slot = { kind: 'item', seq, index }
        node = item
      }
    }
  }

  /** Replace the node in `slot` with the concrete next value at `path`. */
  private replace(slot: Slot, node: AnyNode, path: DocumentPath): void {
    const value = valueAt(this.next, path)
    if (slot.kind === 'root') return this.replaceRoot(node, value)
    if (slot.kind === 'item') return this.replaceItem(slot.seq, slot.index, node, value, path.slice(0, -1))
    const { map, pair } = slot
    const nodeRange = range(node)
    const flow = map.flow === true
    const anchor = (node as { anchor?: string } | null)?.anchor
    if (nodeRange && nodeRange[1] > nodeRange[0] && !anchor && !isAlias(node) && tagFits(node, value)) {
      const inPlace = this.inPlace(node, value, flow)
      if (inPlace !== undefined) return this.splice(nodeRange[0], nodeRange[1], inPlace)
    }
    const colon = colonAfter(this.text, range(pair.key as AnyNode)![1])
    const keyIndent = column(this.text, itemStart(this.text, pair))
    // A block collection replaced by another keeps the indentation the user gave it.
    const block = (isMap(node) || isSeq(node)) && !isFlow(node) && nodeRange
    const childIndent = block ? column(this.text, nodeRange[0]) : undefined
    const step = childIndent !== undefined && childIndent > keyIndent ? childIndent - keyIndent : this.step
    const lead = anchor ? ` &${anchor}` : ''
    const keyLineEnd = lineEnd(this.text, colon + 1)
    if (nodeRange && nodeRange[0] >= keyLineEnd) return this.replaceBelow(node, value, colon, keyLineEnd, lead, keyIndent, step, childIndent)
    const blank = (at: number) => this.text[at] === ' ' || this.text[at] === '\t'
    let start = colon + 1
    let end = nodeRange ? nodeRange[1] : start
    if (!nodeRange || nodeRange[1] === nodeRange[0]) {
      // An empty value: its properties (`&a`) go with it; the blanks and a comment after the colon stay.
      end = nodeRange ? nodeRange[0] : start
      while (end > start && blank(end - 1)) end--
      let at = end
      while (blank(at)) at++
      // A block for an empty value on a line of its own goes after that line's blanks.
      if (end === start && !flow && !isInline(value) && (at === this.text.length || this.text[at] === '\n' || this.text[at] === '\r')) start = end = at
    }
    let comment = ''
    // A comment ending the key's line stays there, as written, when a block takes the value's place.
    const trailer = nodeRange && isScalar(node) ? this.text.slice(nodeRange[1], nodeRange[2]) : ''
    const trailing = /^[ \t]*#[^\n]*/.exec(trailer)?.[0]
    if (!flow && !isInline(value) && trailing) {
      // With the blanks before it: an empty value's range starts at the comment, after them.
      let from = nodeRange![1]
      while (from > colon + 1 && blank(from - 1)) from--
      comment = this.text.slice(from, nodeRange![1]) + trailing.replace(/\r$/, '')
      end = nodeRange![1] + trailing.replace(/\r$/, '').length
    }
    let text = lead + comment + renderAfterColon(value, keyIndent, step, flow, childIndent)
    if (this.text[end - 1] === '\n' && !text.endsWith('\n')) text += '\n'
    this.splice(start, end, text)
  }

  /**
   * Replace a value that starts below its key's line (a block collection, or a
   * scalar written under its key). What ends the key's line after a comment,
   * and whole comment or blank lines before the value, stay as written: an
   * inline value goes right after the colon, a block after those lines. The
   * value's own lines go, up to the end of its content (comment lines after it stay).
   */
  private replaceBelow(node: AnyNode, value: unknown, colon: number, keyLineEnd: number, lead: string, keyIndent: number, step: number, childIndent: number | undefined): void {
    const nodeStart = range(node)![0]
    const keyLine = this.text.slice(colon + 1, keyLineEnd).replace(/\r?\n$/, '')
    const comment = /(?:^|[ \t]+)#.*$/.exec(keyLine)?.[0] ?? ''
    const between = this.text.slice(keyLineEnd, this.text.lastIndexOf('\n', nodeStart - 1) + 1)
    // Only comment and blank lines are kept: a line holding the value's properties (`!!map`, `&a`) goes with it.
    const lines = between ? between.replace(/\n$/, '').split('\n').filter((line) => /^[ \t]*(?:#.*)?\r?$/.test(line)) : []
    const end = lineEnd(this.text, contentEnd(node))
    let text: string
    if (isInline(value)) text = `${lead} ${renderScalar(value)}${comment}\n${lines.map((line) => line + '\n').join('')}`
    else text = lead + comment + lines.map((line) => '\n' + line).join('') + renderAfterColon(value, keyIndent, step, false, childIndent) + (this.text[end - 1] === '\n' ? '\n' : '')
    this.splice(colon + 1, end, text)
  }

  /**
   * The text that replaces `node`'s own range for `value`, when the change can
   * stay inside that range: a scalar for a scalar (keeping quotes and block
   * style), or a flow collection for a flow collection.
   */
  private inPlace(node: AnyNode, value: unknown, flow: boolean): string | undefined {
    if (isScalar(node) && isInline(value)) {
      const scalar = node as Scalar
      if ((scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED') && typeof value === 'string') {
        const content = this.text.indexOf('\n', range(node)![0]) + 1
        const indent = column(this.text, content + (/^ */.exec(this.text.slice(content))?.[0].length ?? 0))
        const block = renderBlockScalar(value, scalar, indent || this.step)
        return block ?? JSON.stringify(value) + '\n'
      }
      if (scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED') return renderScalar(value, undefined, flow) + '\n'
      return renderScalar(value, scalar, flow)
    }
    if (isFlow(node) && !isInline(value) && Array.isArray(value) === isSeq(node)) return renderFlow(value, isPadded(this.text, node))
    return undefined
  }

  private replaceItem(seq: YAMLSeq, index: number, node: AnyNode, value: unknown, seqPath: DocumentPath): void {
    const nodeRange = range(node)
    if (!nodeRange) return this.appendItem(seq, value, seqPath)
    // A tag the new value does not fit goes with the old value (an anchor is written again).
    const anchor = (node as { anchor?: string } | null)?.anchor
    const start = tagFits(node, value) ? nodeRange[0] : propertiesStart(this.text, nodeRange[0])
    const lead = start < nodeRange[0] && anchor ? `&${anchor} ` : ''
    if (seq.flow) return this.splice(start, nodeRange[1], lead + renderFlow(value))
    if (!isAlias(node) && !anchor && start === nodeRange[0]) {
      const inPlace = this.inPlace(node, value, false)
      if (inPlace !== undefined) return this.splice(nodeRange[0], nodeRange[1], inPlace)
    }
    const indent = column(this.text, nodeRange[0])
    let text = isInline(value) ? renderScalar(value) : renderBlock(value as object, indent, this.step).slice(indent)
    if (this.text[nodeRange[1] - 1] === '\n' && !text.endsWith('\n')) text += '\n'
    this.splice(start, nodeRange[1], lead + text)
  }

  private appendItem(seq: YAMLSeq, value: unknown, seqPath: DocumentPath): void {
    const seqRange = range(seq)!
    if (seq.flow) return void this.flowChange(seq, seqPath).added.push(renderFlow(value))
    const indent = column(this.text, seqRange[0])
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, indent + 2, this.step).slice(indent + 2)
    const last = seq.items[seq.items.length - 1] as AnyNode
    this.insertLine(Math.max(range(last)?.[2] ?? 0, seqRange[1]), `${' '.repeat(indent)}- ${body}`)
  }

  private removeItem(seq: YAMLSeq, index: number, seqPath: DocumentPath): void {
    const item = seq.items[index] as AnyNode
    if (seq.flow) return void this.flowChange(seq, seqPath).removed.add(index)
    const itemRange = range(item)!
    const start = this.text.lastIndexOf('\n', itemRange[0] - 1) + 1
    this.splice(start, lineEnd(this.text, contentEnd(item)), '')
  }

  private replaceRoot(node: AnyNode, value: unknown): void {
    if (this.rootReplaced) return
    this.rootReplaced = true
    const nodeRange = range(node)
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, 0, this.step)
    // The sections of an empty document go after what is there, but before a `...` that ends the document
    // (after it, they would be a second document).
    const from = nodeRange?.[1] ?? 0
    const marker = /^\.\.\.(?:[ \t]|\r?$)/m.exec(this.text.slice(from))
    const at = marker ? from + marker.index : this.text.length
    if (!nodeRange || nodeRange[0] === nodeRange[1]) return this.insertLine(at, body)
    if (isScalar(node) && node.value === null) {
      // A `~` or `null` root: only that token goes (its line, when nothing else is on it); its comment stays.
      const lineStart = this.text.lastIndexOf('\n', nodeRange[0] - 1) + 1
      const alone = lineStart === nodeRange[0] && /^[ \t]*\r?(?:\n|$)/.test(this.text.slice(nodeRange[1]))
      const end = alone ? lineEnd(this.text, nodeRange[1] + 1) : nodeRange[1]
      this.splice(nodeRange[0], end, '')
      const last = end === at ? this.text.slice(0, nodeRange[0]).at(-1) : this.text[at - 1]
      return this.splice(at, at, (last !== undefined && last !== '\n' ? '\n' : '') + body + '\n')
    }
    this.splice(nodeRange[0], nodeRange[1], body + (this.text[nodeRange[1] - 1] === '\n' ? '\n' : ''))
  }

  private addKey(map: YAMLMap, mapPath: DocumentPath, key: string, value: unknown, parentIndent: number | undefined): void {
    const mapRange = range(map)!
    if (map.flow) return void this.flowChange(map, mapPath).added.push(`${renderKey(key, true)}: ${renderFlow(value)}`)
    const indent = column(this.text, map.items.length ? itemStart(this.text, map.items[0] as Pair) : mapRange[0])
    // Nested content follows this map's own step from its parent, where it has one.
    const step = parentIndent !== undefined && indent > parentIndent ? indent - parentIndent : this.step
    const last = map.items[map.items.length - 1]
    const end = last ? Math.max(range(last.value as AnyNode)?.[2] ?? 0, range(last.key as AnyNode)?.[2] ?? 0) : mapRange[1]
    this.insertLine(end, ' '.repeat(indent) + renderBlockKey(key, indent) + ':' + renderAfterColon(value, indent, step, false))
  }

  private flowChange(collection: YAMLMap | YAMLSeq, path: DocumentPath) {
    let change = this.flowChanges.get(collection)
    if (!change) this.flowChanges.set(collection, (change = { path, removed: new Set(), added: [] }))
    return change
  }

  private removePair(map: YAMLMap, pair: Pair, mapPath: DocumentPath): void {
    if (map.flow) return void this.flowChange(map, mapPath).removed.add(map.items.indexOf(pair))
    const removed = this.blockRemovals.get(map) ?? new Set<number>()
    removed.add(map.items.indexOf(pair))
    this.blockRemovals.set(map, removed)
  }

  /** Write a map's `<<` merges out: each merge pair gives way to the next value's keys the map does not own. */
  private expandMerges(map: YAMLMap, path: DocumentPath): void {
    const value = valueAt(this.next, path)
    const merges = map.items.filter((pair) => isMergePair(pair as Pair)) as Pair[]
    if (!merges.length || !value || typeof value !== 'object' || Array.isArray(value) || map.flow) {
      return this.splice(range(map)![0], range(map)![1], map.flow ? renderFlow(value) : renderBlock(value as object, column(this.text, range(map)![0]), this.step) + '\n')
    }
    const owned = new Set(map.items.filter((pair) => !isMergePair(pair as Pair)).map((pair) => keyText(pair as Pair)))
    const concrete = Object.fromEntries(Object.entries(value).filter(([key]) => !owned.has(key)))
    const indent = column(this.text, range(map.items[0]!.key as AnyNode)![0])
    merges.forEach((pair, index) => {
      const keyRange = range(pair.key as AnyNode)!
      const lineStart = this.text.lastIndexOf('\n', keyRange[0] - 1) + 1
      const end = lineEnd(this.text, pairEnd(pair))
      const sharesLine = this.text.slice(lineStart, keyRange[0]).trim() !== ''
      const lines = index === 0 && Object.keys(concrete).length ? renderBlock(concrete, indent, this.step) + '\n' : ''
      this.splice(sharesLine ? keyRange[0] : lineStart, end, sharesLine ? lines.slice(indent) : lines)
    })
  }

  /** Insert a whole line at `offset` (the start of a line, or the end of the text). */
  private insertLine(offset: number, line: string): void {
    const needsBreak = offset > 0 && this.text[offset - 1] !== '\n'
    this.splice(offset, offset, (needsBreak ? '\n' : '') + line + '\n')
  }

  private splice(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text: this.eol === '\n' ? text : text.replace(/\r?\n/g, this.eol) })
  }
}
