/**
 * Search and the "modified" filter over the forms, as pure functions: which
 * fields of a form a query shows, and how a query is kept in the address's
 * fragment (`#q=limit&modified=1`).
 */
import type { Field, FormModel } from './fields.ts'

/** What the person asked to see. The empty query (`text: ''`, `modified: false`) shows everything. */
export interface SearchQuery {
  /** Matched case-insensitively against each field's key, title and description, and the namespace's name. */
  text: string
  /** Show only the fields the shown section itself sets (`view.user`, or a secret it holds). */
  modified: boolean
}

/** The query that filters nothing. */
export const NO_SEARCH: SearchQuery = Object.freeze({ text: '', modified: false })

/** Which fields of one form a query shows; see {@link searchForm}. */
export interface FormMatch {
  /** Path keys ({@link pathKey}) of the fields to show, their ancestors included. */
  shown: ReadonlySet<string>
  /** Path keys of the fields shown whole: everything under them shows (lists, dicts and tuples are never cut apart). */
  whole: ReadonlySet<string>
  /** How many fields matched in their own right (groups around them not counted). */
  count: number
}

/** A path as one string, for the sets of a {@link FormMatch}. */
export function pathKey(path: readonly string[]): string {
  return path.join('\u0000')
}

/** Whether a query filters anything at all. */
export function isSearching(query: SearchQuery): boolean {
  return query.text.trim() !== '' || query.modified
}

/** Whether two queries ask for the same thing (surrounding spaces do not count). */
export function sameSearch(a: SearchQuery, b: SearchQuery): boolean {
  return a.text.trim() === b.text.trim() && a.modified === b.modified
}

/** The words a field is found by: its key, its title and its description. */
function wordsOf(field: Field): string[] {
  return [field.path.at(-1) ?? '', field.label, field.description ?? ''].map((word) => word.toLowerCase())
}

/** Whether `field` itself (not what it holds) mentions `needle` (already lower-cased). */
export function fieldMentions(field: Field, needle: string): boolean {
  return wordsOf(field).some((word) => word.includes(needle))
}

/**
 * Whether the shown section itself sets the field: `view.user` holds it
 * (`overridden`), or, for a secret (which a redacted `user` never holds),
 * it is set by the section's own layer.
 */
export function isModified(field: Field, scoped: boolean): boolean {
  if (field.overridden) return true
  return field.kind === 'secret' && field.secret?.set === true && field.secret.layer === (scoped ? 'scope' : 'global')
}

/** The field and everything it holds, the blank item of a list or dict included. */
function everything(field: Field): Field[] {
  return [field, ...(field.children ?? []).flatMap(everything), ...(field.item ? everything(field.item) : [])]
}

/** A field whose children are filtered one by one; every other field is matched and shown as a unit. */
function filtersChildren(field: Field): boolean {
  return field.kind === 'object' && field.children !== undefined
}

/**
 * Which fields of `form` the query shows, or `undefined` when it shows none
 * (the section is hidden). A field shows when its key, title or description
 * contains the text (or an enclosing group's does, or the namespace's name
 * does), and, with `modified`, when the section itself sets it. Objects are
 * filtered field by field and show with whatever they hold that shows; lists,
 * dicts, tuples and leaves are units, matched by anything inside them and
 * then shown whole. Hidden fields never count.
 */
export function searchForm(form: FormModel, query: SearchQuery): FormMatch | undefined {
  const needle = query.text.trim().toLowerCase()
  const scoped = form.scope !== undefined
  const shown = new Set<string>()
  const whole = new Set<string>()
  let count = 0

  const visit = (field: Field, found: boolean): boolean => {
    if (field.hidden) return false
    const textOk = found || needle === '' || fieldMentions(field, needle)
    if (filtersChildren(field)) {
      const children = field.children!.filter((child) => !child.hidden)
      // Every child is visited, so each one that matches is recorded.
      const any = children.map((child) => visit(child, textOk)).some(Boolean)
      if (any || (children.length === 0 && textOk && (!query.modified || isModified(field, scoped)))) {
        shown.add(pathKey(field.path))
        if (!any) count++
        return true
      }
      return false
    }
    const inside = everything(field).filter((part) => !part.hidden)
    const unitText = textOk || inside.some((part) => fieldMentions(part, needle))
    const unitModified = !query.modified || inside.some((part) => isModified(part, scoped))
    if (!unitText || !unitModified) return false
    shown.add(pathKey(field.path))
    whole.add(pathKey(field.path))
    count++
    return true
  }

  return visit(form.root, false) ? { shown, whole, count } : undefined
}

/** Whether a match shows the field at `path`: it is shown itself, or it sits inside a field shown whole. */
export function fieldShown(match: FormMatch | undefined, path: readonly string[]): boolean {
  if (!match) return false
  if (match.shown.has(pathKey(path))) return true
  for (let length = path.length - 1; length >= 0; length--) if (match.whole.has(pathKey(path.slice(0, length)))) return true
  return false
}

/** The fragment parameters a query is kept under. */
const TEXT_KEY = 'q'
const MODIFIED_KEY = 'modified'

/** The parameters of a fragment (`#a=1&b=2`); a bare anchor (`#f-search`) has none. */
function fragmentParams(hash: string): URLSearchParams {
  const body = hash.replace(/^#/, '')
  return new URLSearchParams(body.includes('=') ? body : '')
}

/** The query kept in a fragment: `#q=limit&modified=1`. Anything else there is ignored. */
export function searchFromHash(hash: string): SearchQuery {
  const params = fragmentParams(hash)
  const modified = params.get(MODIFIED_KEY)
  return { text: params.get(TEXT_KEY) ?? '', modified: modified === '1' || modified === 'true' }
}

/**
 * The fragment that keeps `query`, with the fragment's other parameters left
 * as they are (a bare anchor is dropped): `#q=limit&modified=1`, or `''` when
 * nothing is left. The text is kept as typed, spaces encoded as `+`.
 */
export function hashWithSearch(hash: string, query: SearchQuery): string {
  const params = fragmentParams(hash)
  params.delete(TEXT_KEY)
  params.delete(MODIFIED_KEY)
  if (query.text !== '') params.set(TEXT_KEY, query.text)
  if (query.modified) params.set(MODIFIED_KEY, '1')
  const text = params.toString()
  return text ? `#${text}` : ''
}
