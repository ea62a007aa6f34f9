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
