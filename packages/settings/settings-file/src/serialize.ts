import { dataEqual } from 'dsh-settings'
import { parseDocument, stringify, type Document } from 'yaml'
import { diffDocuments } from './diff.ts'
import { SettingsDocumentError } from './errors.ts'
import type { DocumentFormat } from './format.ts'
import { YAML_OPTIONS, type ParsedDocument } from './parse.ts'
import { YamlEditor } from './yaml-edit.ts'

/** How many rounds of corrections an edit may take before the document is rendered afresh. */
const MAX_ROUNDS = 4

/** The outcome of rendering a document's next content. */
export interface Rendered {
  text: string
  /** False when byte-stable editing could not reproduce the content and the document was rendered afresh. */
  preserved: boolean
  /** The parse of `text`, when rendering already made one (the check of an in-place edit): reuse it for the next edit. */
  parsed?: ParsedDocument
}

/**
 * The next YAML text: `text` edited in place so only the bytes of changed
 * values, added keys and removed keys differ, re-parsed to check that it
 * holds exactly `next`. Where an edit also moved something it should not (an
 * anchored node another key aliases), the difference becomes one more edit
 * (making that other key concrete) and the check repeats. If the check still
 * fails, the document is rendered afresh, which loses its formatting but never data.
 */
export function renderYaml(text: string, doc: Document.Parsed, prev: unknown, next: unknown): Rendered {
  const edits = diffDocuments(prev, next)
  if (!edits.length) return { text, preserved: true }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let candidate: string
    try {
      candidate = new YamlEditor(text, doc, next).apply(edits)
    } catch {
      break
    }
    const check = parseDocument(candidate, YAML_OPTIONS)
    if (check.errors.length) break
    let actual: unknown
    try {
      actual = check.toJS(YAML_OPTIONS) ?? {}
    } catch {
      break // an alias left without its anchor, a merge of a non-map
    }
    if (dataEqual(actual, next)) return { text: candidate, preserved: true, parsed: { data: actual as Record<string, unknown>, yaml: check } }
    const corrections = diffDocuments(actual, next)
    if (!corrections.length) break
    edits.push(...corrections)
  }
  const fresh = stringify(next, { lineWidth: 0 })
  if (!holds(fresh, next)) throw new SettingsDocumentError('the next settings document cannot be written as YAML that reads back the same', '')
  return { text: fresh, preserved: false }
}

/** Whether YAML text reads back as exactly `expected`. */
function holds(text: string, expected: unknown): boolean {
  try {
    const doc = parseDocument(text, YAML_OPTIONS)
    return !doc.errors.length && dataEqual(doc.toJS(YAML_OPTIONS) ?? {}, expected)
  } catch {
    return false
  }
}

/** The next JSON text: two-space indentation, keys in the order the document holds them. */
export function renderJson(next: unknown): string {
  return JSON.stringify(next, null, 2) + '\n'
}

/** The next text of a document in either format, from its current text and parse. */
export function renderDocument(format: DocumentFormat, text: string, parsed: ParsedDocument, next: unknown): Rendered {
  if (format === 'json' || !parsed.yaml) {
    const json = renderJson(next)
    // A CRLF document stays CRLF.
    return { text: text.includes('\r\n') ? json.replace(/\n/g, '\r\n') : json, preserved: true }
  }
  return renderYaml(text, parsed.yaml, parsed.data, next)
}
