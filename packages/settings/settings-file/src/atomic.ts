import fs, { closeSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { link, mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { tempName } from './leftovers.ts'
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
 * Write `text` to a fresh temp sibling of `file` and fsync it. The temp file is
 * created exclusively (`wx` refuses a planted symlink) with mode 0600, then given
 * `mode` and owner; it is removed on any failure. Missing folders get mode 0700.
 * @returns the temp file's path, to {@link replaceWith} or remove.
 */
export async function writeTemp(file: string, text: string, options: TempOptions = {}): Promise<string> {
  const directory = dirname(file)
  await mkdir(directory, { recursive: true, mode: 0o700 })
  const temp = join(directory, tempName(basename(file), options.writer ?? currentOwner()))
  const handle = await open(temp, 'wx', 0o600)
  try {
    try {
      await handle.writeFile(text)
      if (options.mode !== undefined && options.mode !== 0o600) await handle.chmod(options.mode)
      const asRoot = process.getuid?.() === 0
      if (asRoot && options.uid !== undefined && options.gid !== undefined && options.uid >= 0 && options.gid >= 0 && (options.uid !== 0 || options.gid !== 0)) {
        await handle.chown(options.uid, options.gid)
      }
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
  await syncDirectory(dirname(file))
}

/**
 * Rename `temp` over `file` only if `file` is still the inode `expectedIno`,
 * then fsync the folder. The check and the rename run back to back without
 * yielding to the event loop, so the window in which a rename by someone else
 * goes unseen is the time between two system calls. `temp` is removed if the
 * rename fails; it stays for the caller when the check fails.
 * @returns false (nothing renamed) when `file` is no longer that inode.
 */
export async function replaceIfSame(temp: string, file: string, expectedIno: bigint): Promise<boolean> {
  try {
    if (statSync(file, { bigint: true }).ino !== expectedIno) return false
    renameSync(temp, file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    await unlink(temp).catch(() => {})
    throw error
  }
  await syncDirectory(dirname(file))
  return true
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
  await syncDirectory(dirname(file))
  return true
}

/** Replace `file` with `text` atomically and durably: {@link writeTemp}, then {@link replaceWith}. */
export async function writeFileAtomic(file: string, text: string, options: TempOptions = {}): Promise<void> {
  await replaceWith(await writeTemp(file, text, options), file)
}

/** fsync a directory; platforms that cannot open one for syncing (Windows) skip it. */
async function syncDirectory(directory: string): Promise<void> {
  let handle
  try {
    handle = await open(directory, 'r')
    await handle.sync()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error
  } finally {
    await handle?.close()
  }
}
