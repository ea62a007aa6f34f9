import { accessSync, closeSync, constants, fstatSync, openSync, readFileSync, statSync, type BigIntStats } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'

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

function versionOf(info: BigIntStats, text: string | undefined): FileVersion {
  return { text, ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, mtimeMs: Number(info.mtimeMs), mode: Number(info.mode) & 0o7777, uid: Number(info.uid), gid: Number(info.gid) }
}

/** Read an open file whole: synchronously when it is small, else through the thread pool. */
async function readOpen(fd: number, handle: () => Promise<FileHandle>, size: bigint): Promise<string> {
  if (size <= BigInt(SYNC_READ_LIMIT)) return readFileSync(fd, 'utf8')
  return (await handle()).readFile('utf8')
}

/** Open `path` for reading, or answer `undefined` when nothing is there. */
export function openIfPresent(path: string): number | undefined {
  try {
    return openSync(path, 'r')
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Read the file at `path` with its signature, taken from the open file before
 * and after the read; a rewrite during the read is read again.
 */
export async function readVersion(path: string): Promise<FileVersion> {
  for (;;) {
    const fd = openIfPresent(path)
    if (fd === undefined) return ABSENT
    let handle: FileHandle | undefined
    try {
      const before = fstatSync(fd, { bigint: true })
      if (!before.isFile()) throw Object.assign(new Error(`${path} is not a regular file (EISDIR)`), { code: 'EISDIR' })
      // A large file is read through a handle of its own (the sync descriptor stays for the stats).
      const text = await readOpen(fd, async () => (handle = await open(path, 'r')), before.size)
      const after = fstatSync(fd, { bigint: true })
      if (before.size !== after.size || before.mtimeNs !== after.mtimeNs) continue
      return versionOf(after, text)
    } finally {
      closeSync(fd)
      await handle?.close()
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
  const now = statVersion(path)
  if (!sameSignature(now, seen)) return false
  if (seen === ABSENT || Date.now() - now.mtimeMs >= TIE_WINDOW_MS) return true
  return (await readVersion(path)).text === seen.text
}

/**
 * Why the document cannot be written, or `undefined` when it can: a document
 * or folder whose mode gives its owner no write permission (honoured even for
 * root, as editors and `rm` do), or one this process may not write. Synchronous
 * (two `stat`s and two `access`es), so `writable` can answer at call time.
 */
export function readOnlyReason(document: string): string | undefined {
  const file = statSyncOrUndefined(document)
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
