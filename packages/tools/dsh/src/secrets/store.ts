/**
 * The secret store a deployment's file provider keeps, as the command reads
 * it with no host: `secrets:` in the provider's config decides (`file`, the
 * default: `secrets.yaml` beside the document; `keyring`: the operating
 * system's keychain under the document's real path; `inline`: none, so a
 * `!secret` does not resolve).
 */
import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { KeyringSecretStore, type SecretStore } from 'dsh-settings-secrets'

/** Where the deployment keeps its secrets. */
export type SecretsMode = 'file' | 'keyring' | 'inline'

/** The file the `file` store keeps beside the document. */
export const SECRETS_FILE = 'secrets.yaml'

/** The mode a file provider config names (`file` when it names none, or none it knows). */
export function secretsMode(config: unknown): SecretsMode {
  const named = config && typeof config === 'object' ? (config as { secrets?: unknown }).secrets : undefined
  return named === 'keyring' || named === 'inline' ? named : 'file'
}

/** The `file` store's path for the document at `documentPath`. */
export function secretsFilePath(documentPath: string): string {
  return join(dirname(documentPath), SECRETS_FILE)
}

/** The document's real path when it exists (the keyring's deployment id), else the path as given. */
function deploymentId(documentPath: string): string {
  try {
    return realpathSync(documentPath)
  } catch {
    return documentPath
  }
}

/**
 * `secrets.yaml` read once, on the first lookup, by the file provider's own
 * reading and parse (a missing file holds no names). The command only reads
 * it: writes go through the provider, which holds the lock.
 */
class SecretsFileReader implements SecretStore {
  readonly kind = 'file' as const
  private loaded: Promise<Map<string, string>> | undefined

  constructor(readonly path: string) {}

  private load(): Promise<Map<string, string>> {
    this.loaded ??= (async () => {
      const [{ readDocumentText }, { parseSettings, DEFAULT_MAX_DOCUMENT_BYTES }] = await Promise.all([import('dsh-settings-file/fast-read'), import('dsh-settings-file/codec')])
      const text = await readDocumentText(this.path, { maxBytes: DEFAULT_MAX_DOCUMENT_BYTES })
      const data = text === undefined ? {} : (parseSettings(text, 'yaml', this.path, DEFAULT_MAX_DOCUMENT_BYTES).data as Record<string, unknown>)
      return new Map(Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
    })()
    return this.loaded
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.load()).get(name)
  }

  async set(): Promise<void> {
    throw new Error('the command reads the secret store only: a write goes through the settings provider')
  }

  async delete(): Promise<boolean> {
    throw new Error('the command reads the secret store only: a write goes through the settings provider')
  }
}

/** The store `!secret` names are looked up in for the document at `documentPath`, or `undefined` for `inline`. */
export function commandSecretStore(mode: SecretsMode, documentPath: string): SecretStore | undefined {
  if (mode === 'inline') return undefined
  if (mode === 'keyring') return new KeyringSecretStore(deploymentId(documentPath))
  return new SecretsFileReader(secretsFilePath(documentPath))
}

/** How a message names the store: the `secrets.yaml` path, or the keyring's service. */
export function storeLabel(mode: SecretsMode, documentPath: string): string {
  if (mode === 'keyring') return `the keyring (${new KeyringSecretStore(deploymentId(documentPath)).service})`
  if (mode === 'inline') return 'the document (secrets: inline)'
  return secretsFilePath(documentPath)
}
