import { SettingsStoreError } from 'dsh-settings'
import type { LockOwner } from './owner.ts'

/**
 * The settings document cannot be used: unreadable, unparsable, of an
 * unsupported kind, or not a map. A write refused for it is `rejected`: it
 * cannot succeed until the user mends the file. The message gives the
 * position, never the document's text.
 */
export class SettingsDocumentError extends SettingsStoreError {
  override readonly name = 'SettingsDocumentError'
  declare readonly code: 'SETTINGS_DOCUMENT'
  constructor(
    message: string,
    /** The document's path. */
    readonly file: string,
    /** Where parsing failed, 1-based, when it did. */
    readonly position?: { line: number; column: number },
  ) {
    super('SETTINGS_DOCUMENT', message, file, { refusal: 'rejected' })
  }
}

/** A writer could not take the document lock in time; another process holds it. The write may succeed later: `unavailable`. */
export class SettingsLockTimeoutError extends SettingsStoreError {
  override readonly name = 'SettingsLockTimeoutError'
  declare readonly code: 'SETTINGS_LOCK_TIMEOUT'
  constructor(
    /** The document whose lock was held. */
    readonly file: string,
    /** The owner found in the lock file, when it could be read. */
    readonly owner: LockOwner | undefined,
    timeoutMs: number,
  ) {
    super('SETTINGS_LOCK_TIMEOUT', `settings document ${file} is locked by ${owner ? `pid ${owner.pid} on ${owner.hostname}` : 'an unknown owner'}; gave up after ${timeoutMs} ms`, file, { refusal: 'unavailable' })
  }
}

/** A byte count as `N bytes`, with MiB or KiB beside it when that reads better. */
function bytesText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${bytes} bytes (${+(bytes / (1024 * 1024)).toFixed(2)} MiB)`
  if (bytes >= 1024) return `${bytes} bytes (${+(bytes / 1024).toFixed(2)} KiB)`
  return `${bytes} bytes`
}

/**
 * The document, or the document a write would produce, is over the size cap
 * (`maxDocumentBytes`). A document over it fails the load, is ignored on a
 * reload, and refuses writes; a write whose result would be over it is refused,
 * nothing written. `rejected`: the same write cannot succeed as it stands.
 */
export class SettingsDocumentTooLargeError extends SettingsStoreError {
  override readonly name = 'SettingsDocumentTooLargeError'
  declare readonly code: 'SETTINGS_DOCUMENT_TOO_LARGE'
  constructor(
    /** The document's path. */
    readonly file: string,
    /** The size found (UTF-8 bytes). */
    readonly bytes: number,
    /** The cap. */
    readonly limit: number,
    /** Whether this is the document a write would produce (else the one on disk). */
    readonly next = false,
  ) {
    super(
      'SETTINGS_DOCUMENT_TOO_LARGE',
      next
        ? `settings document ${file} would be ${bytesText(bytes)} after this write, over the cap of ${bytesText(limit)} (maxDocumentBytes); nothing was written`
        : `settings document ${file} is ${bytesText(bytes)}, over the cap of ${bytesText(limit)} (maxDocumentBytes); it is not read`,
      file,
      { refusal: 'rejected' },
    )
  }
}

/**
 * A write carries data the document's format cannot hold so that it reads back
 * the same (YAML only: JSON holds any JSON data). Nothing was written.
 * `path` is the place inside the section (`ns`, `scope`), as on a validation
 * error; the message names that place, never the value.
 */
export class SettingsDocumentCannotHoldError extends SettingsStoreError {
  override readonly name = 'SettingsDocumentCannotHoldError'
  declare readonly code: 'SETTINGS_DOCUMENT_CANNOT_HOLD'
  /** The namespace of the section concerned, when the place is inside one. */
  readonly ns?: string
  /** Its scope, for a scoped section. */
  readonly scope?: string
  constructor(
    message: string,
    /** The document's path. */
    readonly file: string,
    /** The place inside the section (array indexes as strings); empty for the section itself. */
    readonly path: string[],
    /** The same place from the document's root. */
    readonly documentPath: string[],
    section: { ns?: string; scope?: string } = {},
  ) {
    super('SETTINGS_DOCUMENT_CANNOT_HOLD', message, file, { refusal: 'rejected' })
    if (section.ns !== undefined) this.ns = section.ns
    if (section.scope !== undefined) this.scope = section.scope
  }
}
