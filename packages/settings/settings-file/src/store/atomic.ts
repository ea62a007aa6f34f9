import fs, { closeSync, openSync, rmSync } from 'node:fs'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { tempName } from './leftovers.ts'
import { syncDirectory } from './place.ts'
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
 * @returns the temp file's path, to {@link replaceWith}, swap in (`swapIn`) or remove.
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

/** Replace `file` with `text` atomically and durably: {@link writeTemp}, then {@link replaceWith}. */
export async function writeFileAtomic(file: string, text: string, options: TempOptions = {}): Promise<void> {
  await replaceWith(await writeTemp(file, text, options), file)
}
