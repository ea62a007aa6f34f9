/**
 * dsh-settings-secrets: references to values kept outside a settings
 * document (`!secret`, `!env`, `!file`), the secret store interface and the
 * OS keychain store, and AES-256-GCM boxes for secrets at rest. It knows
 * nothing of the settings seam.
 */
export { decryptSecret, encryptSecret, parseSecretKey, SECRET_KEY_VARIABLE, secretKeyFromEnv } from './crypto.ts'
export {
  SecretBoxError,
  SecretKeyError,
  SecretNameError,
  SecretReferenceError,
  type SecretReferenceReason,
  SecretStoreUnavailableError,
  type SecretStoreUnavailableReason,
} from './errors.ts'
export { KeyringSecretStore, keyringService } from './keyring.ts'
export {
  formatReference,
  isSecretReference,
  REFERENCE_KEYS,
  REFERENCE_TAGS,
  referenceOfJson,
  referenceToJson,
  type SecretReference,
  type SecretReferenceKind,
} from './reference.ts'
export { resolveReference, type ResolveOptions } from './resolve.ts'
export { dropTrailingNewline, readSecretFile, SECRET_FILE_LIMIT } from './secret-file.ts'
export { parseSecretName, secretName, type SecretNameParts } from './secret-name.ts'
export type { SecretStore, SecretStoreListener } from './store.ts'
