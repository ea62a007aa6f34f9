import { putSection, type SectionKey, type SettingsDocument, type SettingsSectionChange, type SettingsSectionVersion } from 'dsh-settings'

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

/** Apply rows to a document this provider owns, in place (a `null` row removes its section); section objects are shared, never changed. */
export function applyRows(doc: SettingsDocument, rows: readonly SectionRow[]): void {
  for (const row of rows) putSection(doc, keyOf(row), row.data === null ? undefined : row.data)
}

/** The changes the seam takes for rows: each section's content and store version. */
export function changesOf(rows: readonly SectionRow[]): SettingsSectionChange[] {
  return rows.map((row) => ({ ...keyOf(row), section: row.data === null ? undefined : row.data, version: row.version }))
}

/** The rows that store a transaction's changes at `version` (a removed section becomes a tombstone). */
export function rowsFor(changes: readonly SettingsSectionChange[], version: number): SectionRow[] {
  return changes.map((change) => ({ scope: rowScope(change), ns: change.ns, data: change.section === undefined ? null : change.section, version }))
}

/** The map key of a section's version: `<scope>\0<ns>`. */
export function versionKey(ns: string, scope?: string): string {
  return `${scope ?? ''}\u0000${ns}`
}

/** Set each row's version in `versions`, in place. */
export function withRows(versions: Map<string, SettingsSectionVersion>, rows: readonly SectionRow[]): void {
  for (const row of rows) versions.set(versionKey(row.ns, row.scope), { ...keyOf(row), version: row.version })
}
