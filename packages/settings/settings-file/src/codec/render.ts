import { Document, isScalar, stringify, visit, type Scalar } from 'yaml'
import { keptCustomTags, renderTagged, TaggedScalar } from './tagged.ts'

/** yaml's renderer with no line folding: long strings stay on one line, as users write them. */
const OPTIONS = { lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false } as const

function isCollection(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !(value instanceof TaggedScalar)
}

/** yaml's stringify options this package renders with. */
type RenderOptions = NonNullable<Parameters<typeof stringify>[2]> & object

/**
 * `value` as YAML, as yaml's `stringify` writes it, except that every `<<` key
 * is double-quoted: written plain, it would read back as a merge key.
 */
export function toYaml(value: unknown, options: RenderOptions): string {
  const customTags = keptCustomTags(tagsIn(value))
  const doc = new Document(value, null, customTags ? { ...options, customTags } : options)
  visit(doc, {
    Pair: (_, pair) => {
      if (isScalar(pair.key) && pair.key.value === '<<') pair.key.type = 'QUOTE_DOUBLE'
    },
  })
  return doc.toString(options)
}

/** The tags of the tagged scalars inside `value` (usually none: one walk of what is rendered afresh). */
function tagsIn(value: unknown, found = new Set<string>()): string[] {
  if (value instanceof TaggedScalar) found.add(value.tag)
  else if (typeof value === 'object' && value !== null) for (const child of Object.values(value)) tagsIn(child, found)
  return [...found]
}

/** The longest implicit key yaml reads in a block map (counted up to its `:`); a longer one needs the explicit `? ` form. */
export const MAX_IMPLICIT_KEY = 1024

/** Whether a value renders on one line (a scalar or an empty collection). */
export function isInline(value: unknown): boolean {
  if (!isCollection(value)) return true
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0
}

/** Characters a plain scalar cannot hold inside a flow collection. */
const FLOW_INDICATORS = /[,[\]{}]/

/** A map key as YAML: plain when safe, quoted otherwise (`<<` always quoted: plain, it would be a merge key). */
export function renderKey(key: string, flow = false): string {
  return key === '<<' ? '"<<"' : renderScalar(key, undefined, flow)
}

/**
 * A key of a block map at column `indent`, up to (not including) its `:`: an
 * implicit key, or, past {@link MAX_IMPLICIT_KEY} characters, an explicit one
 * (`? key`, then the `:` on the next line at `indent`), as yaml itself writes it.
 */
export function renderBlockKey(key: string, indent: number): string {
  const text = renderKey(key)
  return text.length > MAX_IMPLICIT_KEY ? `? ${text}\n${' '.repeat(indent)}` : text
}

/**
 * A scalar (or empty collection) on one line. A string replacing a quoted
 * scalar keeps that scalar's quote style; a string yaml would render as a
 * multi-line block is double-quoted instead, so the edit stays on its line.
 */
export function renderScalar(value: unknown, original?: Scalar, flow = false): string {
  if (value instanceof TaggedScalar) return renderTagged(value)
  if (typeof value === 'string') {
    if (original?.type === 'QUOTE_DOUBLE') return JSON.stringify(value)
    if (original?.type === 'QUOTE_SINGLE' && !/[\n\r]/.test(value)) return `'${value.replace(/'/g, "''")}'`
    if (flow && FLOW_INDICATORS.test(value)) return JSON.stringify(value)
  }
  if (isCollection(value)) return Array.isArray(value) ? '[]' : '{}'
  // What yaml writes for these, without building a document for it (a write's most common edit: a count, a switch).
  if (value === null || typeof value === 'boolean' || (Number.isSafeInteger(value) && !Object.is(value, -0))) return String(value)
  const text = stringify(value, OPTIONS).replace(/\n$/, '')
  return text.includes('\n') ? JSON.stringify(value) : text
}

/** A value in flow style (inside `{…}` or `[…]`), on one line; `padded` writes `{ a: 1 }` rather than `{a: 1}`. */
export function renderFlow(value: unknown, padded = false): string {
  if (!isCollection(value)) return renderScalar(value, undefined, true)
  return toYaml(value, { ...OPTIONS, collectionStyle: 'flow', flowCollectionPadding: padded }).replace(/\n$/, '')
}

/**
 * A string as a block scalar in the style of `original` (`|` literal, or `>`
 * folded while the string is one line), content lines at `indent`, chomping
 * chosen to keep the string's trailing newlines. `undefined` when a block
 * cannot carry it exactly (a first line starting with a space needs an
 * indentation indicator), so the caller quotes it instead.
 */
export function renderBlockScalar(value: string, original: Scalar, indent: number): string | undefined {
  const body = value.replace(/\n+$/, '')
  const trailing = value.length - body.length
  if (!body || /^[ \t]/.test(body) || /\r/.test(body)) return undefined
  const folded = original.type === 'BLOCK_FOLDED' && !body.includes('\n')
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+'
  const pad = ' '.repeat(indent)
  const lines = body.split('\n').map((line) => (line ? pad + line : ''))
  return `${folded ? '>' : '|'}${chomp}\n${lines.join('\n')}\n${'\n'.repeat(Math.max(0, trailing - 1))}`
}

/** A non-empty collection in block style, every line indented by `indent` spaces, without a final newline. */
export function renderBlock(value: object, indent: number, step: number): string {
  const pad = ' '.repeat(indent)
  return toYaml(value, { ...OPTIONS, indent: step })
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line ? pad + line : line))
    .join('\n')
}

/**
 * What follows a map key's colon for `value`: ` scalar` on the same line, or a
 * newline and a block at `childIndent` (by default one `step` deeper than the
 * key at `keyIndent`; a map is always deeper than its key).
 */
export function renderAfterColon(value: unknown, keyIndent: number, step: number, flow: boolean, childIndent = keyIndent + step): string {
  if (flow) return ' ' + renderFlow(value)
  if (isInline(value)) return ' ' + renderScalar(value)
  const indent = !Array.isArray(value) && childIndent <= keyIndent ? keyIndent + step : childIndent
  return '\n' + renderBlock(value as object, indent, step)
}
