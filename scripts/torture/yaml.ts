/**
 * The `yaml` package, as the file provider itself depends on it. The workspace
 * root does not depend on `yaml` (pnpm keeps dependencies strict), so it is
 * loaded from dsh-settings-file's own dependencies; only what the torture
 * uses is typed here.
 */
import { createRequire } from 'node:module'

/** A parsed YAML document, edited in place like an editor would (comments and order kept). */
export interface YamlDocument {
  errors: unknown[]
  getIn(path: readonly unknown[]): unknown
  setIn(path: readonly unknown[], value: unknown): void
  toJS(): unknown
  toString(): string
}

interface YamlModule {
  parseDocument(text: string): YamlDocument
}

const requireFromProvider = createRequire(new URL('../../packages/settings/settings-file/package.json', import.meta.url))
const yaml = requireFromProvider('yaml') as YamlModule

/** Parse `text` into an editable document; check `errors` before trusting it. */
export const parseDocument = (text: string): YamlDocument => yaml.parseDocument(text)

/**
 * Parse `text` as a settings document: its data when it is valid YAML whose
 * root is a map, else `undefined` (what a reader of the file would choke on).
 */
export function parseSettingsText(text: string): Record<string, any> | undefined {
  const document = yaml.parseDocument(text)
  if (document.errors.length) return undefined
  const data = document.toJS()
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, any>) : undefined
}
