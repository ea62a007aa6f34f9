import { dataEqual } from './equal.ts'
import { cloneStored, isPlainObject } from './json.ts'
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
 * Copy a document handed over by a provider into one the seam can own, and
 * list what is wrong with its shape. A non-object document reads as empty; a
 * non-object `scopes` map or scope entry is kept as stored (so a write does not
 * drop it) but reads as holding no sections.
 */
export function adoptDocument(input: unknown): { doc: SettingsDocument; problems: string[] } {
  const problems: string[] = []
  if (!isPlainObject(input)) {
    if (input !== undefined && input !== null) problems.push('the document is not a map of namespace sections')
    return { doc: {}, problems }
  }
  const doc = cloneStored(input) as SettingsDocument
  const scopes = own(doc, SCOPES_KEY)
  if (scopes !== undefined && !isPlainObject(scopes)) {
    problems.push(`"${SCOPES_KEY}" is not a map of scope ids`)
  } else if (scopes) {
    for (const scope of Object.keys(scopes)) {
      if (!isPlainObject(scopes[scope])) problems.push(`scope ${JSON.stringify(scope)} is not a map of namespace sections`)
    }
  }
  return { doc, problems }
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
