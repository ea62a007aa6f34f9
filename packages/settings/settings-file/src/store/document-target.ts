import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
// The store's own error (named as the provider's until this file's uses are renamed).
import { PathLoopError } from './errors.ts'

/** Symlinks followed at most, as the kernel does (Linux's `MAXSYMLINKS` is 40). */
const MAX_LINKS = 40

/**
 * Where a document path really leads: the file a write replaces and the
 * symlinks on the way. A symlinked document (a link into a dotfiles folder)
 * is written through: the link stays a link and the file at its end is
 * replaced, also when it does not exist yet.
 */
export interface DocumentTarget {
  /** The file at the end of the symlinks, in a folder without symlinks; it may not exist yet. */
  file: string
  /** Each symlink followed, in order, in the same form; empty for a plain document. */
  links: string[]
}

/** `directory` without symlinks: resolved as far as it exists, the rest appended as written. */
export function realDirectory(directory: string): string {
  try {
    return realpathSync.native(directory)
  } catch {
    const parent = dirname(directory)
    return parent === directory ? directory : join(realDirectory(parent), basename(directory))
  }
}

/**
 * Follow `path` through its symlinks, whether or not the file at their end
 * exists (`realpath` gives up on a dangling link). Synchronous: a few
 * `lstat`s and `readlink`s, microseconds each, on every write and reload, so a
 * link retargeted meanwhile is followed at once.
 * @param folder - `path`'s folder without symlinks, when the caller resolved it moments ago (a second
 *   look within one write): the document's own links are followed again, its folders are not.
 * @throws {PathLoopError} for a symlink loop (or a chain longer than 40 links).
 */
export function resolveTarget(path: string, folder?: string): DocumentTarget {
  const links: string[] = []
  let current = join(folder ?? realDirectory(dirname(resolve(path))), basename(path))
  for (;;) {
    const info = lstatSync(current, { throwIfNoEntry: false })
    if (!info?.isSymbolicLink()) return { file: current, links }
    if (links.length >= MAX_LINKS || links.includes(current)) {
      throw new PathLoopError(`settings document ${path} is a symlink that leads back to itself (or through over ${MAX_LINKS} links)`, path)
    }
    let to: string
    try {
      to = readlinkSync(current)
    } catch (error) {
      // Replaced between the two looks: look again.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'EINVAL') continue
      throw error
    }
    links.push(current)
    const next = resolve(dirname(current), to)
    current = join(realDirectory(dirname(next)), basename(next))
  }
}

/** Whether two resolutions lead the same way. */
export function sameTarget(a: DocumentTarget, b: DocumentTarget): boolean {
  return a.file === b.file && a.links.length === b.links.length && a.links.every((link, index) => link === b.links[index])
}
