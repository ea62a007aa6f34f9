import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Pair, type ParsedNode, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml'
import { valueAt, type DocumentEdit, type DocumentPath } from './diff.ts'
import { isInline, renderAfterColon, renderBlock, renderFlow, renderKey, renderScalar } from './render.ts'

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

/** Column of an offset: its distance from the start of its line. */
function column(text: string, offset: number): number {
  return offset - (text.lastIndexOf('\n', offset - 1) + 1)
}

function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String((pair.key as Scalar).value) : undefined
}

/** The pair of `map` whose key is `segment`, among its own pairs (merge keys `<<` excluded). */
function ownPair(map: YAMLMap, segment: string): Pair | undefined {
  return map.items.find((pair) => keyText(pair) === segment && keyText(pair) !== '<<') as Pair | undefined
}

/**
 * Text edits that apply document edits to YAML source, touching only the
 * bytes of the values that change, the keys added and the keys removed.
 */
export class YamlEditor {
  private readonly splices: Splice[] = []
  private rootReplaced = false
  /** Indentation step for new nested blocks: the document's own, else 2. */
  private readonly step: number

  constructor(
    private readonly text: string,
    private readonly doc: Document.Parsed,
    private readonly next: unknown,
  ) {
    this.step = this.detectStep()
  }

  /**
   * Apply `edits` and return the edited text. Splices are applied from the end
   * so earlier offsets stay valid; one that falls inside a wider replacement is
   * covered by it, and insertions at one offset keep their planned order.
   * @throws {Error} when two splices overlap without one containing the other.
   */
  apply(edits: readonly DocumentEdit[]): string {
    for (const edit of edits) this.plan(edit)
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

  private detectStep(): number {
    const root = this.doc.contents
    if (!isMap(root)) return 2
    for (const pair of root.items) {
      const value = pair.value as AnyNode
      const keyRange = range(pair.key as AnyNode)
      const valueRange = range(value)
      if (keyRange && valueRange && (isMap(value) || isSeq(value)) && !(value as YAMLMap).flow) {
        const step = column(this.text, valueRange[0]) - column(this.text, keyRange[0])
        if (step > 0) return step
      }
    }
    return 2
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
          if (edit.op === 'delete') {
            // The key comes from a merge: the map must become concrete to lose it.
            return this.replace(slot, node, prefix)
          }
          return this.addKey(node, String(segment), valueAt(this.next, path.slice(0, depth + 1)), parentIndent)
        }
        if (last) return edit.op === 'delete' ? this.removePair(node, pair) : this.replace({ kind: 'pair', map: node, pair }, pair.value as AnyNode, path)
        slot = { kind: 'pair', map: node, pair }
        parentIndent = column(this.text, range(pair.key as AnyNode)![0])
        node = pair.value as AnyNode
      } else {
        const seq = node as YAMLSeq
        const index = Number(segment)
        if (last || !seq.items[index]) return this.replace({ kind: 'item', seq, index }, seq.items[index] as AnyNode, path.slice(0, depth + 1))
        slot = { kind: 'item', seq, index }
        node = seq.items[index] as AnyNode
      }
    }
  }

  /** Replace the node in `slot` with the concrete next value at `path`. */
  private replace(slot: Slot, node: AnyNode, path: DocumentPath): void {
    const value = valueAt(this.next, path)
    if (slot.kind === 'root') return this.replaceRoot(node, value)
    if (slot.kind === 'item') return this.replaceItem(slot.seq, slot.index, node, value)
    const { map, pair } = slot
    const nodeRange = range(node)
    // Same-kind scalar edits keep the value's surroundings, including an inline comment.
    if (isScalar(node) && !isAlias(node) && isInline(value) && nodeRange && nodeRange[1] > nodeRange[0] && !(node as Scalar).anchor) {
      return this.splice(nodeRange[0], nodeRange[1], renderScalar(value, node as Scalar))
    }
    const keyRange = range(pair.key as AnyNode)!
    const colon = this.text.indexOf(':', keyRange[1])
    const end = nodeRange ? nodeRange[1] : colon + 1
    const anchor = (node as { anchor?: string } | null)?.anchor
    const keyIndent = column(this.text, keyRange[0])
    // A block collection replaced by another keeps the indentation the user gave it.
    const block = (isMap(node) || isSeq(node)) && !(node as YAMLMap).flow && nodeRange
    const childIndent = block ? column(this.text, nodeRange[0]) : undefined
    const step = childIndent !== undefined && childIndent > keyIndent ? childIndent - keyIndent : this.step
    let text = (anchor ? ` &${anchor}` : '') + renderAfterColon(value, keyIndent, step, map.flow === true, childIndent)
    if (this.text[end - 1] === '\n' && !text.endsWith('\n')) text += '\n'
    this.splice(colon + 1, end, text)
  }

  private replaceItem(seq: YAMLSeq, index: number, node: AnyNode, value: unknown): void {
    const nodeRange = range(node)
    if (!nodeRange) return this.appendItem(seq, value)
    if (seq.flow) return this.splice(nodeRange[0], nodeRange[1], renderFlow(value))
    const indent = column(this.text, nodeRange[0])
    let text = isInline(value) ? renderScalar(value, isScalar(node) ? (node as Scalar) : undefined) : renderBlock(value as object, indent, this.step).slice(indent)
    if (this.text[nodeRange[1] - 1] === '\n' && !text.endsWith('\n')) text += '\n'
    this.splice(nodeRange[0], nodeRange[1], text)
  }

  private appendItem(seq: YAMLSeq, value: unknown): void {
    const seqRange = range(seq)!
    if (seq.flow) {
      const close = this.text.lastIndexOf(']', seqRange[1])
      return this.splice(close, close, (seq.items.length ? ', ' : '') + renderFlow(value))
    }
    const indent = column(this.text, seqRange[0])
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, indent + 2, this.step).slice(indent + 2)
    this.insertLine(seqRange[1], `${' '.repeat(indent)}- ${body}`)
  }

  private replaceRoot(node: AnyNode, value: unknown): void {
    if (this.rootReplaced) return
    this.rootReplaced = true
    const nodeRange = range(node)
    const body = isInline(value) ? renderScalar(value) : renderBlock(value as object, 0, this.step)
    if (!nodeRange) return this.insertLine(this.text.length, body)
    this.splice(nodeRange[0], nodeRange[1], body + (this.text[nodeRange[1] - 1] === '\n' ? '\n' : ''))
  }

  private addKey(map: YAMLMap, key: string, value: unknown, parentIndent: number | undefined): void {
    const mapRange = range(map)!
    if (map.flow) {
      const close = this.text.lastIndexOf('}', mapRange[1])
      return this.splice(close, close, (map.items.length ? ', ' : '') + `${renderKey(key)}: ${renderFlow(value)}`)
    }
    const indent = column(this.text, range(map.items[0]?.key as AnyNode)?.[0] ?? mapRange[0])
    // Nested content follows this map's own step from its parent, where it has one.
    const step = parentIndent !== undefined && indent > parentIndent ? indent - parentIndent : this.step
    const last = map.items[map.items.length - 1]
    const end = last ? Math.max(range(last.value as AnyNode)?.[2] ?? 0, range(last.key as AnyNode)?.[2] ?? 0) : mapRange[1]
    this.insertLine(end, ' '.repeat(indent) + renderKey(key) + ':' + renderAfterColon(value, indent, step, false))
  }

  private removePair(map: YAMLMap, pair: Pair): void {
    const keyRange = range(pair.key as AnyNode)!
    const valueRange = range(pair.value as AnyNode)
    if (map.flow) {
      let start = keyRange[0]
      let end = valueRange ? valueRange[1] : keyRange[1]
      const after = /^\s*,\s*/.exec(this.text.slice(end))
      if (after) end += after[0].length
      else {
        const before = /\s*,\s*$/.exec(this.text.slice(0, start))
        if (before) start -= before[0].length
      }
      return this.splice(start, end, '')
    }
    const start = this.text.lastIndexOf('\n', keyRange[0] - 1) + 1
    let end = Math.max(valueRange?.[2] ?? 0, keyRange[2])
    if (this.text[end - 1] !== '\n') {
      const newline = this.text.indexOf('\n', end)
      end = newline === -1 ? this.text.length : newline + 1
    }
    this.splice(start, end, '')
  }

  /** Insert a whole line at `offset` (the start of a line, or the end of the text). */
  private insertLine(offset: number, line: string): void {
    const needsBreak = offset > 0 && this.text[offset - 1] !== '\n'
    this.splice(offset, offset, (needsBreak ? '\n' : '') + line + '\n')
  }

  private splice(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text })
  }
}
