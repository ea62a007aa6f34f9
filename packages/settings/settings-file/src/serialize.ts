import { dataEqual, SCOPES_KEY } from 'dsh-settings'
import type { Document } from 'yaml'
import { diffDocuments, type DocumentPath } from './diff.ts'
import { SettingsDocumentCannotHoldError } from './errors.ts'
import type { DocumentFormat } from './format.ts'
import { parseYaml, YAML_OPTIONS, type ParsedDocument } from './parse.ts'
import { toYaml } from './render.ts'
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
 * Every check parses as a load does ({@link parseYaml}).
 * @throws {SettingsDocumentCannotHoldError} when not even a fresh rendering reads back as
 *   `next` (data YAML cannot hold), naming the first place that does not; nothing is written.
 */
export function renderYaml(text: string, doc: Document.Parsed, prev: unknown, next: unknown, file = ''): Rendered {
  const edits = diffDocuments(prev, next)
  if (!edits.length) return { text, preserved: true }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let candidate: string
    try {
      candidate = new YamlEditor(text, doc, next).apply(edits)
    } catch {
      break
    }
    const { doc: check, problems } = parseYaml(candidate)
    if (problems.length) break
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
  const fresh = renderFresh(next)
  const actual = readBack(fresh)
  if (actual === UNREADABLE || !dataEqual(actual, next)) throw cannotHold(file, next, actual)
  return { text: fresh, preserved: false }
}

/** A document rendered afresh: yaml's own layout, no line folding, `<<` keys quoted. */
function renderFresh(value: unknown): string {
  return toYaml(value, { lineWidth: 0 })
}

const UNREADABLE = Symbol('unreadable')

/** What YAML text reads back as, or {@link UNREADABLE} when it does not parse or resolve. */
function readBack(text: string): unknown {
  try {
    const { doc, problems } = parseYaml(text)
    return problems.length ? UNREADABLE : (doc.toJS(YAML_OPTIONS) ?? {})
  } catch {
    return UNREADABLE
  }
}

/**
 * The refusal of `next`, whose fresh rendering reads back as `actual`:
 * naming the first place that reads back otherwise, or, when the text does not
 * parse at all, the deepest value that fails on its own.
 */
function cannotHold(file: string, next: unknown, actual: unknown): SettingsDocumentCannotHoldError {
  let at: DocumentPath
  if (actual === UNREADABLE) {
    at = failingPlace(next, [])
  } else {
    const edits = diffDocuments(actual, next)
    // A key that is missing or different in the read-back names the place; a key only the read-back has, its map.
    const edit = edits.find((candidate) => candidate.op === 'set') ?? edits[0]
    at = edit ? (edit.op === 'set' ? edit.path : edit.path.slice(0, -1)) : []
  }
  const documentPath = at.map(String)
  const scoped = documentPath[0] === SCOPES_KEY && documentPath.length >= 3
  const section = scoped ? { scope: documentPath[1]!, ns: documentPath[2]! } : documentPath.length ? { ns: documentPath[0]! } : {}
  const inside = scoped ? 3 : section.ns === undefined ? 0 : 1
  const path = documentPath.slice(inside)
  const where = section.ns === undefined ? 'the document' : `section ${JSON.stringify(section.ns)}${scoped ? ` in scope ${section.scope}` : ''}`
  return new SettingsDocumentCannotHoldError(
    `settings document ${file} cannot hold the value at ${pathText(at.slice(inside))} of ${where}: written as YAML it does not read back the same; nothing was written`,
    file,
    path,
    documentPath,
    section,
  )
}

/** The deepest place under `path` whose value, rendered alone, does not read back (`path` itself when no part fails alone). */
function failingPlace(value: unknown, path: DocumentPath): DocumentPath {
  if (typeof value !== 'object' || value === null) return path
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value)
  for (const [key, child] of entries) {
    const alone = { [String(key)]: child }
    const text = renderFresh(alone)
    const actual = readBack(text)
    if (actual === UNREADABLE || !dataEqual(actual, alone)) return failingPlace(child, [...path, key])
  }
  return path
}

/** A place as `$`-rooted path text (`$.a.b`, `$.list[0]`, `$["odd key"]`), each key cut to 64 characters. */
function pathText(path: DocumentPath): string {
  let text = '$'
  for (const segment of path) {
    if (typeof segment === 'number') {
      text += `[${segment}]`
      continue
    }
    const key = segment.length > 64 ? `${segment.slice(0, 64)}…` : segment
    if (/^[A-Za-z_$][\w$-]*$/.test(key)) text += `.${key}`
    else text += `[${JSON.stringify(key)}]`
  }
  return text
}

/** The next JSON text: two-space indentation, keys in the order the document holds them. */
export function renderJson(next: unknown): string {
  return JSON.stringify(next, null, 2) + '\n'
}

/**
 * The next text of a document in either format, from its current text and
 * parse; `file` names the document in a refusal.
 * @throws {SettingsDocumentCannotHoldError} from {@link renderYaml}.
 */
export function renderDocument(format: DocumentFormat, text: string, parsed: ParsedDocument, next: unknown, file = ''): Rendered {
  if (format === 'json' || !parsed.yaml) {
    const json = renderJson(next)
    // A CRLF document stays CRLF.
    return { text: text.includes('\r\n') ? json.replace(/\n/g, '\r\n') : json, preserved: true }
  }
  return renderYaml(text, parsed.yaml, parsed.data, next, file)
}
