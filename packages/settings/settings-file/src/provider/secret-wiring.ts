import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { KeyringSecretStore, type SecretStore } from 'dsh-settings-secrets'
import { FileSecretStore, SECRETS_FILE } from './file-secret-store.ts'
import { DocumentSecrets, type SecretsMode } from './secrets.ts'

// The provider's secret parts, imported from one place.
export { moveSecrets } from './move-secrets.ts'
export { referencesAsJson } from './secret-places.ts'
export { writeTransaction } from './transaction.ts'
export type { DocumentSecrets } from './secrets.ts'
export type { SecretStore } from 'dsh-settings-secrets'
import type { DocumentFormat } from './settings-codec.ts'

/** What {@link secretsOf} needs of the provider. */
export interface SecretsWiringOptions {
  file: string
  format: DocumentFormat
  mode: SecretsMode
  lockTimeoutMs: number
  settleMs: number
  env: Readonly<Record<string, string | undefined>>
  stopping(): boolean
  secretPaths(ns: string, section: unknown): string[][]
  warn(message: string): void
}

/** The document's folder as the file system names it (a symlinked home leads to one keyring service either way). */
function realFolder(file: string): string {
  try {
    return realpathSync(dirname(file))
  } catch {
    return dirname(file)
  }
}

/**
 * The store for `mode`: `secrets.yaml` beside the document (`file`), the OS
 * keychain filed under the document's real path (`keyring`), or none
 * (`inline`: secrets stay in the document; `!env`/`!file` still resolve).
 */
export function secretsOf(options: SecretsWiringOptions): DocumentSecrets {
  const { file, mode } = options
  const folder = dirname(file)
  let store: SecretStore | undefined
  if (mode === 'file') store = new FileSecretStore(join(folder, SECRETS_FILE), options)
  else if (mode === 'keyring') store = new KeyringSecretStore(join(realFolder(file), file.slice(folder.length + 1)))
  return new DocumentSecrets({ ...options, folder, store })
}

/**
 * Check the store answers before the provider starts: a keyring that is
 * missing or locked fails the start with `SecretStoreUnavailableError`
 * (what to do about it, never a value).
 */
export async function checkStore(store: SecretStore | undefined): Promise<void> {
  if (store?.kind === 'keyring') await store.names?.()
}

/**
 * An effect (for `ctx.effect`) that follows the store's outside changes (a
 * hand edit of `secrets.yaml`): `changed` runs after each, until disposed.
 */
export function storeWatchEffect(store: SecretStore | undefined, timing: { debounceMs: number; recheckMs: number }, changed: () => void): () => () => void {
  return () => {
    if (!store?.onChange) return () => {}
    const unsubscribe = store.onChange(changed)
    const stop = store instanceof FileSecretStore ? store.watch(timing) : Promise.resolve(async () => {})
    return () => {
      unsubscribe()
      void stop.then((close) => close(), () => {})
    }
  }
}
