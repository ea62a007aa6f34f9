/**
 * A YAML (or JSON: JSON is YAML) text parsed the way the file provider parses a
 * settings document, with the positions of its nodes: a path of keys inside the
 * parsed data maps to the `line`/`column` of the node that holds it, or of its
 * nearest ancestor when the path leads into something the text does not hold.
 *
 * The workspace root does not depend on `yaml` (pnpm keeps dependencies
 * strict), so it is loaded from dsh-settings-file's own dependencies, as the
 * torture does (scripts/torture/yaml.ts); only what is used here is typed.
 */
import { createRequire } from 'node:module'

/** A node of yaml's tree: its `[start, valueEnd, nodeEnd]` offsets. */
interface YamlNode {
  range?: [number, number, number] | null
}

interface YamlScalar extends YamlNode {
  value: unknown
}

interface YamlPair {
  key: unknown
  value: unknown
}

interface YamlCollection extends YamlNode {
  items: unknown[]
}

interface YamlAlias extends YamlNode {
  resolve(doc: YamlDocument): unknown
}

interface YamlError {
  code: string
  pos: [number, number]
}

interface YamlDocument {
  contents: unknown
  errors: YamlError[]
  toJS(options?: { maxAliasCount?: number }): unknown
}

interface YamlLineCounter {
  linePos(offset: number): { line: number; col: number }
}

interface YamlModule {
  parseDocument(text: string, options: object): YamlDocument
  LineCounter: new () => YamlLineCounter
  isMap(node: unknown): node is YamlCollection
  isSeq(node: unknown): node is YamlCollection
  isScalar(node: unknown): node is YamlScalar
  isPair(node: unknown): node is YamlPair
  isAlias(node: unknown): node is YamlAlias
}

const yaml = createRequire(new URL('../../packages/settings/settings-file/package.json', import.meta.url))('yaml') as YamlModule

/**
 * The file provider's parse options (`YAML_OPTIONS` in packages/settings/settings-file/src/parse.ts):
 * `<<` merge keys resolve, aliases are capped against expansion. The provider turns yaml's duplicate
 * key check off for speed and runs its own; here yaml's own check stays on, to the same effect.
 */
const PARSE_OPTIONS = { merge: true, maxAliasCount: 100 } as const

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

const START: Position = { line: 1, column: 1 }

function isIndex(segment: string): boolean {
  return /^(0|[1-9]\d*)$/.test(segment)
}

/** Whether a value reaches itself (`a: &x [*x]` builds one); shared, acyclic references are fine. */
function isCyclic(value: unknown, ancestors = new Set<object>()): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (ancestors.has(value)) return true
  ancestors.add(value)
  const found = (Array.isArray(value) ? value : Object.values(value)).some((child) => isCyclic(child, ancestors))
  ancestors.delete(value)
  return found
}

/** Why the node tree does not become data, from yaml's error (whose message may name an anchor, so it is never quoted). */
function unreadable(error: unknown): string {
  const message = error instanceof Error ? error.message : ''
  if (message.startsWith('Excessive alias count')) return `uses too many aliases (past the cap on their expansion, maxAliasCount ${PARSE_OPTIONS.maxAliasCount})`
  if (message.startsWith('Unresolved alias')) return 'has an alias to an anchor it does not define (before the alias)'
  if (message.startsWith('Merge sources must be maps')) return 'has a << merge of something that is not a map'
  return `cannot be read (${error instanceof Error ? error.name : typeof error})`
}

/** One step down the tree: the node reached, and the key node of the map entry it is the value of (none for a list item). */
interface Step {
  node: unknown
  key: YamlNode | undefined
}

/** A parsed text and the positions of its nodes. */
export class PositionedText {
  /** yaml's syntax errors (duplicate keys included), in source order; the text has no data when there is one. */
  readonly errors: SyntaxProblem[]
  private readonly lines: YamlLineCounter

  private constructor(
    private readonly doc: YamlDocument,
    lines: YamlLineCounter,
  ) {
    this.lines = lines
    this.errors = doc.errors.map((error) => ({ code: error.code, position: this.at(error.pos[0]) }))
  }

  /** Parse `text`; check `errors` before asking for its data. */
  static parse(text: string): PositionedText {
    const lines = new yaml.LineCounter()
    return new PositionedText(yaml.parseDocument(text, { ...PARSE_OPTIONS, lineCounter: lines }), lines)
  }

  /** The position of a character offset. */
  at(offset: number): Position {
    const { line, col } = this.lines.linePos(offset)
    return { line, column: col }
  }

  /**
   * The text as data (`undefined` for an empty text), or why it cannot be read: an alias past the
   * cap, an alias without its anchor, a merge of a non-map, a value that contains itself.
   */
  data(): { data: unknown } | { problem: string } {
    let data: unknown
    try {
      data = this.doc.toJS({ maxAliasCount: PARSE_OPTIONS.maxAliasCount })
    } catch (error) {
      return { problem: unreadable(error) }
    }
    if (isCyclic(data)) return { problem: 'holds an alias that contains itself' }
    return { data: data ?? undefined }
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
    if (complete && target === 'value' && (yaml.isScalar(node) || yaml.isAlias(step.node)) && valueRange && valueRange[1] > valueRange[0]) {
      return this.at(valueRange[0])
    }
    const keyRange = range(step.key)
    if (keyRange) return this.at(keyRange[0])
    if (valueRange) return this.at(valueRange[0])
    return START
  }

  /** The node an alias stands for (the node itself otherwise); `undefined` for an alias to nothing. */
  private deref(node: unknown): unknown {
    for (let hops = 0; yaml.isAlias(node) && hops < 100; hops++) node = node.resolve(this.doc)
    return node
  }

  private child(parent: unknown, segment: string): Step | undefined {
    const node = this.deref(parent)
    if (yaml.isSeq(node)) {
      if (!isIndex(segment)) return undefined
      const index = Number(segment)
      return index < node.items.length ? { node: node.items[index], key: undefined } : undefined
    }
    if (!yaml.isMap(node)) return undefined
    const pairs = node.items.filter((item): item is YamlPair => yaml.isPair(item))
    // The last of repeated keys is the one the data holds (a repeat is a syntax error anyway).
    for (let index = pairs.length - 1; index >= 0; index--) {
      const pair = pairs[index]!
      if (yaml.isScalar(pair.key) && typeof pair.key.value !== 'symbol' && String(pair.key.value) === segment) {
        return { node: pair.value, key: pair.key }
      }
    }
    // Not the map's own: a `<<` merge source may hold it (in a list of sources, the first holding it wins).
    for (const pair of pairs) {
      if (!yaml.isScalar(pair.key) || typeof pair.key.value !== 'symbol') continue
      const merged = this.deref(pair.value)
      const sources = yaml.isSeq(merged) ? merged.items : [merged]
      for (const source of sources) {
        const found = this.child(source, segment)
        if (found) return found
      }
    }
    return undefined
  }
}
