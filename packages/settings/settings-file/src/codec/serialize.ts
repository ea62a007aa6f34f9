import { dataEqual, setOwn } from './data.ts'
import { indentStepOf } from './indent-step.ts'
import type { Document } from 'yaml'
import { diffDocuments, type DocumentEdit, type DocumentPath } from './diff.ts'
import { DocumentCannotHoldError } from './errors.ts'
import type { DocumentFormat } from './format.ts'
import { parseYaml, YAML_OPTIONS, type ParsedDocument } from './parse.ts'
import { toYaml } from './render.ts'
import { segmentsOf, segmentsOfPlainText, type Segment } from './segments.ts'
import { readYamlData } from './yaml-fast-read.ts'
import { editScalarsInPlace, type ScalarsEdited } from './scalar-edit.ts'
import { YamlEditor } from './yaml-edit.ts'
import { editNested, NESTED_MIN_BYTES } from './nested-edit.ts'
import { withKeptTags } from './tagged.ts'

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

/** An edit that passed its check: the text, what it reads as, and its node tree (parsed on first access when the fast reader read it). */
interface CheckedText {
  text: string
  data: unknown
  /** Whether the fast reader read it (then `data` is a plain tree and the node tree is built only if asked for). */
  fast: boolean
  readonly doc: Document.Parsed
}

/**
 * Edit `text` (parsed as `doc`) so it reads as `next`, and check it: the
 * edited text is read again and must read exactly as `next` (by the fast
 * reader when it takes the text, which reads as yaml does, else by yaml).
 * Where an edit also moved something it should not (an anchored node another
 * key aliases), the difference becomes one more edit and the check repeats.
 * @returns the checked text, or `undefined` when no edit passes the check.
 */
function editChecked(text: string, doc: Document.Parsed, edits: DocumentEdit[], next: unknown, step?: number): CheckedText | undefined {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let candidate: string
    try {
      candidate = new YamlEditor(text, doc, next, step).apply(edits)
    } catch {
      return undefined
    }
    const fast = readYamlData(candidate)
    let tree: Document.Parsed | undefined
    let actual: unknown = fast
    if (fast === undefined) {
      const { doc: check, problems } = parseYaml(candidate)
      if (problems.length) return undefined
      actual = readData(check)
      if (actual === UNREADABLE) return undefined // an alias left without its anchor, a merge of a non-map
      tree = check
    }
    if (dataEqual(actual, next)) {
      const checked = candidate
      return {
        text: checked,
        data: actual,
        fast: fast !== undefined,
        get doc() {
          return (tree ??= parseYaml(checked).doc)
        },
      }
    }
    const corrections = diffDocuments(actual, next)
    if (!corrections.length) return undefined
    edits.push(...corrections)
  }
  return undefined
}

/** An edited piece of the text, to splice in at its entry's place. */
interface Piece {
  position: number
  text: string
  /** Whether its end is known to meet the next entry as before (else the two are read together). */
  checked?: boolean
  /** The entries the piece holds now, relative to its start, when it gained new ones after its own. */
  entries?: Segment[]
}

/**
 * The next text by editing only the top-level entries that change, each as a
 * piece of text on its own (see {@link segmentsOf}): parse the piece, edit it,
 * check the edited piece reads as the entry's next value, and splice it back.
 * New top-level keys are added to the last piece (a namespace's first write
 * reads one entry, not the document). Cost follows the entries written, not
 * the document. `undefined` when the edits remove a top-level key, or a piece
 * does not read alone as it reads in the whole: the caller then edits the whole document.
 */
function renderSegments(text: string, segments: readonly Segment[], prev: Record<string, unknown>, next: Record<string, unknown>, edits: DocumentEdit[]): Rendered | undefined {
  const byKey = new Map<string, DocumentEdit[]>()
  const added: string[] = []
  for (const edit of edits) {
    if (!edit.path.length) return undefined
    const key = String(edit.path[0])
    const adds = edit.op === 'set' && edit.path.length === 1 && !Object.hasOwn(prev, key) && Object.hasOwn(next, key)
    if (!adds && (!Object.hasOwn(prev, key) || !Object.hasOwn(next, key))) return undefined
    if (adds) added.push(key)
    // Keys added go after the last entry: its piece takes them.
    const owner = adds ? segments[segments.length - 1]!.key : key
    byKey.get(owner)?.push(edit) ?? byKey.set(owner, [edit])
  }
  // A write changes a key or a few: looked up one by one, without a map of every key of the document.
  const index = byKey.size > 8 ? new Map(segments.map((segment, position) => [segment.key, position])) : undefined
  const pieces: Piece[] = []
  for (const [key, keyEdits] of byKey) {
    const position = index ? index.get(key) : positionOf(segments, key)
    if (position === undefined) return undefined
    const extra = position === segments.length - 1 ? added : []
    const piece = editPiece(text, segments, position, prev, next, keyEdits, extra)
    if (!piece) return undefined
    pieces.push(piece)
  }
  pieces.sort((a, b) => a.position - b.position)
  return splicePieces(text, segments, pieces, next)
}

/** Edit the entry at `position` alone (and add the `added` keys after it): the edited piece, or `undefined`. */
function editPiece(text: string, segments: readonly Segment[], position: number, prev: Record<string, unknown>, next: Record<string, unknown>, keyEdits: DocumentEdit[], added: readonly string[]): Piece | undefined {
  const segment = segments[position]!
  const key = segment.key
  if (!added.length) {
    // A large entry is cut again, so only the child holding each change is read (its checks cover its place too).
    if (segment.end - segment.start >= NESTED_MIN_BYTES) {
      const nested = editNested(text, segment.start, segment.end, key, prev[key], next[key], keyEdits, editChecked)
      if (nested !== undefined) return { position, text: nested, checked: true }
    }
    const quick = editScalarsChecked(text.slice(segment.start, segment.end), key, keyEdits, prev[key], next[key])
    // A piece whose last line is as it was ends as before: it meets the next entry as it did.
    if (quick !== undefined) return { position, text: quick.text, checked: quick.endKept }
  }
  const piece = text.slice(segment.start, segment.end)
  const { doc, problems } = parseYaml(piece)
  if (problems.length) return undefined
  // The piece must read alone as the entry reads in the whole document, or cutting here is not safe.
  const alone = readData(doc)
  if (alone === UNREADABLE || !dataEqual(alone, { [key]: prev[key] })) return undefined
  const after: Record<string, unknown> = { [key]: next[key] }
  for (const name of added) setOwn(after, name, next[name])
  // New keys nest by the document's step, which the last entry alone may not show.
  const edited = editChecked(piece, doc, keyEdits, after, added.length ? indentStepOf(text, segments) : undefined)
  // The last piece meets no entry after it: only a piece with one after must keep its end.
  if (!edited || (!added.length && edited.text.endsWith('\n') !== piece.endsWith('\n'))) return undefined
  const entries = entriesOf(edited)
  const keys = [key, ...added]
  if (entries?.length !== keys.length || entries.some((entry, at) => entry.key !== keys[at])) return undefined
  return added.length ? { position, text: edited.text, checked: true, entries } : { position, text: edited.text }
}

/** `text` with the edited pieces in their entries' places, and where each entry stands now; `undefined` when an edited piece's end changes how the next entry reads. */
function splicePieces(text: string, segments: readonly Segment[], pieces: readonly Piece[], next: Record<string, unknown>): Rendered | undefined {
  let result = ''
  let cursor = 0
  let shift = 0
  const placed: Segment[] = []
  let piece = 0
  for (let position = 0; position < segments.length; position++) {
    const segment = segments[position]!
    const replacement = pieces[piece]?.position === position ? pieces[piece++]! : undefined
    if (replacement === undefined) {
      placed.push(shift ? { key: segment.key, start: segment.start + shift, end: segment.end + shift } : segment)
      continue
    }
    result += text.slice(cursor, segment.start) + replacement.text
    cursor = segment.end
    const start = segment.start + shift
    shift += replacement.text.length - (segment.end - segment.start)
    if (replacement.entries) for (const entry of replacement.entries) placed.push({ key: entry.key, start: start + entry.start, end: start + entry.end })
    else placed.push({ key: segment.key, start, end: segment.end + shift })
  }
  result += text.slice(cursor)
  // Each edited piece is read once more with the entry after it: what it does at its end (a value
  // running on into the next line) shows there as an error or as that entry read otherwise.
  for (const { position, checked } of pieces) {
    const following = placed[position + 1]
    if (!following || checked) continue
    const pair = placed[position]!
    const both = readBack(result.slice(pair.start, following.end))
    if (both === UNREADABLE || !dataEqual(both, { [pair.key]: next[pair.key], [following.key]: next[following.key] })) return undefined
  }
  return { text: result, preserved: true, parsed: { data: next, segments: placed } }
}

/** Where the entry `key` stands among `segments`, or `undefined` (a document's top-level keys are unique: a repeated one is refused when parsed). */
function positionOf(segments: readonly Segment[], key: string): number | undefined {
  for (let position = 0; position < segments.length; position++) if (segments[position]!.key === key) return position
  return undefined
}

/**
 * The edited piece when every edit only swaps one scalar for another on its
 * key's line ({@link editScalarsInPlace}), checked by the fast reader: the
 * edited piece must read exactly as the entry's next value, every key and
 * item of it, and still be that one entry. That also shows the piece was cut
 * where the entry starts and ends (a piece cut short or running into the next
 * entry reads otherwise), so the piece before the edit is not read again.
 * `endKept` says the edits stayed above the piece's last line: its end then
 * meets the next entry as it did (each scalar written stays on its line), and
 * the caller need not read the two together.
 * `undefined` sends the piece to the full edit (which parses it with yaml).
 */
function editScalarsChecked(piece: string, key: string, edits: DocumentEdit[], prev: unknown, next: unknown): ScalarsEdited | undefined {
  const edited = editScalarsInPlace(piece, edits, { [key]: prev })
  if (edited === undefined || edited.text.endsWith('\n') !== piece.endsWith('\n')) return undefined
  const data = readYamlData(edited.text)
  if (data === undefined || !dataEqual(data, { [key]: next })) return undefined
  const segments = segmentsOfPlainText(edited.text, data)
  return segments?.length === 1 && segments[0]!.key === key ? edited : undefined
}

/** The top-level entries of an edited piece, each at column 0 and linking to nothing; `undefined` when it cannot be cut so. */
function entriesOf(edited: CheckedText): Segment[] | undefined {
  // A text the fast reader took links to nothing; its lines show its entries when its keys are plain.
  return (edited.fast && segmentsOfPlainText(edited.text, edited.data as Record<string, unknown>)) || segmentsOf(edited.text, edited.doc)
}

/**
 * The next YAML text: `text` edited in place so only the bytes of changed
 * values, added keys and removed keys differ, checked by parsing it again
 * (see {@link editChecked}): only the changed top-level entries when the
 * document can be cut into pieces ({@link renderSegments}), else the whole
 * document. If the check still fails, the document is rendered afresh, which
 * loses its formatting but never data. Every check parses as a load does ({@link parseYaml}).
 * @throws {DocumentCannotHoldError} when not even a fresh rendering reads back as
 *   `next` (data YAML cannot hold), naming the first place that does not.
 * @param edits - what changed from `parsed.data` to `next`, when the caller knows (see `renderChanges`); else found by comparing them.
 */
export function renderYaml(text: string, parsed: ParsedDocument, next: Record<string, unknown>, file = '', edits: DocumentEdit[] = diffDocuments(parsed.data, next)): Rendered {
  const prev = parsed.data
  if (!edits.length) return { text, preserved: true }
  if (parsed.segments) {
    const bySegments = renderSegments(text, parsed.segments, prev, next, edits.map((edit) => ({ ...edit })))
    if (bySegments) return bySegments
  }
  const doc = parsed.yaml ?? parseYaml(text).doc
  const edited = editChecked(text, doc, edits, next)
  if (edited) return { text: edited.text, preserved: true, parsed: { data: next, yaml: edited.doc, segments: segmentsOf(edited.text, edited.doc) } }
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

/** What YAML text reads back as (by the fast reader when it takes the text), or {@link UNREADABLE} when it does not parse or resolve. */
function readBack(text: string): unknown {
  const fast = readYamlData(text)
  if (fast !== undefined) return fast
  try {
    const { doc, problems } = parseYaml(text)
    return problems.length ? UNREADABLE : readData(doc)
  } catch {
    return UNREADABLE
  }
}

/** What a parsed document reads as, or {@link UNREADABLE} when it does not resolve. */
function readData(doc: Document.Parsed): unknown {
  try {
    return doc.toJS(YAML_OPTIONS) ?? {}
  } catch {
    return UNREADABLE
  }
}

/**
 * The refusal of `next`, whose fresh rendering reads back as `actual`:
 * naming the first place that reads back otherwise, or, when the text does not
 * parse at all, the deepest value that fails on its own.
 */
function cannotHold(file: string, next: unknown, actual: unknown): DocumentCannotHoldError {
  let at: DocumentPath
  if (actual === UNREADABLE) {
    at = failingPlace(next, [])
  } else {
    const edits = diffDocuments(actual, next)
    // A key that is missing or different in the read-back names the place; a key only the read-back has, its map.
    const edit = edits.find((candidate) => candidate.op === 'set') ?? edits[0]
    at = edit ? (edit.op === 'set' ? edit.path : edit.path.slice(0, -1)) : []
  }
  return new DocumentCannotHoldError(file, at)
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

/** The next JSON text: two-space indentation, keys in the order the document holds them. */
export function renderJson(next: unknown): string {
  return JSON.stringify(next, null, 2) + '\n'
}

/**
 * The next text of a document in either format, from its current text and
 * parse; `file` names the document in a refusal.
 * @throws {DocumentCannotHoldError} from {@link renderYaml}.
 */
export function renderDocument(format: DocumentFormat, text: string, parsed: ParsedDocument, next: unknown, file = ''): Rendered {
  if (format === 'json') {
    const json = renderJson(next)
    // A CRLF document stays CRLF. The next write starts from this parse: JSON text reads back as the data it was made from.
    return { text: text.includes('\r\n') ? json.replace(/\n/g, '\r\n') : json, preserved: true, parsed: { data: next as Record<string, unknown> } }
  }
  const rendered = withKeptTags(parsed.tags, () => renderYaml(text, parsed, next as Record<string, unknown>, file))
  if (rendered.parsed && parsed.tags) rendered.parsed.tags = parsed.tags
  return rendered
}
