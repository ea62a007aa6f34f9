import { dataEqual, setOwn } from './data.ts'
import { parse as parseJsonc, type ParseError } from 'jsonc-parser'
import { isMap, isPair, isScalar, isSeq, parseDocument, Parser, type Document, type Node } from 'yaml'
import { DocumentError, DocumentNotAMapError, DocumentTooLargeError } from './errors.ts'
import { segmentsOf, segmentsOfPlainText, type Segment } from './segments.ts'
import { readYamlData } from './yaml-fast-read.ts'
import { DEFAULT_MAX_DOCUMENT_BYTES, sizeOver } from './size.ts'
import type { DocumentFormat } from './format.ts'
import { keptCustomTags, withKeptTags } from './tagged.ts'

/**
 * Parse options: `<<` merge keys resolve, aliases are capped against expansion
 * attacks. yaml's own duplicate-key check is off (`uniqueKeys: false`): it scans
 * a map's earlier keys for every key, so a map of n keys took O(n²) (40,000
 * keys: 10 s). {@link parseYaml} checks duplicates itself, with a set per map.
 * `logLevel: 'error'`: yaml would otherwise print a process warning quoting a
 * collection key it turns into a string (`? [a, b]: x`), document text on stderr.
 */
export const YAML_OPTIONS = { merge: true, maxAliasCount: 100, uniqueKeys: false, logLevel: 'error' } as const

/** One parse problem: where it starts (offset) and yaml's error code. */
interface YamlProblem {
  code: string
  offset: number
  /** yaml's own 1-based position of the offset, when it gave one. */
  linePos?: { line: number; col: number }
}

/**
 * Parse YAML text with {@link YAML_OPTIONS} and report its problems: yaml's
 * errors and the duplicate keys (yaml's `DUPLICATE_KEY`, at the second key),
 * in source order. Every parse of document text goes through here, so a check
 * of an edit reads the text exactly as a load does. Scalars with one of `tags`
 * (else the tags the codec call in progress keeps) read as `TaggedScalar`s.
 */
export function parseYaml(text: string, tags?: readonly string[]): { doc: Document.Parsed; problems: YamlProblem[] } {
  const customTags = keptCustomTags(tags)
  const doc = parseDocument(text, customTags ? { ...YAML_OPTIONS, customTags } : YAML_OPTIONS)
  const errors: YamlProblem[] = doc.errors.map((error) => ({ code: error.code, offset: error.pos[0], ...(error.linePos ? { linePos: error.linePos[0] } : {}) }))
  const duplicates = duplicateKeys(doc, text)
  if (!duplicates.length) return { doc, problems: errors }
  // Both lists are in source order (yaml reports as it composes): merge them, yaml's first on a tie.
  const problems: YamlProblem[] = []
  let d = 0
  for (const error of errors) {
    while (d < duplicates.length && duplicates[d]! < error.offset) problems.push({ code: 'DUPLICATE_KEY', offset: duplicates[d++]! })
    problems.push(error)
  }
  while (d < duplicates.length) problems.push({ code: 'DUPLICATE_KEY', offset: duplicates[d++]! })
  return { doc, problems }
}

/** Where a key starts: an empty key (`: value`) at its `:`, as yaml reports it, rather than where the blank before it starts. */
function keyStart(key: Node, text: string): number {
  const [start, end] = key.range ?? [0, 0]
  if (start !== end) return start
  let at = start
  while (text[at] === ' ' || text[at] === '\t') at++
  return at
}

/**
 * The offsets of the keys that repeat an earlier key of their map, as yaml's
 * `uniqueKeys` check judged them: two scalar keys are the same when their values
 * are (`===`), so `1` and `1.0` clash, `1` and `"1"` do not, `.nan` never does,
 * and plain `<<` merge keys (each its own symbol) may repeat. Collection and
 * alias keys never clash. One pass with a set per map: linear in the document.
 * The offset is the second key's start; yaml's own check gave the same except
 * for a key following an empty value, which it placed at the end of the line before.
 */
function duplicateKeys(doc: Document.Parsed, text: string): number[] {
  const found: number[] = []
  // An explicit stack: a deeply nested document must not overflow the call stack.
  const stack: unknown[] = [doc.contents]
  while (stack.length) {
    const node = stack.pop()
    if (isMap(node)) {
      const seen = new Set<unknown>()
      for (const pair of node.items) {
        const key = pair.key as Node | null
        if (isScalar(key) && !Number.isNaN(key.value)) {
          if (seen.has(key.value)) found.push(keyStart(key, text))
          else seen.add(key.value)
        }
        stack.push(pair.value, key)
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item)
    } else if (isPair(node)) {
      stack.push(node.value, node.key)
    }
  }
  return found.sort((a, b) => a - b)
}

/** A parsed settings document. */
export interface ParsedDocument {
  /** The plain data: global sections by namespace, scoped ones under `scopes`. */
  data: Record<string, unknown>
  /**
   * The YAML node tree, for byte-stable edits; absent for JSON, and after a
   * write that edited only some top-level entries (parsed again when needed).
   * A text the fast reader took parses it on first access.
   */
  yaml?: Document.Parsed
  /** Where each top-level entry stands in the text, when each can be read and edited alone (see `segmentsOf`). */
  segments?: Segment[]
  /** The tags kept as `TaggedScalar` values (see `parseSettings`' `tags`): every later read and render of this document keeps them too. */
  tags?: readonly string[]
}

/** How {@link parseSettings} reads a document. */
export interface ParseOptions {
  /** Local tags (`!secret`) whose scalars read as a `TaggedScalar` (tag and text) and render back so; others read as yaml reads them. */
  tags?: readonly string[]
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 }
}

/** The tags a root map may carry: `!!map` itself, which `!` (non-specific) also resolves to. */
const MAP_TAG = 'tag:yaml.org,2002:map'
/** yaml's core and YAML 1.1 tags, named in a refusal by their short form (any other tag is "a custom tag", never quoted). */
const KNOWN_TAGS = new Set(['map', 'seq', 'str', 'set', 'omap', 'pairs', 'int', 'float', 'bool', 'null', 'binary', 'timestamp'])

/** The refusal of a root that is not a map of sections, at `offset`: what the root is, never what it holds. */
function notAMap(text: string, file: string, offset: number, what: string): DocumentNotAMapError {
  const at = lineAndColumn(text, offset)
  return new DocumentNotAMapError(file, what, at)
}

/**
 * Check the parsed YAML root: a map with no tag (or `!!map`), or nothing at all
 * (an empty or comment-only document, a `---` with nothing after it, or a
 * plain `~`/`null`: no sections, and a write replaces only that token). A
 * tagged root (`--- !!set`, `!!omap`, `!!str`, a custom tag) or one that is not
 * a map (a sequence, a scalar) is refused at the root's tag, or its first
 * character: its data is not sections, and a write would replace all of it.
 * @throws {DocumentNotAMapError}
 */
function checkYamlRoot(doc: Document.Parsed, text: string, file: string): void {
  const root = doc.contents as Node | null
  if (root === null) return
  const tag = root.tag
  const isPlainNull = isScalar(root) && root.value === null && tag === undefined
  if (isPlainNull || (isMap(root) && (tag === undefined || tag === MAP_TAG))) return
  const shape = isMap(root) ? 'a map' : isSeq(root) ? 'a sequence' : 'a scalar'
  const short = tag?.startsWith('tag:yaml.org,2002:') ? tag.slice('tag:yaml.org,2002:'.length) : undefined
  const tagged = tag === undefined ? '' : short !== undefined && KNOWN_TAGS.has(short) ? ` tagged !!${short}` : ' with a custom tag'
  const start = root.range?.[0] ?? 0
  throw notAMap(text, file, tag === undefined ? start : (tagOffset(text, start) ?? start), `its root is ${shape}${tagged}`)
}

/**
 * Where the root's tag stands: the last tag token of the first document before
 * the root's content (a root's properties are the only thing there). Read from
 * yaml's concrete syntax tree, which keeps every token's offset.
 */
function tagOffset(text: string, rootStart: number): number | undefined {
  let found: number | undefined
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document') continue
    // An explicit stack (a deep tree must not overflow the call stack), entering only what starts before the root's content.
    const stack: unknown[] = [token]
    while (stack.length) {
      const item = stack.pop()
      if (Array.isArray(item)) {
        for (const entry of item) stack.push(entry)
        continue
      }
      if (typeof item !== 'object' || item === null) continue
      const { type, offset } = item as { type?: string; offset?: number }
      if (typeof offset === 'number' && offset >= rootStart) continue
      if (type === 'tag' && typeof offset === 'number') found = Math.max(found ?? offset, offset)
      for (const value of Object.values(item)) if (typeof value === 'object' && value !== null) stack.push(value)
    }
    break
  }
  return found
}

/** Check parsed JSON: an object, or `null` (no sections). */
function checkJsonRoot(data: unknown, text: string, file: string): Record<string, unknown> {
  if (data === null) return {}
  if (typeof data !== 'object' || Array.isArray(data)) {
    const offset = text.search(/[^\s\uFEFF]/)
    throw notAMap(text, file, Math.max(0, offset), `its root is ${Array.isArray(data) ? 'an array' : `a ${typeof data}`}`)
  }
  return data as Record<string, unknown>
}

export { checkNextSize, DEFAULT_MAX_DOCUMENT_BYTES, sizeOver } from './size.ts'

/**
 * Parse document text. Errors give the position (`line L, column C`) and the
 * parser's error code, never the parser's message: those quote the source,
 * which may hold a secret.
 * A text over `maxBytes` (UTF-8) is refused before it is parsed. Scalars with
 * one of `options.tags` read as `TaggedScalar` values (the fast reader takes
 * no tagged text; yaml reads it).
 * @throws {DocumentError} for text that does not parse, or does not read as data.
 * @throws {DocumentNotAMapError} for a root that is not a map.
 * @throws {DocumentTooLargeError} for a text over `maxBytes`.
 */
export function parseSettings(text: string, format: DocumentFormat, file: string, maxBytes = DEFAULT_MAX_DOCUMENT_BYTES, options: ParseOptions = {}): ParsedDocument {
  const tags = options.tags?.length ? options.tags : undefined
  const parsed = withKeptTags(tags, () => parseText(text, format, file, maxBytes))
  if (tags) parsed.tags = tags
  return parsed
}

function parseText(text: string, format: DocumentFormat, file: string, maxBytes: number): ParsedDocument {
  const bytes = sizeOver(text, maxBytes)
  if (bytes !== undefined) throw new DocumentTooLargeError(file, bytes, maxBytes)
  if (format === 'json') {
    if (!text.trim()) return { data: {} }
    try {
      return { data: checkJsonRoot(JSON.parse(text), text, file) }
    } catch (error) {
      if (error instanceof DocumentError) throw error
      const errors: ParseError[] = []
      parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false })
      const at = lineAndColumn(text, errors[0]?.offset ?? 0)
      throw new DocumentError(file, `is not valid JSON at line ${at.line}, column ${at.column}`, at)
    }
  }
  const fast = readYamlData(text)
  if (fast) return withTreeOnDemand(text, fast, segmentsOfPlainText(text, fast))
  const { doc: yaml, problems } = parseYaml(text)
  if (problems.length) {
    const first = problems[0]!
    const at = first.linePos ? { line: first.linePos.line, column: first.linePos.col } : lineAndColumn(text, first.offset)
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    throw new DocumentError(file, `is not valid YAML: ${first.code} at line ${at.line}, column ${at.column}${more}`, at)
  }
  checkYamlRoot(yaml, text, file)
  let data: unknown
  try {
    data = yaml.toJS(YAML_OPTIONS)
  } catch (error) {
    throw new DocumentError(file, unreadable(error))
  }
  if (isCyclic(data)) throw new DocumentError(file, 'holds an alias that contains itself')
  return { data: (data ?? {}) as Record<string, unknown>, yaml, segments: segmentsOf(text, yaml) }
}

/**
 * A parse by the fast reader: the data and the pieces now, `yaml`'s node tree
 * only when something asks for it (an edit the pieces cannot take), parsed
 * from the same text then and kept.
 */
function withTreeOnDemand(text: string, data: Record<string, unknown>, segments: Segment[] | undefined): ParsedDocument {
  let tree: Document.Parsed | undefined
  return {
    data,
    ...(segments ? { segments } : {}),
    get yaml() {
      return (tree ??= parseYaml(text).doc)
    },
  }
}

/**
 * Why the node tree does not become data, from yaml's error (whose message may
 * name an anchor, so it is never quoted).
 */
function unreadable(error: unknown): string {
  const message = error instanceof Error ? error.message : ''
  if (message.startsWith('Excessive alias count')) return `uses too many aliases (past the cap on their expansion, maxAliasCount ${YAML_OPTIONS.maxAliasCount})`
  if (message.startsWith('Unresolved alias')) return 'has an alias to an anchor it does not define (before the alias)'
  if (message.startsWith('Merge sources must be maps')) return 'has a << merge of something that is not a map'
  return `cannot be read: ${error instanceof Error ? error.name : typeof error}`
}

/** Whether a value reaches itself (`a: &x [*x]` builds such a value). Shared, acyclic references are fine. */
function isCyclic(value: unknown, ancestors = new Set<object>()): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (ancestors.has(value)) return true
  ancestors.add(value)
  const children = Array.isArray(value) ? value : Object.values(value)
  const found = children.some((child) => isCyclic(child, ancestors))
  ancestors.delete(value)
  return found
}

/**
 * Parse `text`, a new version of `before` (whose parse is `parsed`), reading
 * only the top-level entries whose bytes changed: the text both share at its
 * start and at its end keeps its entries, and the changed stretch, widened to
 * whole entries, is parsed alone. Sections outside it are the very objects of
 * `parsed.data`, so what compares them later finds them unchanged at once.
 * `undefined` whenever that is not certain to read as a whole parse would (no
 * pieces known, a changed stretch that does not parse alone as plain entries,
 * or a key it shares with the rest): the caller parses the whole text.
 */
export function reparseChanged(before: string, parsed: ParsedDocument, text: string): ParsedDocument | undefined {
  const segments = parsed.segments
  if (!segments?.length) return undefined
  let head = 0
  const shortest = Math.min(before.length, text.length)
  while (head < shortest && before.charCodeAt(head) === text.charCodeAt(head)) head++
  let tail = 0
  while (tail < shortest - head && before.charCodeAt(before.length - 1 - tail) === text.charCodeAt(text.length - 1 - tail)) tail++
  // The entries the changed stretch touches, in the old text: from the one holding its first byte to the one holding its last.
  const changedEnd = before.length - tail
  let first = segments.findIndex((segment) => segment.end > head)
  if (first < 0) first = segments.length - 1
  let last = first
  while (last + 1 < segments.length && segments[last + 1]!.start < Math.max(changedEnd, head + 1)) last++
  // One unchanged entry on each side is read with the stretch: what the stretch does at its edges
  // (a scalar running on into the next line, say) shows as a neighbour read otherwise, or as an error.
  const from = Math.max(0, first - 1)
  const to = Math.min(segments.length - 1, last + 1)
  const start = segments[from]!.start
  const oldEnd = segments[to]!.end
  const end = text.length - (before.length - oldEnd)
  if (end < start) return undefined
  const piece = text.slice(start, end)
  if (end < text.length && !piece.endsWith('\n')) return undefined
  const { doc, problems } = parseYaml(piece)
  if (problems.length) return undefined
  const pieces = piece.trim() ? segmentsOf(piece, doc) : []
  if (!pieces) return undefined
  let read: unknown
  try {
    read = piece.trim() ? doc.toJS(YAML_OPTIONS) : {}
  } catch {
    return undefined
  }
  if (!isPlainRecord(read)) return undefined
  const keys = pieces.map((segment) => segment.key)
  // The neighbours read with the stretch must still be there, first and last, reading as they did.
  for (const neighbour of [from < first ? segments[from]! : undefined, to > last ? segments[to]! : undefined]) {
    if (!neighbour) continue
    const at = neighbour === segments[from] ? 0 : keys.length - 1
    if (keys[at] !== neighbour.key || !dataEqual(read[neighbour.key], parsed.data[neighbour.key])) return undefined
  }
  const outside = [...segments.slice(0, from), ...segments.slice(to + 1)]
  const outsideKeys = new Set(outside.map((segment) => segment.key))
  if (keys.some((key) => outsideKeys.has(key))) return undefined
  // Rebuild the data in text order; entries read as before stay the very objects they were.
  const data: Record<string, unknown> = {}
  for (const segment of segments.slice(0, from)) setOwn(data, segment.key, parsed.data[segment.key])
  for (const key of keys) {
    const same = Object.hasOwn(parsed.data, key) && dataEqual(read[key], parsed.data[key])
    setOwn(data, key, same ? parsed.data[key] : read[key])
  }
  for (const segment of segments.slice(to + 1)) setOwn(data, segment.key, parsed.data[segment.key])
  const shift = text.length - before.length
  const placed: Segment[] = [
    ...segments.slice(0, from),
    ...pieces.map((segment, index) => ({ key: segment.key, start: start + (index ? segment.start : 0), end: start + segment.end })),
    ...segments.slice(to + 1).map((segment) => ({ key: segment.key, start: segment.start + shift, end: segment.end + shift })),
  ]
  if (!placed.length || placed[0]!.start !== 0) return undefined
  // Every piece handed on must read alone as its entry (a later write edits it alone): checked for the new ones.
  for (const segment of placed.slice(from, from + pieces.length)) {
    const alone = parseYaml(text.slice(segment.start, segment.end))
    if (alone.problems.length) return undefined
    let value: unknown
    try {
      value = alone.doc.toJS(YAML_OPTIONS)
    } catch {
      return undefined
    }
    if (!dataEqual(value, { [segment.key]: data[segment.key] })) return undefined
  }
  return { data, segments: placed }
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
