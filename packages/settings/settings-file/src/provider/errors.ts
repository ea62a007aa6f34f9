import { SCOPES_KEY, SettingsStoreError } from 'dsh-settings'
import { pathText } from '../codec/data.ts'
import { bytesText, DocumentCannotHoldError, DocumentError, DocumentNotAMapError, DocumentTooLargeError } from '../codec/errors.ts'
import { FileTooLargeError, HistoryUnavailableError, LockTimeoutError, NotAFileError, PathLoopError, StoreBusyError, UnsafeHistoryFileError, type NotAFileKind, type UnsafeHistoryFileReason } from '../store/errors.ts'
import type { LockOwner } from '../store/owner.ts'

export type { NotAFileKind, UnsafeHistoryFileReason }

/**
 * The settings document cannot be used: unreadable, unparsable, of an
 * unsupported kind, or not a map. A write refused for it is `rejected`: it
 * cannot succeed until the user mends the file. The message gives the
 * position, never the document's text.
 */
export class SettingsDocumentError extends SettingsStoreError {
  override readonly name: string = 'SettingsDocumentError'
  declare readonly code: 'SETTINGS_DOCUMENT' | 'SETTINGS_NOT_A_FILE' | 'SETTINGS_NOT_A_MAP'
  constructor(
    message: string,
    /** The document's path. */
    readonly file: string,
    /** Where parsing failed, 1-based, when it did. */
    readonly position?: { line: number; column: number },
    /** A subclass's more precise code. */
    code: 'SETTINGS_DOCUMENT' | 'SETTINGS_NOT_A_FILE' | 'SETTINGS_NOT_A_MAP' = 'SETTINGS_DOCUMENT',
  ) {
    super(code, message, file, { refusal: 'rejected' })
  }
}

/**
 * Something other than a regular file stands at the document path (a FIFO, a
 * socket, a device or a directory, reached directly or through a symlink). It
 * is refused at once, never opened for a blocking read: a load fails, a reload
 * keeps the last good settings, a write is refused (`rejected`) with nothing written.
 */
export class SettingsNotAFileError extends SettingsDocumentError {
  override readonly name: string = 'SettingsNotAFileError'
  declare readonly code: 'SETTINGS_NOT_A_FILE'
  constructor(
    file: string,
    /** What stands there. */
    readonly kind: NotAFileKind,
    /** The path a symlinked document leads to, when that is where the thing stands. */
    readonly target?: string,
  ) {
    const where = target !== undefined && target !== file ? `${file} (a symlink to ${target})` : file
    super(`settings document ${where} is a ${kind}, not a regular file; it is neither read nor written`, file, undefined, 'SETTINGS_NOT_A_FILE')
  }
}

/**
 * The document parses, but its root is not a map of namespace sections: a
 * sequence, a scalar, or a tagged root (`--- !!set`, `!!omap`, `!!str`, a
 * custom tag; `!!map` is a map). A load fails, a reload keeps the last good
 * settings, a write is refused (`rejected`) with nothing written over it.
 * `position` is the root's tag, or its first character; the message says what
 * the root is, never what it holds.
 */
export class SettingsNotAMapError extends SettingsDocumentError {
  override readonly name: string = 'SettingsNotAMapError'
  declare readonly code: 'SETTINGS_NOT_A_MAP'
  declare readonly position: { line: number; column: number }
  constructor(message: string, file: string, position: { line: number; column: number }) {
    super(message, file, position, 'SETTINGS_NOT_A_MAP')
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

/**
 * A kept version or the journal in `history/` is not a regular file the
 * provider made: a symlink, something other than a regular file, or a file of
 * another owner (a root-only file linked in). It is neither read nor written
 * (no symlink is followed there): listing, comparing and restoring refuse
 * (`rejected`), and a write skips its journal record with a warning. The
 * message names the file and what is wrong, never its content.
 */
export class SettingsUnsafeHistoryFileError extends SettingsStoreError {
  override readonly name = 'SettingsUnsafeHistoryFileError'
  declare readonly code: 'SETTINGS_HISTORY_UNSAFE'
  constructor(
    /** The file in `history/`. */
    readonly file: string,
    /** What is wrong with it. */
    readonly reason: UnsafeHistoryFileReason,
    /** The detail the message gives (its kind, its owner), without content. */
    detail: string,
  ) {
    super('SETTINGS_HISTORY_UNSAFE', `settings history file ${file} ${detail}, not a file this provider made; it is neither read nor written (remove it)`, file, { refusal: 'rejected' })
  }
}

/**
 * The `history/` folder cannot take versions now: not writable (mode 0555, or
 * another owner's, say a root-owned folder under a user's host), a symlink, or
 * not a folder. Writes still land, with a warning naming the folder and the
 * reason, but keep no version; `keepsHistory` answers false and listing,
 * comparing and restoring are refused (`rejected`) until the folder is usable.
 */
export class SettingsHistoryUnavailableError extends SettingsStoreError {
  override readonly name = 'SettingsHistoryUnavailableError'
  declare readonly code: 'SETTINGS_HISTORY_UNAVAILABLE'
  constructor(
    /** The history folder. */
    readonly directory: string,
    /** Why it cannot be used, in words (`its mode 0555 gives its owner no write permission`). */
    readonly reason: string,
  ) {
    super('SETTINGS_HISTORY_UNAVAILABLE', `settings history folder ${directory} is unavailable: ${reason}; writes keep no version until it is usable`, directory, { refusal: 'rejected' })
  }
}

/** The refusal of data YAML cannot hold, placed in its section (`ns`, `scope`) as a validation error is. */
function cannotHoldOf(error: DocumentCannotHoldError): SettingsDocumentCannotHoldError {
  const { documentPath, file } = error
  const scoped = documentPath[0] === SCOPES_KEY && documentPath.length >= 3
  const section = scoped ? { scope: documentPath[1]!, ns: documentPath[2]! } : documentPath.length ? { ns: documentPath[0]! } : {}
  const inside = scoped ? 3 : section.ns === undefined ? 0 : 1
  const where = section.ns === undefined ? 'the document' : `section ${JSON.stringify(section.ns)}${scoped ? ` in scope ${section.scope}` : ''}`
  return new SettingsDocumentCannotHoldError(
    `settings document ${file} cannot hold the value at ${pathText(error.at.slice(inside))} of ${where}: written as YAML it does not read back the same; nothing was written`,
    file,
    documentPath.slice(inside),
    [...documentPath],
    section,
  )
}

/** The public class of a codec or store refusal, or `undefined` for anything else. */
function converted(error: unknown): SettingsStoreError | undefined {
  if (error instanceof DocumentNotAMapError) return new SettingsNotAMapError(`settings document ${error.file} is not a map of namespace sections: ${error.root}, at line ${error.position.line}, column ${error.position.column}`, error.file, error.position)
  if (error instanceof DocumentError) return new SettingsDocumentError(`settings document ${error.file} ${error.detail}`, error.file, error.position)
  if (error instanceof DocumentTooLargeError) return new SettingsDocumentTooLargeError(error.file, error.bytes, error.limit, error.next)
  if (error instanceof DocumentCannotHoldError) return cannotHoldOf(error)
  if (error instanceof FileTooLargeError) return new SettingsDocumentTooLargeError(error.file, error.bytes, error.limit)
  if (error instanceof NotAFileError) return new SettingsNotAFileError(error.file, error.kind, error.target)
  if (error instanceof PathLoopError) return new SettingsDocumentError(error.message, error.file)
  if (error instanceof LockTimeoutError) return new SettingsLockTimeoutError(error.file, error.owner, error.timeoutMs)
  if (error instanceof UnsafeHistoryFileError) return new SettingsUnsafeHistoryFileError(error.file, error.reason, error.detail)
  if (error instanceof HistoryUnavailableError) return new SettingsHistoryUnavailableError(error.directory, error.reason)
  return undefined
}

/**
 * The public `Settings*` error for a refusal of the codec or the store (a
 * document that does not parse, a lock not taken in time, ...), with the same
 * fields and the stack of where it was raised; anything else, a `Settings*`
 * error included, is returned as it is. The provider calls it where the
 * codec's and the store's errors leave it.
 */
export function settingsErrorOf(error: unknown): unknown {
  const settings = converted(error)
  if (!settings) return error
  // The place the refusal was raised is worth more than this conversion's.
  const frames = (error as Error).stack?.split('\n').slice(1)
  if (frames?.length) settings.stack = [`${settings.name}: ${settings.message}`, ...frames].join('\n')
  return settings
}

/** Run `body`, throwing what it throws as {@link settingsErrorOf} gives it. */
export function withSettingsErrors<T>(body: () => T): T {
  try {
    return body()
  } catch (error) {
    throw settingsErrorOf(error)
  }
}

/** A refusal of the store or the codec as the seam's callers see it: its public `Settings*` class (a busy store: `SETTINGS_STORE_BUSY`). */
export function settingsError(file: string, error: unknown): unknown {
  if (error instanceof StoreBusyError) return new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${error.message}`, file)
  return settingsErrorOf(error)
}
