import { getSection, SCOPES_KEY, type SectionKey, type SettingsDocument, type SettingsSectionVersion } from 'dsh-settings'
import { isPlainObject, setOwn } from 'dsh-settings/data'

/** One stored section as the provider's table holds it; `data` is `null` for a removed section (its tombstone keeps the version). */
export interface SectionRow {
  /** The named scope, or `''` for a global section. */
  scope: string
  ns: string
  data: unknown
  version: number
}

/** The section key a row stands for. */
export function keyOf(row: Pick<SectionRow, 'scope' | 'ns'>): SectionKey {
  return row.scope === '' ? { ns: row.ns } : { ns: row.ns, scope: row.scope }
}

/** The row scope of a section key: `''` for the global scope. */
export function rowScope(key: SectionKey): string {
  return key.scope ?? ''
}

/** The store version of each row, as the seam takes them. */
export function versionsOf(rows: readonly SectionRow[]): SettingsSectionVersion[] {
  return rows.map((row) => ({ ...keyOf(row), version: row.version }))
}

/**
 * A new document: `base` with each row applied (a `null` row removes its
 * section). The root and the touched `scopes` maps are fresh copies; every
 * section object is shared, so `base` is never changed.
 */
export function applyRows(base: SettingsDocument, rows: readonly SectionRow[]): SettingsDocument {
  const doc: SettingsDocument = { ...base }
  let scopesCopied = false
  const copiedScopes = new Set<string>()
  for (const row of rows) {
    if (row.scope === '') {
      if (row.data === null) delete doc[row.ns]
      else setOwn(doc, row.ns, row.data)
      continue
    }
    if (!scopesCopied) {
      setOwn(doc, SCOPES_KEY, isPlainObject(doc[SCOPES_KEY]) ? { ...(doc[SCOPES_KEY] as object) } : {})
      scopesCopied = true
    }
    const scopes = doc[SCOPES_KEY] as Record<string, unknown>
    if (!copiedScopes.has(row.scope)) {
      setOwn(scopes, row.scope, isPlainObject(scopes[row.scope]) ? { ...(scopes[row.scope] as object) } : {})
      copiedScopes.add(row.scope)
    }
    const sections = scopes[row.scope] as Record<string, unknown>
    if (row.data === null) delete sections[row.ns]
    else setOwn(sections, row.ns, row.data)
  }
  return doc
}

/** The rows that store `changed` sections of `next` at `version` (a section `next` lacks becomes a tombstone). */
export function rowsFor(next: SettingsDocument, changed: readonly SectionKey[], version: number): SectionRow[] {
  return changed.map((key) => {
    const data = getSection(next, key.ns, key.scope)
    return { scope: rowScope(key), ns: key.ns, data: data === undefined ? null : data, version }
  })
}

/** A copy of `versions` (by `<scope>\0<ns>`) with each row's version set; `versions` is not changed. */
export function withRows(versions: ReadonlyMap<string, SettingsSectionVersion>, rows: readonly SectionRow[]): Map<string, SettingsSectionVersion> {
  const next = new Map(versions)
  for (const row of rows) next.set(`${row.scope}\u0000${row.ns}`, { ...keyOf(row), version: row.version })
  return next
}
