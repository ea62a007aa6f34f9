import type { LockOwner } from './owner.ts'

/**
 * What the document store refuses, as plain errors with a stable `name` and
 * `code`. They know nothing of settings: the file provider turns each into its
 * public `Settings*` class (`settingsErrorOf` in `dsh-settings-file`). A
 * message names the file and what is wrong, never a file's content.
 */

/** What stands at a path that is not a regular file. */
export type NotAFileKind = 'directory' | 'FIFO' | 'socket' | 'character device' | 'block device' | 'special file'

/**
 * Something other than a regular file stands at the path (a FIFO, a socket, a
 * device or a directory, reached directly or through a symlink). It is refused
 * at once, never opened for a blocking read.
 */
export class NotAFileError extends Error {
  override readonly name = 'NotAFileError'
  readonly code = 'NOT_A_FILE'
  constructor(
    /** The path asked for. */
    readonly file: string,
    /** What stands there. */
    readonly kind: NotAFileKind,
    /** The path a symlink leads to, when that is where the thing stands. */
    readonly target?: string,
  ) {
    const where = target !== undefined && target !== file ? `${file} (a symlink to ${target})` : file
    super(`${where} is a ${kind}, not a regular file; it is neither read nor written`)
  }
}

/** A file over the size cap it was read with: not a byte of it is read. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError'
  readonly code = 'FILE_TOO_LARGE'
  constructor(
    /** The path asked for. */
    readonly file: string,
    /** Its size in bytes. */
    readonly bytes: number,
    /** The cap. */
    readonly limit: number,
  ) {
    super(`${file} is ${bytes} bytes, over the cap of ${limit}; it is not read`)
  }
}

/** A path the store cannot follow: a symlink that leads back to itself, or through too many links. */
export class PathLoopError extends Error {
  override readonly name = 'PathLoopError'
  readonly code = 'PATH_LOOP'
  constructor(
    message: string,
    /** The path asked for. */
    readonly file: string,
  ) {
    super(message)
  }
}

/** A writer could not take the lock in time; another process holds it. */
export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError'
  readonly code = 'LOCK_TIMEOUT'
  constructor(
    /** The file whose lock was held. */
    readonly file: string,
    /** The owner found in the lock file, when it could be read. */
    readonly owner: LockOwner | undefined,
    /** How long the writer waited. */
    readonly timeoutMs: number,
  ) {
    super(`${file} is locked by ${owner ? `pid ${owner.pid} on ${owner.hostname}` : 'an unknown owner'}; gave up after ${timeoutMs} ms`)
  }
}

/** Why a file in `history/` is not taken for one the store made. */
export type UnsafeHistoryFileReason = 'symlink' | 'not a regular file' | 'foreign owner' | 'unreadable'

/**
 * A kept version or the journal in `history/` is not a regular file the store
 * made (a symlink, something other than a regular file, another owner's file):
 * it is neither read nor written.
 */
export class UnsafeHistoryFileError extends Error {
  override readonly name = 'UnsafeHistoryFileError'
  readonly code = 'HISTORY_UNSAFE'
  constructor(
    /** The file in `history/`. */
    readonly file: string,
    /** What is wrong with it. */
    readonly reason: UnsafeHistoryFileReason,
    /** What the message says is wrong (its kind, its owner), without content. */
    readonly detail: string,
  ) {
    super(`history file ${file} ${detail}, not a file this store made; it is neither read nor written (remove it)`)
  }
}

/** The `history/` folder cannot take versions now: not writable, a symlink, or not a folder. */
export class HistoryUnavailableError extends Error {
  override readonly name = 'HistoryUnavailableError'
  readonly code = 'HISTORY_UNAVAILABLE'
  constructor(
    /** The history folder. */
    readonly directory: string,
    /** Why it cannot be used, in words (`its mode 0555 gives its owner no write permission`). */
    readonly reason: string,
  ) {
    super(`history folder ${directory} is unavailable: ${reason}`)
  }
}

/** A write gave up: the document (or where its symlink leads) kept changing under it. Nothing was written. */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError'
  readonly code = 'STORE_BUSY'
  constructor(
    /** The document. */
    readonly file: string,
    /** What kept changing, in words. */
    readonly reason: string,
  ) {
    super(`${file}: ${reason}; nothing was written`)
  }
}

/** Any error the store raises of its own (system calls fail with Node's errno errors besides). */
export type StoreError = StoreBusyError | NotAFileError | FileTooLargeError | PathLoopError | LockTimeoutError | UnsafeHistoryFileError | HistoryUnavailableError
