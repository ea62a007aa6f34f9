import { closeSync, constants, fchmodSync, fstatSync, openSync } from 'node:fs'
import type { DocumentHistory } from './history.ts'

/**
 * The version a write replaced, as kept: the history entry, and the file to
 * watch for an editor's late write into the old file.
 */
export interface KeptVersion {
  /** The history entry, when history took the version. */
  entry?: string
  /** The old file itself: the entry when it was moved there, else its hidden name beside the document. */
  watched: string
  /** Whether {@link watched} is that hidden name, to remove once the late-edit window closes. */
  hidden: boolean
}

/** Opened to look at and seal a replaced file: never through a symlink, never waiting on a FIFO. */
const OPEN_REPLACED = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * Keep the file a write just replaced (now at `replaced`, a hidden name of
 * this writer beside the document; see `swapIn`). While no other name shares
 * it, it is sealed (owner-only, through its open file) and moved into
 * history as it is: sealed before the write answers, nothing copied, and the
 * entry shows an editor's late write. A file with another name (a second hard
 * link, whose mode a seal would change) or a history on another file system
 * gets a copy in history, and the file stays at its hidden name to be watched.
 * With no history (off, or unavailable: warned by it), only the hidden name.
 * Never throws: a version that cannot be kept costs only that version.
 */
export async function keepReplaced(replaced: string, history: DocumentHistory | undefined): Promise<KeptVersion> {
  const hidden: KeptVersion = { watched: replaced, hidden: true }
  if (!history) return hidden
  try {
    const owner = sealAlone(replaced)
    const entry = owner && history.adopt(replaced, owner)
    if (entry) return { entry, watched: entry, hidden: false }
    const copy = await history.keep(replaced, undefined, { copy: true })
    return { entry: copy?.path, watched: replaced, hidden: true }
  } catch {
    return hidden
  }
}

/**
 * Seal the file at `path` (mode 0600) when it is a regular file no other name shares.
 * @returns its owner (the document's, which history's files must match) when it is such a file.
 */
function sealAlone(path: string): { uid: number; gid: number } | undefined {
  const fd = openSync(path, OPEN_REPLACED)
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.nlink !== 1) return undefined
    // Already owner-only (as a document usually is): nothing to change.
    if ((info.mode & 0o077) !== 0) fchmodSync(fd, 0o600)
    return { uid: info.uid, gid: info.gid }
  } finally {
    closeSync(fd)
  }
}
