import { isAlias, isMap, isScalar, visit, type Document } from 'yaml'

/**
 * One top-level entry of a YAML document as a piece of its text: from the
 * start of its key's line (the first piece from the start of the text, with
 * whatever comments lead the document) up to the start of the next key's line.
 */
export interface Segment {
  readonly key: string
  readonly start: number
  readonly end: number
}

/** A document line that starts or ends a YAML document (`---`, `...`): splitting around one would change what the pieces mean. */
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?:[ \t]|$)/m

/**
 * Whether the parsed node tree uses anything that ties one part of the
 * document to another (an anchor, an alias, a merge key) or changes how a
 * value reads (a tag): such a document is only ever read and edited whole.
 */
function hasCrossLinks(doc: Document): boolean {
  let found = false
  visit(doc, {
    Node: (_, node) => {
      if (isAlias(node) || node.anchor || node.tag) {
        found = true
        return visit.BREAK
      }
      return undefined
    },
    Pair: (_, pair) => {
      // With merge keys on, yaml reads a `<<` key as a symbol; a quoted "<<" stays the string.
      if (isScalar(pair.key) && (typeof pair.key.value === 'symbol' || pair.key.value === '<<')) {
        found = true
        return visit.BREAK
      }
      return undefined
    },
  })
  return found
}

/**
 * Split a parsed YAML document into one piece of text per top-level key, when
 * each piece reads alone exactly as it reads in the whole: a block map at
 * column 0, no document markers, no directives, and nothing that links one
 * part to another. A write can then parse, edit and check only the pieces it
 * changes. `undefined` when the document must be handled whole.
 */
export function segmentsOf(text: string, doc: Document.Parsed): Segment[] | undefined {
  if (doc.errors.length || doc.warnings.length || DOCUMENT_MARKER.test(text)) return undefined
  const contents = doc.contents
  if (!isMap(contents) || contents.flow || !contents.items.length || hasCrossLinks(doc)) return undefined
  const starts: { key: string; start: number }[] = []
  for (const pair of contents.items) {
    const key = pair.key
    if (!isScalar(key) || typeof key.value !== 'string' || !key.range) return undefined
    const at = key.range[0]
    const lineStart = text.lastIndexOf('\n', at - 1) + 1
    // A key that does not open its line at column 0 (an explicit `? key`, say) is not a place to cut.
    if (at !== lineStart) return undefined
    starts.push({ key: key.value, start: starts.length ? lineStart : 0 })
  }
  return starts.map((entry, index) => ({ key: entry.key, start: entry.start, end: starts[index + 1]?.start ?? text.length }))
}

/** A plain top-level key at column 0 up to its `:` (no quotes, flow indicators or comment signs in it). */
const PLAIN_KEY_LINE = /^([^\s#'"[\]{},:\-][^\n#:]*?|-[^\s\n#:][^\n#:]*?)[ ]*:(?:[ \r\n]|$)/

/**
 * The pieces of a text the fast reader took (`readYamlData`), found without a
 * node tree: every line at column 0 that is not blank, a comment or a
 * sequence item of the entry above starts the next top-level entry. Such a
 * text has no anchors, tags, merge keys or document markers, so its pieces
 * read alone as they do in the whole, as with {@link segmentsOf}. The keys found
 * must be exactly the keys of `data`, one line each; `undefined` otherwise
 * (a quoted key, a flow root, a key the line does not show plainly), and the
 * document is then handled whole.
 */
export function segmentsOfPlainText(text: string, data: Record<string, unknown>): Segment[] | undefined {
  const keys = Object.keys(data)
  if (!keys.length) return undefined
  const starts: { key: string; start: number }[] = []
  let at = 0
  while (at < text.length) {
    const lineEnd = text.indexOf('\n', at)
    const next = lineEnd < 0 ? text.length : lineEnd + 1
    const first = text.charCodeAt(at)
    // Blank, indented, a comment, or a sequence item at column 0 (`key:\n- a`): part of the entry above.
    const opens = first !== 0x20 && first !== 0x0a && first !== 0x0d && first !== 0x23 && !(first === 0x2d && /^-(?:[ \r\n]|$)/.test(text.slice(at, at + 2)))
    if (opens) {
      const match = PLAIN_KEY_LINE.exec(text.slice(at, next))
      if (!match) return undefined
      starts.push({ key: match[1]!, start: starts.length ? at : 0 })
    }
    at = next
  }
  if (starts.length !== keys.length) return undefined
  const seen = new Set<string>()
  for (const { key } of starts) {
    if (seen.has(key) || !Object.hasOwn(data, key)) return undefined
    seen.add(key)
  }
  return starts.map((entry, index) => ({ key: entry.key, start: entry.start, end: starts[index + 1]?.start ?? text.length }))
}
