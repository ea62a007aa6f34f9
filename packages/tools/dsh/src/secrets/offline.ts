/**
 * References for a command with no host running: the stored document
 * resolved as the file provider resolves it (so the recorded schemas judge
 * values, not references).
 */
import { dirname } from 'node:path'
import type { SettingsDocument } from 'dsh-settings'
import { formatPath } from 'dsh-settings'
import { referencesAsJson, resolveDocument, type HeldReference } from './references.ts'
import { commandSecretStore, secretsMode } from './store.ts'

/** The stored document as the command reads it: resolved, and what its references were. */
export interface ReadDocument {
  /** Each reference replaced by its value (one that does not resolve left out). */
  document: SettingsDocument
  /** The document with its references in JSON form: what a view with no schema shows. */
  stored: SettingsDocument
  held: HeldReference[]
}

/**
 * Resolve the references of the file provider's `document` (at `documentPath`,
 * with the provider `config`) against `env`; each that does not resolve is told
 * to `note` (naming it, never a value) and read as not set.
 */
export async function resolveStored(document: SettingsDocument, documentPath: string, config: unknown, env: NodeJS.ProcessEnv, note: (line: string) => void): Promise<ReadDocument> {
  const store = commandSecretStore(secretsMode(config), documentPath)
  const resolved = await resolveDocument(document, { store, env, baseDir: dirname(documentPath) })
  for (const { ns, scope, path, error } of resolved.unresolved) {
    note(`note: ${scope === undefined ? ns : `${ns} in ${scope}`} ${formatPath(path)}: ${error.message}; read as not set here`)
  }
  return { document: resolved.document, stored: resolved.held.length ? referencesAsJson(document) : document, held: resolved.held }
}
