/**
 * Reading a file of the home that a command trusts (the settings catalog, a
 * running host's record): only a regular file, reached without following a
 * symlink at its name, that belongs to this user and that no one else may
 * read or write. Anything else is refused with the reason, so the caller can
 * say why it ignored the file.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** Why {@link readOwnFile} refused a file. */
export type OwnFileRefusal = 'missing' | 'symlink' | 'not-a-file' | 'not-yours' | 'open-to-others' | 'unreadable'

/** What {@link readOwnFile} found: the text, or why it was not read. */
export type OwnFileRead = { text: string } | { refused: OwnFileRefusal; why: string }

/** Text for each refusal, after the file's path. */
const WHY: Record<OwnFileRefusal, string> = {
  missing: 'does not exist',
  symlink: 'is a symbolic link',
  'not-a-file': 'is not a regular file',
  'not-yours': 'belongs to another user',
  'open-to-others': 'may be read or written by other users (it must be mode 0600)',
  unreadable: 'cannot be read',
}

/** The owners whose files this process takes: itself; run as root, also the owner of the file's folder (what a root host leaves there). */
function acceptedOwners(path: string): Set<number> | undefined {
  const uid = process.geteuid?.()
  if (uid === undefined) return undefined
  const owners = new Set([uid])
  if (uid === 0) {
    try {
      owners.add(statSync(dirname(path)).uid)
    } catch {}
  }
  return owners
}

function refusal(path: string, refused: OwnFileRefusal): OwnFileRead {
  return { refused, why: `${path} ${WHY[refused]}` }
}

/**
 * Read `path` if it is this user's own private file: a regular file (its own
 * name not a symlink), owned by this user (run as root: by root or by the
 * owner of its folder), with no permission bit for group or others. The
 * checks are made on the open file, so nothing swapped in between is read.
 * Where the platform has no user ids (Windows) only the kind of file is checked.
 */
export function readOwnFile(path: string): OwnFileRead {
  let fd: number
  try {
    // O_NOFOLLOW: a symlink at the name fails the open (ELOOP); O_NONBLOCK: a FIFO planted there does not hang it.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return refusal(path, 'missing')
    if (code === 'ELOOP') return refusal(path, 'symlink')
    return refusal(path, 'unreadable')
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return refusal(path, 'not-a-file')
    const owners = acceptedOwners(path)
    if (owners && !owners.has(info.uid)) return refusal(path, 'not-yours')
    if (owners && info.mode & 0o077) return refusal(path, 'open-to-others')
    return { text: readFileSync(fd, 'utf8') }
  } catch {
    return refusal(path, 'unreadable')
  } finally {
    closeSync(fd)
  }
}
