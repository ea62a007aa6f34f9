import type { LockOwner } from './owner.ts'

/** The settings document cannot be used: unreadable, unparsable, of an unsupported kind, or not a map. */
export class SettingsDocumentError extends Error {
  override readonly name = 'SettingsDocumentError'
  readonly code = 'SETTINGS_DOCUMENT'
  constructor(
    message: string,
    /** The document's path. */
    readonly file: string,
    /** Where parsing failed, 1-based, when it did. */
    readonly position?: { line: number; column: number },
  ) {
    super(message)
  }
}

/** A writer could not take the document lock in time; another process holds it. */
export class SettingsLockTimeoutError extends Error {
  override readonly name = 'SettingsLockTimeoutError'
  readonly code = 'SETTINGS_LOCK_TIMEOUT'
  constructor(
    /** The document whose lock was held. */
    readonly file: string,
    /** The owner found in the lock file, when it could be read. */
    readonly owner: LockOwner | undefined,
    timeoutMs: number,
  ) {
    super(`settings document ${file} is locked by ${owner ? `pid ${owner.pid} on ${owner.hostname}` : 'an unknown owner'}; gave up after ${timeoutMs} ms`)
  }
}
