import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { dataEqual } from './equal.ts'
import { NAMESPACE_PATTERN } from './ids.ts'
import { copyData, isPlainObject, setOwn } from './data.ts'
import type { SettingsDocument } from './types.ts'

/** The document key that holds scoped sections. */
export const SCOPES_KEY = 'scopes'

/** One section of the document: a namespace, globally or under a named scope. */
export interface SectionKey {
  ns: string
  scope?: string
}

/** A stable map key for a section. */
export function sectionId(ns: string, scope?: string): string {
  return scope === undefined ? ns : `${scope}\u0000${ns}`
}

function own(record: unknown, key: string): unknown {
  return isPlainObject(record) && Object.hasOwn(record, key) ? record[key] : undefined
}

/** The raw section stored for `ns` (under `scope` when given), read through own properties only. */
export function getSection(doc: SettingsDocument, ns: string, scope?: string): unknown {
  if (scope === undefined) return own(doc, ns)
  return own(own(own(doc, SCOPES_KEY), scope), ns)
}

/** A copy of `doc` with one section set; untouched sections are shared, not copied. */
export function withSection(doc: SettingsDocument, key: SectionKey, section: unknown): SettingsDocument {
  const next: SettingsDocument = { ...doc }
  if (key.scope === undefined) {
    next[key.ns] = section
    return next
  }
  const scopes = isPlainObject(doc.scopes) ? { ...doc.scopes } : {}
  const sections = isPlainObject(scopes[key.scope]) ? { ...scopes[key.scope] } : {}
  sections[key.ns] = section
  scopes[key.scope] = sections
  next.scopes = scopes
  return next
}

/**
 * Set (or, with `undefined`, remove) one section of a document in place. Only
 * for a document the caller has just built and nobody else holds yet.
 */
export function putSection(doc: SettingsDocument, key: SectionKey, section: unknown): void {
  let sections: Record<string, unknown> = doc
  if (key.scope !== undefined) {
    if (!isPlainObject(doc.scopes)) setOwn(doc, SCOPES_KEY, {})
    const scopes = doc.scopes as Record<string, unknown>
    if (!isPlainObject(scopes[key.scope])) setOwn(scopes, key.scope, {})
    sections = scopes[key.scope] as Record<string, unknown>
  }
  if (section === undefined) delete sections[key.ns]
  else setOwn(sections, key.ns, section)
}

/** A key as a warning shows it: quoted, and cut short (a key is the user's text, and may be long). */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)
}

/**
 * Copy a document handed over by a provider into one the seam can own, and
 * list what is wrong with its shape, each problem as a sentence naming the
 * key and the rule it breaks (never a value). A non-object document reads as
 * empty; a non-object `scopes` map or scope entry is kept as stored (so a write
 * does not drop it) but reads as holding no sections; a key that is not a
 * namespace, or a scope id that is not `<kind>/<id>`, is kept and ignored.
 *
 * A section that is the very object `previous` holds at the same place (a
 * provider handing back the document the seam gave it) is reused, not copied:
 * the seam never mutates its sections, so a write costs what it changed, not
 * the size of the document.
 */
export function adoptDocument(input: unknown, previous: SettingsDocument = {}): { doc: SettingsDocument; problems: string[] } {
  const problems: string[] = []
  if (!isPlainObject(input)) {
    if (input !== undefined && input !== null) problems.push('the document is not a map of namespace sections; reading it as empty')
    return { doc: {}, problems }
  }
  const doc = adoptSections(input, previous)
  for (const key of Object.keys(doc)) {
    if (key !== SCOPES_KEY && !NAMESPACE_PATTERN.test(key)) problems.push(`key ${shownKey(key)} is not a namespace (it must match ${NAMESPACE_PATTERN}); it is ignored`)
  }
  const scopes = own(doc, SCOPES_KEY)
  if (scopes !== undefined && !isPlainObject(scopes)) {
    problems.push(`"${SCOPES_KEY}" is not a map of scope ids; reading it as empty`)
  } else if (scopes) {
    for (const scope of Object.keys(scopes)) {
      const sections = scopes[scope]
      if (!SCOPE_ID_PATTERN.test(scope)) problems.push(`scope ${shownKey(scope)} is not a scope id (it must be <kind>/<id>, matching ${SCOPE_ID_PATTERN}); it is ignored`)
      else if (!isPlainObject(sections)) problems.push(`scope ${shownKey(scope)} is not a map of namespace sections; reading it as empty`)
      else {
        for (const key of Object.keys(sections)) {
          if (!NAMESPACE_PATTERN.test(key)) problems.push(`key ${shownKey(key)} in scope ${shownKey(scope)} is not a namespace (it must match ${NAMESPACE_PATTERN}); it is ignored`)
        }
      }
    }
  }
  return { doc, problems }
}

/** A shallow copy of one map of sections, copying only the entries `previous` does not hold as the same object. */
function reuseOrCopy(input: Record<string, unknown>, previous: unknown, skip?: string): Record<string, unknown> {
  const known = isPlainObject(previous) ? previous : undefined
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(input)) {
    // The `scopes` map is adopted scope by scope by the caller, not copied whole here; its place in key order is kept.
    if (key === skip) {
      setOwn(result, key, undefined)
      continue
    }
    const value = input[key]
    setOwn(result, key, known && Object.hasOwn(known, key) && known[key] === value ? value : copyData(value))
  }
  return result
}

/** The document's root and its `scopes` maps copied, each section reused from `previous` when it is the same object. */
function adoptSections(input: Record<string, unknown>, previous: SettingsDocument): SettingsDocument {
  const scopes = own(input, SCOPES_KEY)
  const doc = reuseOrCopy(input, previous, isPlainObject(scopes) ? SCOPES_KEY : undefined)
  if (!isPlainObject(scopes)) return doc
  const previousScopes = own(previous, SCOPES_KEY)
  const copied: Record<string, unknown> = {}
  for (const scope of Object.keys(scopes)) {
    const sections = scopes[scope]
    setOwn(copied, scope, isPlainObject(sections) ? reuseOrCopy(sections, own(previousScopes, scope)) : copyData(sections))
  }
  setOwn(doc, SCOPES_KEY, copied)
  return doc
}

/** Whether a section can feed anything: its namespace and scope id follow the grammar. */
export function isWellNamed(key: SectionKey): boolean {
  return NAMESPACE_PATTERN.test(key.ns) && (key.scope === undefined || SCOPE_ID_PATTERN.test(key.scope))
}

/** Every section key present in a document. */
function sectionKeys(doc: SettingsDocument): SectionKey[] {
  const keys: SectionKey[] = []
  for (const ns of Object.keys(doc)) if (ns !== SCOPES_KEY) keys.push({ ns })
  const scopes = own(doc, SCOPES_KEY)
  if (isPlainObject(scopes)) {
    for (const scope of Object.keys(scopes)) {
      const sections = scopes[scope]
      if (isPlainObject(sections)) for (const ns of Object.keys(sections)) keys.push({ ns, scope })
    }
  }
  return keys
}

/** The sections whose raw content differs between two documents (added, removed or changed). */
export function changedSections(prev: SettingsDocument, next: SettingsDocument): SectionKey[] {
  const seen = new Set<string>()
  const changed: SectionKey[] = []
  for (const key of [...sectionKeys(prev), ...sectionKeys(next)]) {
    const id = sectionId(key.ns, key.scope)
    if (seen.has(id)) continue
    seen.add(id)
    if (!dataEqual(getSection(prev, key.ns, key.scope), getSection(next, key.ns, key.scope))) changed.push(key)
  }
  return changed
}
