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
