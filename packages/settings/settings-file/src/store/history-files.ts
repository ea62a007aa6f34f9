import { closeSync, constants, fstatSync, lstatSync, openSync, writeSync } from 'node:fs'
import { open, unlink } from 'node:fs/promises'
// The store's own errors (named as the provider's until this file's uses are renamed).
import { NotAFileError, UnsafeHistoryFileError } from './errors.ts'
import { ownerOf, trustedOwner, type FileOwnerIds } from './owner.ts'
import { notAFileKind } from './version.ts'

/*
 * How `history/`'s files are opened: never through a symlink (`O_NOFOLLOW`),
 * never blocking on a FIFO (`O_NONBLOCK`), new ones exclusively; and only a
 * regular file of the document's owner is taken for one history made. A host
 * run as root over a user's home must not be led by a link the user planted
 * into reading or writing a file only root may touch.
 */

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0
const NON_BLOCKING = constants.O_NONBLOCK ?? 0
/** Read an existing file of history's. */
export const READ_OWN = constants.O_RDONLY | NO_FOLLOW | NON_BLOCKING
/** Append to an existing file of history's. */
export const APPEND_OWN = constants.O_WRONLY | constants.O_APPEND | NO_FOLLOW | NON_BLOCKING
/** Create a new file in history (fails on any existing name, a symlink included, without following it). */
export const CREATE_OWN = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code

/** The uid this process acts as, for messages. */
const uidText = () => String(process.geteuid?.() ?? '?')

/**
 * Opens the files of one document's history, refusing anything that is not
 * a regular file of the document's owner with {@link UnsafeHistoryFileError}.
 */
export class HistoryFiles {
  /** @param document - the document whose owner history's files must belong to. */
  constructor(private readonly document: string) {}

  /**
   * Open `path` with `flags` (one of {@link READ_OWN}, {@link APPEND_OWN}) and
   * check the open file: a regular file of the document's owner (or of this
   * process, when it is not root).
   * @returns the descriptor, or `undefined` when nothing is there.
   * @throws {UnsafeHistoryFileError} for a symlink, anything but a regular file, another owner's file, or one this process may not open.
   */
  open(path: string, flags: number): number | undefined {
    let fd: number
    try {
      fd = openSync(path, flags)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined
      throw this.refusal(path, error)
    }
    try {
      const info = fstatSync(fd)
      if (!info.isFile()) throw new UnsafeHistoryFileError(path, 'not a regular file', `is a ${notAFileKind(info)}`)
      if (!trustedOwner(info.uid, this.document)) {
        throw new UnsafeHistoryFileError(path, 'foreign owner', `belongs to uid ${info.uid}, not to the document's owner (uid ${ownerOf(this.document).uid})`)
      }
      return fd
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  /** The typed refusal for a failed open of `path` (a symlink, a FIFO, no permission); other failures as they are. */
  refusal(path: string, error: unknown): unknown {
    const code = errorCode(error)
    let info
    try {
      info = lstatSync(path)
    } catch {}
    if (info?.isSymbolicLink()) return new UnsafeHistoryFileError(path, 'symlink', 'is a symlink')
    if (info && !info.isFile() && (code === 'ENXIO' || code === 'EISDIR' || code === 'EOPNOTSUPP' || code === 'ELOOP')) {
      return new UnsafeHistoryFileError(path, 'not a regular file', `is a ${notAFileKind(info)}`)
    }
    if (code === 'EACCES' || code === 'EPERM') {
      return new UnsafeHistoryFileError(path, 'unreadable', `cannot be opened by this process (uid ${uidText()}${info ? `; it belongs to uid ${info.uid}` : ''})`)
    }
    return error
  }
}

/** Write a whole buffer at a descriptor's position. */
export function writeAll(fd: number, data: Buffer): void {
  for (let written = 0; written < data.length; ) written += writeSync(fd, data, written, data.length - written)
}

/**
 * Copy the regular file at `from` into a new file `to` (mode 0600, created
 * exclusively, never through a symlink), given to `give` when set. The source
 * is opened without following a symlink and checked on the open file.
 * @throws {NotAFileError} when `from` is not a regular file; `ELOOP` when it is a symlink.
 */
export async function copyRegular(from: string, to: string, give: FileOwnerIds | undefined): Promise<void> {
  const source = await open(from, READ_OWN)
  try {
    const info = await source.stat()
    if (!info.isFile()) throw new NotAFileError(from, notAFileKind(info))
    const bytes = await source.readFile()
    const target = await open(to, CREATE_OWN, 0o600)
    try {
      try {
        await target.writeFile(bytes)
        if (give) await target.chown(give.uid, give.gid)
      } finally {
        await target.close()
      }
    } catch (error) {
      await unlink(to).catch(() => {})
      throw error
    }
  } finally {
    await source.close()
  }
}
