import { lstatSync, renameSync } from 'node:fs'
import { dirname } from 'node:path'
import { exchangePaths } from './kernel.ts'
import { asideName, putAsideBack, removeName } from './leftovers.ts'
import { placeIfFree, syncDirectory } from './place.ts'

/**
 * How {@link swapIn} went: `replaced` names the file that stood at the path
 * (the version read), now under a hidden name of this writer, for the caller
 * to keep or remove; `changed` when another file stood there (a save landed:
 * it stays at the path); `gone` when nothing stood there. In both refusals
 * nothing changed at the path and the temp file is still at its own name.
 */
export type SwapResult = { replaced: string } | 'changed' | 'gone'

/** Which way a write replaces the document on this file system: see {@link swapIn}. */
export type ReplaceWay = 'exchange' | 'aside'

/** The way the last {@link swapIn} took in this process, for the README's "how to see it" and for tests. */
let lastWay: ReplaceWay | undefined

/** The way the last replace of this process took (`undefined` before the first). */
export function lastReplaceWay(): ReplaceWay | undefined {
  return lastWay
}

const inodeOf = (path: string) => lstatSync(path, { bigint: true }).ino
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code

/**
 * Put the temp file `temp` at `file` only if `file` is still the inode
 * `expectedIno` (the version read), then fsync the folder.
 *
 * Where the kernel and the file system have it, one `renameat2(RENAME_EXCHANGE)`
 * swaps the two: a reader of `file` finds a whole document at every instant,
 * and the temp name then holds what stood at the path. When that is not the
 * version read (an editor's rename save landed since the last check), a second
 * exchange returns the editor's file to the path, never overwritten.
 *
 * Elsewhere (exFAT, NFS, other platforms) the document is moved aside under a
 * hidden name of this writer, checked, and the temp placed by
 * {@link placeIfFree}, which needs no hard link; a reader may find the path
 * empty for those few system calls (it waits for a live writer's aside, and a
 * dead writer's is put back by the next sweep).
 */
export function swapIn(temp: string, file: string, expectedIno: bigint): SwapResult {
  const ours = inodeOf(temp)
  let exchanged
  try {
    exchanged = exchangePaths(temp, file)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'gone'
    throw error
  }
  if (exchanged === 'unsupported') return swapAside(temp, file, expectedIno)
  lastWay = 'exchange'
  if (inodeOf(temp) !== expectedIno) {
    exchangeBack(temp, file, ours)
    return 'changed'
  }
  syncDirectory(dirname(file))
  return { replaced: temp }
}

/**
 * Undo an exchange that brought back a file other than the version read: it
 * goes back to the path. Should yet another save have taken the path in the
 * instant between (what comes back is not this writer's file), that newest
 * save goes to the path, and the one it superseded is left at the temp name.
 */
function exchangeBack(temp: string, file: string, ours: bigint): void {
  exchangePaths(temp, file)
  if (inodeOf(temp) !== ours) exchangePaths(temp, file)
}

/** {@link swapIn} where no exchange is available: set the document aside, check it, place the temp. */
function swapAside(temp: string, file: string, expectedIno: bigint): SwapResult {
  lastWay = 'aside'
  const aside = asideName(temp)
  try {
    renameSync(file, aside)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return 'gone'
    throw error
  }
  let placed: boolean
  try {
    placed = inodeOf(aside) === expectedIno && placeIfFree(temp, file)
  } catch (error) {
    putBack(aside, file)
    throw error
  }
  // A save landed since the last check: it was set aside (and goes back), or took the free name (and stays).
  if (!placed) {
    putBack(aside, file)
    return 'changed'
  }
  syncDirectory(dirname(file))
  return { replaced: aside }
}

/** Return a file set aside to `file`; when a newer save took the name meanwhile, that save stays and the aside goes. */
function putBack(aside: string, file: string): void {
  if (!putAsideBack(aside, file)) removeName(aside)
}

/**
 * Place `temp` at `file` only if nothing stands there ({@link placeIfFree}),
 * then fsync the folder.
 * @returns false when a file appeared at `file` meanwhile (`temp` stays at its own name).
 */
export function placeNew(temp: string, file: string): boolean {
  if (!placeIfFree(temp, file)) return false
  syncDirectory(dirname(file))
  return true
}
