import fs, { closeSync, constants, fstatSync, lstatSync, openSync, unlinkSync, type Stats } from 'node:fs'
import { lockFile } from './kernel.ts'
import { entryOf, errorCode, removeQuietly, type Entry, type LockProtocol } from './lock-portable.ts'
import type { LockOwner } from './owner.ts'

/**
 * The kernel's lock: an exclusive `flock` on `<document>.lock` (as SQLite
 * does), which the kernel drops when the holder's process dies however it
 * dies, so a dead local holder needs no take-over at all.
 * - **take**: open the lock file (creating it if absent), `flock(LOCK_EX|LOCK_NB)`,
 *   then check that the path still names the file locked (fstat against lstat:
 *   a releaser removes it, see below) and write the owner record into it, so a
 *   person, and a waiter that gives up, can see who holds it.
 * - **release**: remove the lock file while still holding it, then close it.
 *   Only a holder removes it; a waiter that had the removed file open gets its
 *   flock and finds the path no longer names it, and starts over. So the file
 *   exists only while someone holds or waits, as the portable lock's does.
 * - A lock file left by a killed holder is simply locked again; its record
 *   (another owner's) says the holder died mid-write: `tookOver`.
 * - A record found under a free flock that names a live writer of the portable
 *   lock (another file system view, a forced portable process, an older
 *   version) is that writer's lock: it is waited for like a held flock.
 */

/** A flock held on the open lock file. */
export interface FlockHold {
  fd: number
  dev: number
  ino: number
  /** The file held another owner's record: its holder died holding it. */
  tookOver: boolean
  owner: LockOwner
}

/**
 * How one try went: held; `busy` (another holds the flock); `moved` (the path
 * names another file now, or none: try again at once); `unsupported` (this file
 * system has no flock: use the portable lock); `symlink` (a symlink stands at the
 * path, never opened: the portable lock replaces it); or the entry of a live
 * portable holder.
 */
export type FlockTry = FlockHold | 'busy' | 'moved' | 'unsupported' | 'symlink' | Entry

/** Open flags: read and write (the record), never through a symlink (a root writer must not write where a link points). */
const OPEN_EXISTING = constants.O_RDWR | constants.O_NOFOLLOW
const OPEN_NEW = OPEN_EXISTING | constants.O_CREAT | constants.O_EXCL

/** Open `path`, creating it if absent; `undefined` when it vanished between the two opens, `'symlink'` for a symlink. */
function openLockFile(path: string, protocol: LockProtocol): { fd: number; created: boolean } | undefined | 'symlink' {
  try {
    const fd = openSync(path, OPEN_NEW, 0o600)
    try {
      if (protocol.give) fs.fchownSync(fd, protocol.give.uid, protocol.give.gid)
    } catch (error) {
      closeSync(fd)
      removeQuietly(path)
      throw error
    }
    return { fd, created: true }
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  }
  try {
    return { fd: openSync(path, OPEN_EXISTING), created: false }
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    if (errorCode(error) === 'ELOOP') return 'symlink'
    throw error
  }
}

/** Whether `path` names the file `held` describes now. */
export function namesFile(path: string, held: Pick<Stats, 'dev' | 'ino'>): boolean {
  const now = lstatSync(path, { throwIfNoEntry: false })
  return now !== undefined && now.ino === held.ino && now.dev === held.dev
}

/** Try once to take the flock at `path` for `protocol`'s acquirer (see the file's comment). */
export async function tryFlock(path: string, protocol: LockProtocol): Promise<FlockTry> {
  await protocol.step('open', path)
  const opened = openLockFile(path, protocol)
  if (opened === undefined) return 'moved'
  if (opened === 'symlink') return opened
  const { fd, created } = opened
  // Whether a failure would leave behind a file we made empty or half wrote (and hold): then we remove it.
  let ours = false
  let kept = false
  try {
    await protocol.step('flock', path)
    const result = lockFile(fd)
    if (result === 'unsupported') {
      // Our own empty file would read as an unknown holder to the portable lock: gone before it takes over.
      if (created) removeQuietly(path)
      return result
    }
    if (result === 'busy') return result
    ours = created
    await protocol.step('verify', path)
    const info = fstatSync(fd)
    if (!namesFile(path, info)) return 'moved'
    const found = info.size > 0 ? entryOf(fd) : undefined
    if (found?.owner && found.owner.lock !== 'flock' && !protocol.abandoned(found)) return found
    const owner: LockOwner = { ...protocol.owner, lock: 'flock' }
    await protocol.step('write-record', path)
    // From here the file may be left half written: held by us, it is ours to remove on a failure.
    ours = true
    // A root writer leaves nothing of root's in a user's folder: a lock file left by another (a crash before its chown) is given too.
    const give = protocol.give
    if (give && (info.uid !== give.uid || info.gid !== give.gid)) fs.fchownSync(fd, give.uid, give.gid)
    writeRecord(fd, JSON.stringify(owner), info.size)
    kept = true
    return { fd, dev: info.dev, ino: info.ino, tookOver: found !== undefined, owner }
  } catch (error) {
    if (ours && namesFile(path, fstatSync(fd))) removeQuietly(path)
    throw error
  } finally {
    if (!kept) closeSync(fd)
  }
}

/** Replace the file's `size` bytes with `text` (positioned: the descriptor's offset was moved by no one but us). */
function writeRecord(fd: number, text: string, size: number): void {
  if (size > 0) fs.ftruncateSync(fd, 0)
  const bytes = Buffer.from(text)
  // Through the module object, so a test can make this write fail (a full disk) without a full disk.
  const written = fs.writeSync(fd, bytes, 0, bytes.length, 0)
  if (written !== bytes.length) throw Object.assign(new Error(`ENOSPC: short write of a lock record (${written} of ${bytes.length} bytes)`), { code: 'ENOSPC' })
}

/** Release a flock taken by {@link tryFlock}: remove the file while still holding it (if the path still names it), then close it. */
export function releaseFlock(path: string, hold: FlockHold): void {
  try {
    if (namesFile(path, hold)) unlinkSync(path)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  } finally {
    // Closing drops the flock: this is the open file's only descriptor (never inherited: Node opens with O_CLOEXEC).
    closeSync(hold.fd)
  }
}
