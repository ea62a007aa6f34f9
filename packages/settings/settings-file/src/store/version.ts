import { accessSync, closeSync, constants, fstatSync, openSync, read, readSync, realpathSync, statSync, type BigIntStats, type Stats } from 'node:fs'
import { promisify } from 'node:util'
import { dirname } from 'node:path'
// The store's own errors (named as the provider's until this file's uses are renamed).
import { FileTooLargeError, NotAFileError, type NotAFileKind } from './errors.ts'

/**
 * Which version of the document a path holds: its inode, size and mtime (to
 * the nanosecond), read together with its text. Two looks at the same path
 * agree on these when nothing replaced or rewrote the file in between, except
 * for an in-place rewrite of the same size within one tick of the file
 * system's clock, which only a content comparison tells apart.
 */
export interface FileVersion {
  /** The text, or `undefined` while the file does not exist. */
  text: string | undefined
  ino: bigint
  size: bigint
  mtimeNs: bigint
  /** mtime in milliseconds, for freshness. */
  mtimeMs: number
  mode: number
  uid: number
  gid: number
}

/** The version a missing file reports. */
export const ABSENT: FileVersion = Object.freeze({ text: undefined, ino: -1n, size: -1n, mtimeNs: -1n, mtimeMs: 0, mode: 0, uid: -1, gid: -1 })

/** A version whose mtime is younger than this may hide a same-size rewrite in the same clock tick: compare content. */
export const TIE_WINDOW_MS = 2000

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code
const readAt = promisify(read)

/**
 * Files up to this size are read and stat'ed with synchronous system calls:
 * each takes microseconds, where a round trip through the thread pool takes
 * about a tenth of a millisecond, and a write makes a dozen such looks.
 * Larger documents are read asynchronously so the event loop keeps running.
 */
export const SYNC_READ_LIMIT = 1024 * 1024

/** Whether two looks name the same inode with the same size and mtime. */
export function sameSignature(a: FileVersion, b: FileVersion): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs
}

/** The version a file's `stat` (taken with `bigint`) describes, with `text` as its content. */
export function versionOf(info: BigIntStats, text: string | undefined): FileVersion {
  return { text, ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, mtimeMs: Number(info.mtimeMs), mode: Number(info.mode) & 0o7777, uid: Number(info.uid), gid: Number(info.gid) }
}

/**
 * Read an open file whole: synchronously when it is small, else through the
 * thread pool, from the same descriptor (opening the path again could open
 * whatever was swapped in meanwhile).
 */
async function readOpen(fd: number, size: bigint): Promise<string> {
  if (size <= BigInt(SYNC_READ_LIMIT)) return readSmall(fd, Number(size))
  // In as few reads as its size allows (readFile of a descriptor goes 64 KiB per thread-pool round trip),
  // then decoded once (asked for text, readFile decodes chunk by chunk, twice as slow for a large file).
  let buffer = Buffer.allocUnsafe(Number(size) + 1)
  let filled = 0
  for (;;) {
    if (filled === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)])
    const { bytesRead } = await readAt(fd, buffer, filled, buffer.length - filled, filled)
    if (bytesRead === 0) return buffer.toString('utf8', 0, filled)
    filled += bytesRead
  }
}

/** Room for reading a small file, reused: most documents fit, and are read with one system call. */
const smallBuffer = Buffer.allocUnsafe(64 * 1024)

/**
 * Read an open file of `size` bytes (as its `fstat` said) whole, synchronously:
 * asking for one byte more than that, so a short read at the size is the end
 * (`readFileSync` of a descriptor reads in 8 KiB steps and once more for the end).
 * A file that grew meanwhile is read on to its end.
 */
function readSmall(fd: number, size: number): string {
  let buffer = size < smallBuffer.length ? smallBuffer : Buffer.allocUnsafe(size + 1)
  let filled = 0
  for (;;) {
    const asked = buffer.length - filled
    const count = readSync(fd, buffer, filled, asked, filled)
    filled += count
    if (count === 0 || (count < asked && filled >= size)) return buffer.toString('utf8', 0, filled)
    if (filled === buffer.length) buffer = Buffer.concat([buffer.subarray(0, filled), Buffer.allocUnsafe(buffer.length)])
  }
}

/**
 * Read-only and non-blocking: opening a FIFO with no writer (or a device) for a
 * plain read would block the event loop for good. For a regular file the flag
 * changes nothing.
 */
const READ_NONBLOCKING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/** Open `path` for reading without ever blocking, or answer `undefined` when nothing is there. */
export function openIfPresent(path: string): number | undefined {
  try {
    return openSync(path, READ_NONBLOCKING)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
}

/** What a stat says stands at a path that is not a regular file. */
export function notAFileKind(info: Pick<Stats | BigIntStats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>): NotAFileKind {
  if (info.isDirectory()) return 'directory'
  if (info.isFIFO()) return 'FIFO'
  if (info.isSocket()) return 'socket'
  if (info.isCharacterDevice()) return 'character device'
  if (info.isBlockDevice()) return 'block device'
  return 'special file'
}

/** Where `path` leads through its symlinks, for a refusal's message (the path itself when that cannot be told). */
function realPath(path: string): string {
  try {
    return realpathSync.native(path)
  } catch {
    return path
  }
}

/** How {@link openDocument} and {@link readVersion} name what they refuse, and what they refuse. */
export interface DocumentReadOptions {
  /** The document as configured (a symlink, say), for errors; defaults to the path read. */
  document?: string
  /** Refuse a file larger than this many bytes before reading it. */
  maxBytes?: number
}

/**
 * Open the regular file at `path` for reading, never blocking: the open is
 * non-blocking and the open descriptor is checked (so a file swapped for a
 * FIFO between a look and the open is still caught), and refused before a
 * byte is read when it is not a regular file or is over `maxBytes`.
 * @returns the descriptor and its stats, or `undefined` when nothing is there.
 * @throws {NotAFileError} for a FIFO, socket, device or directory.
 * @throws {FileTooLargeError} for a file over `maxBytes`.
 */
export function openDocument(path: string, options: DocumentReadOptions = {}): { fd: number; info: BigIntStats } | undefined {
  const document = options.document ?? path
  let fd: number | undefined
  try {
    fd = openIfPresent(path)
  } catch (error) {
    // A socket cannot be opened at all (ENXIO), a directory not everywhere (EISDIR): say what it is.
    const code = errorCode(error)
    if (code !== 'ENXIO' && code !== 'EISDIR' && code !== 'EOPNOTSUPP') throw error
    const info = statSync(path, { throwIfNoEntry: false })
    if (!info) return undefined
    throw new NotAFileError(document, notAFileKind(info), realPath(path))
  }
  if (fd === undefined) return undefined
  try {
    const info = fstatSync(fd, { bigint: true })
    if (!info.isFile()) throw new NotAFileError(document, notAFileKind(info), realPath(path))
    if (options.maxBytes !== undefined && info.size > BigInt(options.maxBytes)) throw new FileTooLargeError(document, Number(info.size), options.maxBytes)
    return { fd, info }
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/**
 * Read the text of the regular file at `path`, or `undefined` when nothing is
 * there, with the refusals of {@link openDocument}.
 */
export async function readDocumentText(path: string, options: DocumentReadOptions = {}): Promise<string | undefined> {
  const opened = openDocument(path, options)
  if (!opened) return undefined
  try {
    return await readOpen(opened.fd, opened.info.size)
  } finally {
    closeSync(opened.fd)
  }
}

/**
 * Read the file at `path` with its signature, taken from the open file before
 * and after the read; a rewrite during the read is read again.
 * @throws {NotAFileError} when something other than a regular file stands there; nothing is read.
 * @throws {FileTooLargeError} for a file over `options.maxBytes`; nothing is read.
 */
export async function readVersion(path: string, options: DocumentReadOptions = {}): Promise<FileVersion> {
  for (;;) {
    const opened = openDocument(path, options)
    if (opened === undefined) return ABSENT
    const { fd, info: before } = opened
    try {
      const text = await readOpen(fd, before.size)
      const after = fstatSync(fd, { bigint: true })
      if (before.size !== after.size || before.mtimeNs !== after.mtimeNs) continue
      return versionOf(after, text)
    } finally {
      closeSync(fd)
    }
  }
}

/** The signature of `path` without its text (one synchronous `stat`). */
export function statVersion(path: string): FileVersion {
  const info = statSync(path, { bigint: true, throwIfNoEntry: false })
  return info ? versionOf(info, undefined) : ABSENT
}

/**
 * Whether `path` still holds the version `seen` (read with its text): the
 * same signature, and where that could hide a same-tick rewrite, the same text.
 */
export async function holdsVersion(path: string, seen: FileVersion): Promise<boolean> {
  if (seen === ABSENT || Date.now() - seen.mtimeMs >= TIE_WINDOW_MS) return sameSignature(statVersion(path), seen)
  // Young enough for a same-tick rewrite: the signature, then the text, through one open file.
  const fd = openIfPresent(path)
  if (fd === undefined) return false
  try {
    const info = fstatSync(fd, { bigint: true })
    // A rewrite landing while this reads moves the mtime, which the caller's watch from `seen` then sees.
    return sameSignature(versionOf(info, undefined), seen) && (await readOpen(fd, info.size)) === seen.text
  } finally {
    closeSync(fd)
  }
}

/**
 * Why the document cannot be written, or `undefined` when it can: a document
 * or folder whose mode gives its owner no write permission (honoured even for
 * root, as editors and `rm` do), or one this process may not write. Synchronous
 * (two `stat`s and two `access`es), so `writable` can answer at call time.
 * @param known - the document's version as just read (its mode saves a `stat`).
 */
export function readOnlyReason(document: string, known?: FileVersion): string | undefined {
  // The mode of the version just read, when there is one: no second look at the file.
  const file = known && known !== ABSENT ? known : statSyncOrUndefined(document)
  if (file) {
    if ((file.mode & 0o200) === 0) return `its mode ${octal(file.mode)} gives its owner no write permission`
    if (!writableByUs(document)) return 'this process may not write it'
  }
  const directory = dirname(document)
  const folder = statSyncOrUndefined(directory)
  if (folder && (folder.mode & 0o200) === 0) return `its folder ${directory} has mode ${octal(folder.mode)}, which gives its owner no write permission`
  if (folder && !writableByUs(directory)) return `this process may not write its folder ${directory}`
  return undefined
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0')

function statSyncOrUndefined(path: string): { mode: number } | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

function writableByUs(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch (error) {
    return errorCode(error) !== 'EACCES' && errorCode(error) !== 'EROFS' && errorCode(error) !== 'EPERM'
  }
}
