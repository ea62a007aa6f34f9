import fs, { closeSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { link, mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { asideName, putAsideBack, removeName, tempName } from './leftovers.ts'
import { currentOwner, type LockOwner } from './owner.ts'

/** How a replacement file is made: its mode and owner (those of the file it replaces), and its writer. */
export interface TempOptions {
  /** Permission bits; default 0600. */
  mode?: number
  /** Owner to give the file when it differs from this process's (only root can). */
  uid?: number
  gid?: number
  /** The writer named in the temp file's name, so a dead writer's leftover can be told apart. */
  writer?: LockOwner
}

/**
 * Texts up to this many characters are written with synchronous system calls.
 * Measured here, a 14 KB document's open-write-fsync-close-rename-fsync takes
 * 0.5-0.7 ms that way, 0.5-0.6 ms plus a loop turn per fsync with only the
 * fsyncs in the thread pool, and 1.0-1.2 ms with every call there: the round
 * trips cost more than the fsyncs. The event loop waits for two fsyncs of a
 * small file; a larger text would hold it for its whole write, so it goes
 * through the thread pool.
 */
const SYNC_WRITE_MAX = 1 << 20

/** The owner to give a new file, when this process is root and it differs from root's. */
function ownerToSet(options: TempOptions): { uid: number; gid: number } | undefined {
  const { uid, gid } = options
  if (process.getuid?.() !== 0 || uid === undefined || gid === undefined || uid < 0 || gid < 0 || (uid === 0 && gid === 0)) return undefined
  return { uid, gid }
}

/**
 * Write `text` to a fresh temp sibling of `file` and fsync it. The temp file is
 * created exclusively (`wx` refuses a planted symlink) with mode 0600, then given
 * `mode` and owner; it is removed on any failure. Missing folders get mode 0700.
 * @returns the temp file's path, to {@link replaceWith} or remove.
 */
export async function writeTemp(file: string, text: string, options: TempOptions = {}): Promise<string> {
  const temp = join(dirname(file), tempName(basename(file), options.writer ?? currentOwner()))
  if (text.length <= SYNC_WRITE_MAX) {
    writeSmallText(temp, text, options)
    return temp
  }
  await mkdir(dirname(file), { recursive: true, mode: 0o700 })
  const handle = await open(temp, 'wx', 0o600)
  try {
    try {
      await handle.writeFile(text)
      if (options.mode !== undefined && options.mode !== 0o600) await handle.chmod(options.mode)
      const owner = ownerToSet(options)
      if (owner) await handle.chown(owner.uid, owner.gid)
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return temp
}

/** {@link writeTemp}'s path for a small text at `temp`: synchronous calls. */
function writeSmallText(temp: string, text: string, options: TempOptions): void {
  let fd: number
  try {
    fd = openSync(temp, 'wx', 0o600)
  } catch (error) {
    // The folder is nearly always there: it is made only when the open says it is not.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    fs.mkdirSync(dirname(temp), { recursive: true, mode: 0o700 })
    fd = openSync(temp, 'wx', 0o600)
  }
  try {
    try {
      fs.writeFileSync(fd, text)
      if (options.mode !== undefined && options.mode !== 0o600) fs.fchmodSync(fd, options.mode)
      const owner = ownerToSet(options)
      if (owner) fs.fchownSync(fd, owner.uid, owner.gid)
      fs.fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

/**
 * {@link writeTemp} for a few bytes (a lock record): synchronous, not fsynced,
 * in an existing folder. Three quick system calls cost less than as many
 * round trips through the thread pool, which is most of a lock's price.
 * @param give - the owner to give the file (a root process writing for a user's document), through the open file.
 * @returns the temp file's path; nothing is left behind when writing fails.
 */
export function writeSmallTemp(file: string, text: string, writer: LockOwner, give?: { uid: number; gid: number }): string {
  const temp = join(dirname(file), tempName(basename(file), writer))
  const fd = openSync(temp, 'wx', 0o600)
  try {
    try {
      // Through the module object, so a test can make this write fail (a full disk) without a full disk.
      fs.writeFileSync(fd, text)
      if (give) fs.fchownSync(fd, give.uid, give.gid)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  return temp
}

/** Rename `temp` over `file`, then fsync the folder so the rename survives a crash. `temp` is removed if the rename fails. */
export async function replaceWith(temp: string, file: string): Promise<void> {
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  syncDirectory(dirname(file))
}

/**
 * Put `temp` at `file` only if `file` is still the inode `expectedIno`, then
 * fsync the folder. POSIX has no compare-and-rename, and Node has no
 * `renameat2`, so the document is first moved aside under a hidden name of this
 * writer ({@link asideName}): that rename takes whatever stands at `file` at
 * that instant, and a save that lands after it finds the name free. The file
 * set aside is checked, and `link` places `temp` only while the name is still
 * free. An editor's rename save therefore either was set aside (and goes back)
 * or comes after (and refuses the link); none is overwritten unseen.
 *
 * The price is a moment of three system calls, back to back, with no file at
 * `file` (as vim and Emacs leave when they move the original to a backup). A
 * reader that finds the document missing while an aside of it stands waits for
 * it; a writer killed in that moment leaves the aside, and the next writer's
 * sweep puts it back ({@link sweepLeftovers}).
 * @returns true once `temp`'s content stands at `file` (its temp name is
 * gone); false, with the document back and `temp` at its own name, when
 * `file` is no longer that inode or a save took the name meanwhile.
 */
export function replaceIfSame(temp: string, file: string, expectedIno: bigint): boolean {
  const aside = asideName(temp)
  try {
    renameSync(file, aside)
  } catch (error) {
    // The document is gone: nothing to replace.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  let placed: boolean
  try {
    placed = statSync(aside, { bigint: true }).ino === expectedIno && linkIfFree(temp, file)
  } catch (error) {
    putBack(aside, file)
    throw error
  }
  // A save landed since the last read: it was set aside (and goes back), or took the free name (and stays).
  if (!placed) {
    putBack(aside, file)
    return false
  }
  // The temp name goes at once: a document with a second name counts as hard-linked.
  removeName(temp)
  removeName(aside)
  syncDirectory(dirname(file))
  return true
}

/** `link` `from` to `to` unless a file already stands at `to`. */
function linkIfFree(from: string, to: string): boolean {
  try {
    // Through the module object, so a test can make the link fail.
    fs.linkSync(from, to)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** Return a file set aside to `file`; when a newer save took the name meanwhile, that save stays and the aside goes. */
function putBack(aside: string, file: string): void {
  if (!putAsideBack(aside, file)) removeName(aside)
}

/**
 * Place `temp` at `file` only if nothing is there (`link` refuses an existing
 * name), then fsync the folder. `temp` stays for the caller to remove.
 * @returns false when a file appeared at `file` meanwhile.
 */
export async function placeNew(temp: string, file: string): Promise<boolean> {
  try {
    await link(temp, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  syncDirectory(dirname(file))
  return true
}

/** Replace `file` with `text` atomically and durably: {@link writeTemp}, then {@link replaceWith}. */
export async function writeFileAtomic(file: string, text: string, options: TempOptions = {}): Promise<void> {
  await replaceWith(await writeTemp(file, text, options), file)
}

/** fsync a directory (synchronously, as {@link SYNC_WRITE_MAX} explains); platforms that cannot open one for syncing (Windows) skip it. */
function syncDirectory(directory: string): void {
  let fd
  try {
    fd = openSync(directory, 'r')
    fs.fsyncSync(fd)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
