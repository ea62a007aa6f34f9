import fs, { closeSync, openSync, unlinkSync } from 'node:fs'
import { renameNoReplace } from './kernel.ts'

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code

/**
 * Move the file at `from` to the name `to` only while no file stands there,
 * in the strongest way this system offers: `renameat2(RENAME_NOREPLACE)` (one
 * step); else `link` (which refuses an existing name) and dropping `from`;
 * else, on a file system without hard links (exFAT, some FUSE and network
 * mounts), a look and a rename, where a save landing in the instant between
 * the two would be replaced. `fs` calls go through the module object, so a
 * test can refuse them.
 * @returns true once the file stands at `to` (the name `from` is gone); false when a file stood at `to` (nothing moved).
 */
export function placeIfFree(from: string, to: string): boolean {
  const renamed = renameNoReplace(from, to)
  if (renamed !== 'unsupported') return renamed === 'renamed'
  try {
    fs.linkSync(from, to)
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false
    // No link here (EPERM on exFAT, an I/O error): the look-then-rename below is all that is left.
    if (fs.lstatSync(to, { throwIfNoEntry: false })) return false
    fs.renameSync(from, to)
    return true
  }
  try {
    unlinkSync(from)
  } catch {
    // A second name left behind is a hidden leftover, swept once its writer is gone.
  }
  return true
}

/** fsync a directory so the renames in it survive a crash; platforms that cannot open one for syncing (Windows) skip it. */
export function syncDirectory(directory: string): void {
  let fd
  try {
    fd = openSync(directory, 'r')
    fs.fsyncSync(fd)
  } catch (error) {
    const code = errorCode(error)
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
