/**
 * A YAML (or JSON: JSON is YAML) text parsed the way the file provider parses a
 * settings document, with the positions of its nodes: a path of keys inside the
 * parsed data maps to the `line`/`column` of the node that holds it, or of its
 * nearest ancestor when the path leads into something the text does not hold.
 *
 * The parse is the provider's own (`dsh-settings-file/codec`: the same options
 * and the same linear duplicate-key check), so positions and verdicts match
 * what a load says, in time linear in the document.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseYaml, type Document } from 'dsh-settings-file/codec'
import { REFERENCE_TAGS } from 'dsh-settings-secrets'

/** A node of yaml's tree, as far as positions go: its `[start, valueEnd, nodeEnd]` offsets. */
interface YamlNode {
  range?: [number, number, number] | null
}

/** A 1-based place in a text. */
export interface Position {
  line: number
  column: number
}

/** A syntax problem: yaml's error code and where it starts. Never yaml's message, which quotes the source. */
export interface SyntaxProblem {
  code: string
  position: Position
}

/** What `locate` points at: the node holding the value, or the key naming it. */
export type Target = 'value' | 'key'

/** The first line's first column: where a problem of a text that holds nothing points. */
export const START: Position = { line: 1, column: 1 }

/** What places the check's lines: the position of the node at a path of keys inside the document's data. */
export interface Locator {
  locate(path: readonly string[], target?: Target): Position
}

function isIndex(segment: string): boolean {
  return /^(0|[1-9]\d*)$/.test(segment)
}

/** One step down the tree: the node reached, and the key node of the map entry it is the value of (none for a list item). */
interface Step {
  node: unknown
  key: YamlNode | undefined
}

/** A map entry, as far as positions go. */
interface Entry {
  key: unknown
  value: unknown
}

/** A map's entries by key, and its `<<` merge entries. */
interface MapIndex {
  keys: Map<string, Entry>
  merges: Entry[]
}

/** Where each line of a text starts, to turn offsets into lines and columns (as yaml's `LineCounter` does). */
export function lineStarts(text: string): number[] {
  const starts = [0]
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1)
  return starts
}

/** The position of a character offset, given where each line starts ({@link lineStarts}). */
export function positionAt(starts: readonly number[], offset: number): Position {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if (starts[middle]! <= offset) low = middle
    else high = middle - 1
  }
  return { line: low + 1, column: offset - starts[low]! + 1 }
}

/** A parsed text and the positions of its nodes. */
export class PositionedText implements Locator {
  /** yaml's syntax errors and the duplicate keys, in source order; the text has no data when there is one. */
  readonly errors: SyntaxProblem[]
  private readonly starts: number[]
  private readonly indexes = new WeakMap<object, MapIndex>()

  private constructor(
    private readonly doc: Document.Parsed,
    text: string,
    problems: readonly { code: string; offset: number }[],
  ) {
    this.starts = lineStarts(text)
    this.errors = problems.map((problem) => ({ code: problem.code, position: this.at(problem.offset) }))
  }

  /** Parse `text` as the provider does; check `errors` before trusting positions. */
  static parse(text: string): PositionedText {
    // References (`!secret name`) read as the provider reads them, not as unknown tags.
    const { doc, problems } = parseYaml(text, Object.values(REFERENCE_TAGS))
    return new PositionedText(doc, text, problems)
  }

  /** The positions of a tree the provider's parse already made of `text` (a load's own parse, not repeated). */
  static of(text: string, doc: Document.Parsed): PositionedText {
    return new PositionedText(doc, text, [])
  }

  /** The position of a character offset. */
  at(offset: number): Position {
    return positionAt(this.starts, offset)
  }

  /** Where the document's root node starts (the first line for an empty text). */
  root(): Position {
    const range = (this.doc.contents as YamlNode | null)?.range
    return range ? this.at(range[0]) : START
  }

  /**
   * The position of the node at `path` (keys of maps, decimal indexes of lists). `value` points at
   * a scalar value itself and, for a collection or an empty value, at the key that names it;
   * `key` points at the key. A path that leads into something the text does not hold (a missing
   * key, an index past the end, a key under a scalar) points at the nearest ancestor it does hold.
   * Aliases are followed to their anchor and `<<` merges to their sources, as the data reads them.
   */
  locate(path: readonly string[], target: Target = 'value'): Position {
    let step: Step = { node: this.doc.contents, key: undefined }
    let complete = true
    for (const segment of path) {
      const next = this.child(step.node, segment)
      if (!next) {
        complete = false
        break
      }
      step = next
    }
    const node = this.deref(step.node)
    const range = (value: unknown): [number, number, number] | undefined => (value as YamlNode | null)?.range ?? undefined
    const valueRange = range(step.node)
    // A scalar that the text spells out (an empty value has an empty range): the value itself.
    if (complete && target === 'value' && (isScalar(node) || isAlias(step.node)) && valueRange && valueRange[1] > valueRange[0]) {
      return this.at(valueRange[0])
    }
    const keyRange = range(step.key)
    if (keyRange) return this.at(keyRange[0])
    if (valueRange) return this.at(valueRange[0])
    return START
  }

  /** The node an alias stands for (the node itself otherwise); `undefined` for an alias to nothing. */
  private deref(node: unknown): unknown {
    for (let hops = 0; isAlias(node) && hops < 100; hops++) node = node.resolve(this.doc)
    return node
  }

  /**
   * A map's entries by key (the last of repeated keys, as the data holds it; a repeat is a syntax
   * error anyway) and its `<<` merge entries, indexed once per map: every look-up after the first
   * is constant time, so locating many problems in a large map stays linear.
   */
  private indexOf(map: { items: unknown[] }): MapIndex {
    let index = this.indexes.get(map)
    if (index) return index
    index = { keys: new Map(), merges: [] }
    for (const item of map.items) {
      if (!isPair(item) || !isScalar(item.key)) continue
      if (typeof item.key.value === 'symbol') index.merges.push(item)
      else index.keys.set(String(item.key.value), item)
    }
    this.indexes.set(map, index)
    return index
  }

  private child(parent: unknown, segment: string): Step | undefined {
    const node = this.deref(parent)
    if (isSeq(node)) {
      if (!isIndex(segment)) return undefined
      const index = Number(segment)
      return index < node.items.length ? { node: node.items[index], key: undefined } : undefined
    }
    if (!isMap(node)) return undefined
    const { keys, merges } = this.indexOf(node)
    const own = keys.get(segment)
    if (own) return { node: own.value, key: own.key as YamlNode }
    // Not the map's own: a `<<` merge source may hold it (in a list of sources, the first holding it wins).
    for (const pair of merges) {
      const merged = this.deref(pair.value)
      const sources = isSeq(merged) ? merged.items : [merged]
      for (const source of sources) {
        const found = this.child(source, segment)
        if (found) return found
      }
    }
    return undefined
  }
}
