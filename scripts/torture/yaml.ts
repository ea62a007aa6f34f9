/**
 * The `yaml` package (the same version the file provider depends on), typed
 * as the torture uses it: a document edited in place like an editor would.
 */
import { parseDocument as parseYaml } from 'yaml'

/** A parsed YAML document, edited in place like an editor would (comments and order kept). */
export interface YamlDocument {
  errors: unknown[]
  getIn(path: readonly unknown[], keepScalar?: boolean): unknown
  setIn(path: readonly unknown[], value: unknown): void
  toJS(): unknown
  toString(): string
}

/** Parse `text` into an editable document; check `errors` before trusting it. */
export const parseDocument = (text: string): YamlDocument => parseYaml(text) as unknown as YamlDocument

/**
 * Parse `text` as a settings document: its data when it is valid YAML whose
 * root is a map, else `undefined` (what a reader of the file would choke on).
 */
export function parseSettingsText(text: string): Record<string, any> | undefined {
  const document = parseDocument(text)
  if (document.errors.length) return undefined
  const data = document.toJS()
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, any>) : undefined
}
