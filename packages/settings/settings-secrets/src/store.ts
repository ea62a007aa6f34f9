/**
 * The secret store a deployment keeps its secrets in: a flat map of secret
 * names to values. dsh-settings-file hosts the file store (`secrets.yaml`);
 * {@link KeyringSecretStore} is the operating system's keychain.
 */

/** A function called after the store's content changed (for example by a hand edit of its file). */
export type SecretStoreListener = () => void

/**
 * A flat map of secret names to values. Names are what `secretName` makes
 * (or what a person wrote after `!secret`); values are strings. A store
 * that cannot answer throws (a keyring throws `SecretStoreUnavailableError`);
 * it never answers `undefined` for a name it could not look up.
 */
export interface SecretStore {
  /** `file` for `secrets.yaml` beside the document, `keyring` for the OS keychain. */
  readonly kind: 'file' | 'keyring'
  /** The value stored under `name`, or `undefined` when there is none. */
  get(name: string): Promise<string | undefined>
  /** Store `value` under `name`, replacing what was there. */
  set(name: string, value: string): Promise<void>
  /** Remove `name`; `true` when there was something to remove. */
  delete(name: string): Promise<boolean>
  /** Every name stored, where the store can list them. */
  names?(): Promise<string[]>
  /** Call `listener` after each outside change, where the store can see them; returns the unsubscribe. */
  onChange?(listener: SecretStoreListener): () => void
}
