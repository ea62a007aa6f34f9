import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type Node, type Pair, type ParsedNode, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml'
import { valueAt } from 'dsh-settings/data'
import type { DocumentEdit, DocumentPath } from './diff.ts'
import { findAliasUses, findAnchors, isMergePair, mergedKeys } from './yaml-anchors.ts'
import { isInline, renderAfterColon, renderBlock, renderBlockKey, renderBlockScalar, renderFlow, renderKey, renderScalar } from './render.ts'

/** One replacement of the byte range `[start, end)` of the source text. */
interface Splice {
  start: number
  end: number
  text: string
}

/** Where a node sits: as a map pair's value, as a sequence item, or as the document root. */
type Slot =
  | { kind: 'pair'; map: YAMLMap; pair: Pair }
  | { kind: 'item'; seq: YAMLSeq; index: number }
  | { kind: 'root' }

type AnyNode = Node | ParsedNode | null | undefined

function range(node: AnyNode): [number, number, number] | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range ?? undefined
}

function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String((pair.key as Scalar).value) : undefined
}

/** The pair of `map` whose key is `segment`, among its own pairs (merge pairs excluded). */
function ownPair(map: YAMLMap, segment: string): Pair | undefined {
  return map.items.find((pair) => !isMergePair(pair as Pair) && keyText(pair as Pair) === segment) as Pair | undefined
}

function isFlow(node: AnyNode): boolean {
  return (isMap(node) || isSeq(node)) && (node as YAMLMap).flow === true
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
  private readonly flowChanges = new Map<YAMLMap | YAMLSeq, { path: DocumentPath; removed: Set<number>; added: string[] }>()
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
  ) {
    this.step = this.detectStep()
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
    this.planFlowChanges()
    this.planBlockRemovals()
    const ordered = this.splices.map((splice, order) => ({ ...splice, order }))
    // By offset; at one offset insertions come before a replacement, and a wider replacement before a narrower one.
    ordered.sort((a, b) => a.start - b.start || Number(b.start === b.end) - Number(a.start === a.end) || b.end - a.end || a.order - b.order)
    const kept: Splice[] = []
    for (const splice of ordered) {
      const last = kept[kept.length - 1]
      const insertion = splice.start === splice.end
      if (last && last.end > last.start) {
        const covered = insertion ? splice.start > last.start && splice.start < last.end : splice.start >= last.start && splice.end <= last.end
        if (covered) continue
        if (splice.start < last.end) throw new Error('overlapping YAML edits')
      }
      if (last && insertion && last.start === last.end && splice.start === last.start) {
        last.text += splice.text
        continue
      }
      kept.push({ start: splice.start, end: splice.end, text: splice.text })
    }
    let result = this.text
    for (const splice of kept.reverse()) result = result.slice(0, splice.start) + splice.text + result.slice(splice.end)
    return result
  }

  /** Column of an offset: its distance from the start of its line. */
  private column(offset: number): number {
    return offset - (this.text.lastIndexOf('\n', offset - 1) + 1)
  }

  private detectStep(): number {
    const root = this.doc.contents
    if (!isMap(root)) return 2
    for (const pair of root.items) {
      const keyRange = range(pair.key as AnyNode)
      const valueRange = range(pair.value as AnyNode)
      if (keyRange && valueRange && (isMap(pair.value) || isSeq(pair.value)) && !isFlow(pair.value as AnyNode)) {
        const step = this.column(valueRange[0]) - this.column(keyRange[0])
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
        parentIndent = this.column(range(pair.key as AnyNode)![0])
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
    if (nodeRange && nodeRange[1] > nodeRange[0] && !anchor && !isAlias(node)) {
      const inPlace = this.inPlace(node, value, flow)
      if (inPlace !== undefined) return this.splice(nodeRange[0], nodeRange[1], inPlace)
    }
    const keyRange = range(pair.key as AnyNode)!
    const colon = this.text.indexOf(':', keyRange[1])
    const keyIndent = this.column(keyRange[0])
    // A block collection replaced by another keeps the indentation the user gave it.
    const block = (isMap(node) || isSeq(node)) && !isFlow(node) && nodeRange
    const childIndent = block ? this.column(nodeRange[0]) : undefined
    const step = childIndent !== undefined && childIndent > keyIndent ? childIndent - keyIndent : this.step
    let end = nodeRange ? nodeRange[1] : colon + 1
    let lead = anchor ? ` &${anchor}` : ''
    // A scalar's inline comment stays on the key's line when a block takes its place.
    const trailer = nodeRange && isScalar(node) ? this.text.slice(nodeRange[1], nodeRange[2]) : ''
    if (!flow && !isInline(value) && /^[ \t]*#/.test(trailer)) {
      lead += ' ' + trailer.trim()
      end = nodeRange![1] + trailer.replace(/\n$/, '').length
    }
    let text = lead + renderAfterColon(value, keyIndent, step, flow, childIndent)
    if (this.text[end - 1] === '\n' && !text.endsWith('\n')) text += '\n'
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
        const indent = this.column(content + (/^ */.exec(this.text.slice(content))?.[0].length ?? 0))
        const block = renderBlockScalar(value, scalar, indent || this.step)
        return block ?? JSON.stringify(value) + '\n'
      }
      if (scalar.type === 'BLOCK_LITERAL' || scalar.type === 'BLOCK_FOLDED') return renderScalar(value, undefined, flow) + '\n'
      return renderScalar(value, scalar, flow)
    }
    if (isFlow(node) && !isInline(value) && Array.isArray(value) === isSeq(node)) return renderFlow(value, this.padded(node))
    return undefined
  }

  /** Whether a flow collection is written with inner padding, `{ a: 1 }`. */
  private padded(node: AnyNode): boolean {
    const nodeRange = range(node)
    return !!nodeRange && this.text[nodeRange[0] + 1] === ' '
  }

  private replaceItem(seq: YAMLSeq, index: number, node: AnyNode, value: unknown, seqPath: DocumentPath): void {
    const nodeRange = range(node)
    if (!nodeRange) return this.appendItem(seq, value, seqPath)
    if (seq.flow) return this.splice(nodeRange[0], nodeRange[1], renderFlow(value))
    if (!isAlias(node) && !(node as { anchor?: string }).anchor) {
      const inPlace = this.inPlace(node, value, false)
      if (inPlace !== undefined) return this.splice(nodeRange[0], nodeRange[1], inPlace)
    }
    const indent = this.column(nodeRange[0])
    let text = isInline(value) ? renderScalar(value) : renderBlock(value as object, indent, this.step).slice(indent)
    if (this.text[nodeRange[1] - 1] === '\n' && !text.endsWith('\n')) text += '\n'
    this.splice(nodeRange[0], nodeRange[1], text)
  }

  private appendItem(seq: YAMLSeq, value: unknown, seqPath: DocumentPath): void {
    const seqRange = range(seq)!
    if (seq.flow) return void this.flowChange(seq, seqPath).added.push(renderFlow(value))
    const indent = this.column(seqRange[0])
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, indent + 2, this.step).slice(indent + 2)
    const last = seq.items[seq.items.length - 1] as AnyNode
    this.insertLine(Math.max(range(last)?.[2] ?? 0, seqRange[1]), `${' '.repeat(indent)}- ${body}`)
  }

  private removeItem(seq: YAMLSeq, index: number, seqPath: DocumentPath): void {
    const item = seq.items[index] as AnyNode
    if (seq.flow) return void this.flowChange(seq, seqPath).removed.add(index)
    const itemRange = range(item)!
    const start = this.text.lastIndexOf('\n', itemRange[0] - 1) + 1
    this.splice(start, this.lineEnd(itemRange[2]), '')
  }

  private replaceRoot(node: AnyNode, value: unknown): void {
    if (this.rootReplaced) return
    this.rootReplaced = true
    const nodeRange = range(node)
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, 0, this.step)
    if (!nodeRange || nodeRange[0] === nodeRange[1]) {
      // An empty document, perhaps just a `---` marker or comments: the sections go after what is there.
      return this.insertLine(this.text.length, body)
    }
    this.splice(nodeRange[0], nodeRange[1], body + (this.text[nodeRange[1] - 1] === '\n' ? '\n' : ''))
  }

  private addKey(map: YAMLMap, mapPath: DocumentPath, key: string, value: unknown, parentIndent: number | undefined): void {
    const mapRange = range(map)!
    if (map.flow) return void this.flowChange(map, mapPath).added.push(`${renderKey(key, true)}: ${renderFlow(value)}`)
    const indent = this.column(range(map.items[0]?.key as AnyNode)?.[0] ?? mapRange[0])
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

  /**
   * Apply flow removals and additions. Each run of adjacent removed items goes
   * with the commas around it: up to the next kept item, or from the previous
   * kept item when the run ends the collection. Additions go before the
   * closing bracket. A collection losing every item is written afresh.
   */
  private planFlowChanges(): void {
    const bounds = (item: unknown): [number, number] => {
      if (isPair(item)) return [range(item.key as AnyNode)![0], (range(item.value as AnyNode) ?? range(item.key as AnyNode))![1]]
      const itemRange = range(item as AnyNode)!
      return [itemRange[0], itemRange[1]]
    }
    for (const [collection, { path, removed, added }] of this.flowChanges) {
      const { items } = collection
      const collectionRange = range(collection)!
      if (removed.size === items.length && removed.size) {
        this.splice(collectionRange[0], collectionRange[1], renderFlow(valueAt(this.next, path), this.padded(collection)))
        continue
      }
      for (let first = 0; first < items.length; first++) {
        if (!removed.has(first)) continue
        let last = first
        while (removed.has(last + 1)) last++
        if (last + 1 < items.length) this.splice(bounds(items[first])[0], bounds(items[last + 1])[0], '')
        else this.splice(bounds(items[first - 1])[1], bounds(items[last])[1], '')
        first = last
      }
      if (!added.length) continue
      const close = this.text.lastIndexOf(isMap(collection) ? '}' : ']', collectionRange[1])
      const at = this.padded(collection) && this.text[close - 1] === ' ' ? close - 1 : close
      this.splice(at, at, (items.length ? ', ' : '') + added.join(', '))
    }
  }

  private removePair(map: YAMLMap, pair: Pair, mapPath: DocumentPath): void {
    if (map.flow) return void this.flowChange(map, mapPath).removed.add(map.items.indexOf(pair))
    const removed = this.blockRemovals.get(map) ?? new Set<number>()
    removed.add(map.items.indexOf(pair))
    this.blockRemovals.set(map, removed)
  }

  /**
   * Remove block pairs line by line. The first key of a list item shares its
   * line with the item's `- `, so a run of removed pairs at the start of such
   * a map is cut up to the first kept key, which moves up onto the dash line.
   */
  private planBlockRemovals(): void {
    for (const [map, removed] of this.blockRemovals) {
      const pairs = map.items as Pair[]
      const firstKey = range(pairs[0]!.key as AnyNode)![0]
      let from = 0
      if (removed.has(0) && this.text.slice(this.text.lastIndexOf('\n', firstKey - 1) + 1, firstKey).trim()) {
        while (removed.has(from)) from++
        if (pairs[from]) this.splice(firstKey, range(pairs[from]!.key as AnyNode)![0], '')
        else from = 0
      }
      for (let index = from; index < pairs.length; index++) {
        if (!removed.has(index)) continue
        const keyRange = range(pairs[index]!.key as AnyNode)!
        const end = this.lineEnd(Math.max(range(pairs[index]!.value as AnyNode)?.[2] ?? 0, keyRange[2]))
        this.splice(this.text.lastIndexOf('\n', keyRange[0] - 1) + 1, end, '')
      }
    }
  }

  /** Write a map's `<<` merges out: each merge pair gives way to the next value's keys the map does not own. */
  private expandMerges(map: YAMLMap, path: DocumentPath): void {
    const value = valueAt(this.next, path)
    const merges = map.items.filter((pair) => isMergePair(pair as Pair)) as Pair[]
    if (!merges.length || !value || typeof value !== 'object' || Array.isArray(value) || map.flow) {
      return this.splice(range(map)![0], range(map)![1], map.flow ? renderFlow(value) : renderBlock(value as object, this.column(range(map)![0]), this.step) + '\n')
    }
    const owned = new Set(map.items.filter((pair) => !isMergePair(pair as Pair)).map((pair) => keyText(pair as Pair)))
    const concrete = Object.fromEntries(Object.entries(value).filter(([key]) => !owned.has(key)))
    const indent = this.column(range(map.items[0]!.key as AnyNode)![0])
    merges.forEach((pair, index) => {
      const keyRange = range(pair.key as AnyNode)!
      const lineStart = this.text.lastIndexOf('\n', keyRange[0] - 1) + 1
      const end = this.lineEnd(Math.max(range(pair.value as AnyNode)?.[2] ?? 0, keyRange[2]))
      const sharesLine = this.text.slice(lineStart, keyRange[0]).trim() !== ''
      const lines = index === 0 && Object.keys(concrete).length ? renderBlock(concrete, indent, this.step) + '\n' : ''
      this.splice(sharesLine ? keyRange[0] : lineStart, end, sharesLine ? lines.slice(indent) : lines)
    })
  }

  /** The offset just past the newline ending the line that holds `offset - 1`. */
  private lineEnd(offset: number): number {
    if (this.text[offset - 1] === '\n') return offset
    const newline = this.text.indexOf('\n', offset)
    return newline === -1 ? this.text.length : newline + 1
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
