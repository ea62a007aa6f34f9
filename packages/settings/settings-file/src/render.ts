import { stringify, type Scalar } from 'yaml'

/** yaml's renderer with no line folding: long strings stay on one line, as users write them. */
const OPTIONS = { lineWidth: 0, minContentWidth: 0, flowCollectionPadding: false } as const

function isCollection(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}

/** Whether a value renders on one line (a scalar or an empty collection). */
export function isInline(value: unknown): boolean {
  if (!isCollection(value)) return true
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0
}

/** A map key as YAML: plain when safe, quoted otherwise. */
export function renderKey(key: string): string {
  return renderScalar(key)
}

/**
 * A scalar (or empty collection) on one line. A string replacing a quoted
 * scalar keeps that scalar's quote style; a string yaml would render as a
 * multi-line block is double-quoted instead, so the edit stays on its line.
 */
export function renderScalar(value: unknown, original?: Scalar): string {
  if (typeof value === 'string') {
    if (original?.type === 'QUOTE_DOUBLE') return JSON.stringify(value)
    if (original?.type === 'QUOTE_SINGLE' && !/[\n\r]/.test(value)) return `'${value.replace(/'/g, "''")}'`
  }
  if (isCollection(value)) return Array.isArray(value) ? '[]' : '{}'
  const text = stringify(value, OPTIONS).replace(/\n$/, '')
  return text.includes('\n') ? JSON.stringify(value) : text
}

/** A value in flow style (inside `{…}` or `[…]`), on one line. */
export function renderFlow(value: unknown): string {
  if (!isCollection(value)) return renderScalar(value)
  return stringify(value, { ...OPTIONS, collectionStyle: 'flow' }).replace(/\n$/, '')
}

/** A non-empty collection in block style, every line indented by `indent` spaces, without a final newline. */
export function renderBlock(value: object, indent: number, step: number): string {
  const pad = ' '.repeat(indent)
  return stringify(value, { ...OPTIONS, indent: step })
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
