import { lstatSync } from 'node:fs'
import { rename, unlink, utimes } from 'node:fs/promises'
import { writeTemp } from './atomic.ts'
import type { HistoryEntry } from './history.ts'
import type { LockOwner } from './owner.ts'

/**
 * Replace a kept version's content with `text` (a version rewritten so it
 * holds no secret value): written beside it, given the old file's mode,
 * owner and times (so listings keep their order and dates), then renamed
 * over it. A kept version that is no longer a regular file is left alone.
 * The caller holds the document's lock (one writer in history at a time) and
 * read the version through `DocumentHistory.read`, which refuses another
 * owner's file or a link.
 * @returns whether the version was rewritten.
 */
export async function rewriteKept(entry: HistoryEntry, text: string, writer: LockOwner): Promise<boolean> {
  const info = lstatSync(entry.path, { throwIfNoEntry: false })
  if (!info?.isFile()) return false
  const temp = await writeTemp(entry.path, text, { mode: info.mode & 0o7777, uid: info.uid, gid: info.gid, writer })
  try {
    await utimes(temp, info.atimeMs / 1000, info.mtimeMs / 1000)
    await rename(temp, entry.path)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return true
}
