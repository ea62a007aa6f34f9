/**
 * The errors of dsh-settings-secrets. Each has a stable `name` and `code` to
 * branch on; no message, field or cause ever holds a secret value (a
 * reference's name, variable or path is not a value and may be shown).
 */
import { formatReference, type SecretReference } from './reference.ts'

/** Why a reference did not resolve; the set is closed. */
export type SecretReferenceReason =
  | 'missing-name'
  | 'unset-variable'
  | 'unreadable-file'
  | 'not-a-file'
  | 'too-large'
  | 'store-unavailable'

/**
 * A reference (`!secret`, `!env`, `!file`) could not be turned into its value.
 * `reference` names it (kind and name, never a value); `reason` says which
 * step failed. The cause is kept only when it is one of this package's errors.
 */
export class SecretReferenceError extends Error {
  override readonly name = 'SecretReferenceError'
  readonly code = 'SECRET_REFERENCE_UNRESOLVED'
  readonly reference: SecretReference
  readonly reason: SecretReferenceReason
  /** What went wrong, in words (the message after the reference). */
  readonly detail: string
  constructor(reference: SecretReference, reason: SecretReferenceReason, detail: string, cause?: unknown) {
    super(`${formatReference(reference)} does not resolve: ${detail}`, cause === undefined ? undefined : { cause })
    this.reference = { kind: reference.kind, name: reference.name }
    this.reason = reason
    this.detail = detail
  }
}

/** Why a keyring did not answer; the set is closed. */
export type SecretStoreUnavailableReason = 'unsupported' | 'no-service' | 'no-keyring' | 'locked' | 'ambiguous' | 'failed'

const REASON_TEXT: Record<SecretStoreUnavailableReason, string> = {
  unsupported: 'no prebuilt keychain binding loads on this platform',
  'no-service': 'no Secret Service or keychain answers',
  'no-keyring': 'there is no default keyring to write to',
  locked: 'the keyring is locked',
  ambiguous: 'more than one keyring entry matches',
  failed: 'the keyring refused the request',
}

/**
 * The operating system's keychain cannot be used: no keychain binding for
 * this platform, no Secret Service answers
 * on the session bus (or no keychain on this platform), there is no default
 * keyring, or it is locked. `service` is the keyring service name used;
 * `reason` is a closed word. The binding's own error is not kept (it is not
 * ours to vet).
 */
export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError'
  readonly code = 'SECRET_STORE_UNAVAILABLE'
  readonly service: string
  readonly reason: SecretStoreUnavailableReason
  constructor(service: string, reason: SecretStoreUnavailableReason) {
    super(`no keyring is unlocked for ${service} (${REASON_TEXT[reason]}): start one, or set \`secrets: file\``)
    this.service = service
    this.reason = reason
  }
}

/**
 * A secret name or a reference is malformed: an empty namespace, a namespace
 * or scope with characters the name grammar reserves, an empty path, an
 * unknown reference kind, or a reference without a name.
 */
export class SecretNameError extends TypeError {
  override readonly name = 'SecretNameError'
  readonly code = 'SECRET_NAME_INVALID'
}

/**
 * The at-rest key is unusable: `variable` names where it came from (for
 * example `DSH_SETTINGS_SECRET_KEY`); the message never quotes the key.
 */
export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError'
  readonly code = 'SECRET_KEY_INVALID'
  readonly variable?: string
  constructor(message: string, variable?: string) {
    super(message)
    if (variable !== undefined) this.variable = variable
  }
}

/**
 * An encrypted box did not open: it is not a `v1:` box (`malformed`), or its
 * authentication failed (`rejected`: a wrong key, or a box that was altered;
 * AES-GCM cannot tell the two apart). The message never quotes the box.
 */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError'
  readonly code = 'SECRET_BOX_INVALID'
  readonly reason: 'malformed' | 'rejected'
  constructor(reason: 'malformed' | 'rejected', detail: string) {
    super(`the encrypted secret ${detail}`)
    this.reason = reason
  }
}
