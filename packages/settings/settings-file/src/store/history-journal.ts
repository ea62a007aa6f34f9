import { createHash } from 'node:crypto'
import { closeSync, constants, fchownSync, fstatSync, lstatSync, openSync, read, readSync } from 'node:fs'
import { rename, unlink } from 'node:fs/promises'
import { promisify } from 'node:util'
import { APPEND_OWN, CREATE_OWN, READ_OWN, writeAll, type HistoryFiles } from './history-files.ts'
import type { FileOwnerIds } from './owner.ts'
import { randomHex } from './random.ts'

/** What the journal's newest records say. */
export interface JournalRead {
  /** The records of who made each text, by digest, oldest first. */
  authors: Map<string, { at: number; by: string[] }[]>
  /** When the oldest record read was made, or `undefined` when none was. */
  first: Date | undefined
  /** How many bytes of the journal were read (at most its bound). */
  bytesRead: number
}

/** One stored text to note in the journal: who made it, and when. */
export interface JournalNote {
  text: string
  by: readonly string[]
  at: Date
}

/**
 * The journal's bound in bytes: 1 KiB per kept version (a record is about
 * 130 bytes, so 4 to 7 records each), at least 64 KiB, at most 4 MiB. A write
 * that takes the journal past it trims it to its newest half; a listing reads
 * at most this many bytes from its end, however large the file has grown.
 */
export function journalLimit(keep: number): number {
  return Math.min(4 * 1024 * 1024, Math.max(64 * 1024, keep * 1024))
}

/** The SHA-256 of a document's text, hex. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** How much of the journal a listing reads between two turns of the event loop. */
const CHUNK = 64 * 1024
const NEWLINE = 0x0a
const readAt = promisify(read)
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code

/**
 * The journal of one document's writes (`history/<stem>.journal.jsonl`): one
 * JSON line `{ at, sha256, by }` per document this host stored, so a kept
 * version with the same text can say who made it. Bounded in bytes
 * ({@link journalLimit}); never read whole. Only a regular file of the
 * document's owner is read or appended to (see {@link HistoryFiles}).
 */
export class HistoryJournal {
  constructor(
    /** The journal's path. */
    readonly path: string,
    /** Its bound in bytes. */
    readonly limit: number,
    private readonly files: HistoryFiles,
  ) {}

  /**
   * Append one record per note, in one write. The append may run without the
   * document's lock: when another writer's trim replaced the journal meanwhile
   * and did not carry these lines over, they are appended to the new journal too.
   * @param give - whom a new journal is given to: the document's owner under root.
   * @returns whether the journal is now over its bound (then {@link trim} it, holding the lock).
   * @throws {UnsafeHistoryFileError} for a journal that is a symlink, not a regular file, or another owner's.
   */
  append(notes: readonly JournalNote[], give: FileOwnerIds | undefined): boolean {
    const lines = Buffer.from(notes.map(({ text, by, at }) => `${JSON.stringify({ at: at.toISOString(), sha256: digest(text), by: [...by].sort() })}\n`).join(''))
    let written = this.appendLines(lines, give)
    for (let round = 0; round < 2; round++) {
      const standing = lstatSync(this.path, { throwIfNoEntry: false })
      if (!standing || standing.ino === written.ino || this.tailHolds(lines)) break
      written = this.appendLines(lines, give)
    }
    return written.size > this.limit
  }

  /** Append `lines` to the journal; the file's identity and size after it. */
  private appendLines(lines: Buffer, give: FileOwnerIds | undefined): { ino: number; size: number } {
    const fd = this.openForAppend(give)
    try {
      writeAll(fd, lines)
      const { ino, size } = fstatSync(fd)
      return { ino, size }
    } finally {
      closeSync(fd)
    }
  }

  /** Whether the journal's last records include `lines` (a trim that carried them over). */
  private tailHolds(lines: Buffer): boolean {
    const fd = this.files.open(this.path, READ_OWN)
    if (fd === undefined) return false
    try {
      const size = fstatSync(fd).size
      const from = Math.max(0, size - CHUNK)
      const tail = Buffer.alloc(size - from)
      const count = readSync(fd, tail, 0, tail.length, from)
      return tail.subarray(0, count).includes(lines)
    } finally {
      closeSync(fd)
    }
  }

  /** Open the journal to append, creating it (exclusively, given to `give`) when it does not exist. */
  private openForAppend(give: FileOwnerIds | undefined): number {
    for (let round = 0; ; round++) {
      // Nearly always there: opened first, created only when it is not.
      const existing = this.files.open(this.path, APPEND_OWN)
      if (existing !== undefined) return existing
      try {
        const fd = openSync(this.path, CREATE_OWN | constants.O_APPEND, 0o600)
        try {
          if (give) fchownSync(fd, give.uid, give.gid)
        } catch (error) {
          closeSync(fd)
          throw error
        }
        return fd
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw this.files.refusal(this.path, error)
      }
      if (round >= 2) throw new Error(`settings history journal ${this.path} kept disappearing`)
    }
  }

  /**
   * Keep the journal's newest half (whole lines): read that much from its end,
   * write it to a new file, rename it over. The rename runs off the event loop:
   * replacing a journal an older version grew large frees its blocks in that call.
   * Run it holding the document's lock, so two trims never race.
   * @param give - whom the trimmed journal is given to: the document's owner under root.
   */
  async trim(give: FileOwnerIds | undefined): Promise<void> {
    const fd = this.files.open(this.path, READ_OWN)
    if (fd === undefined) return
    let tail: Buffer
    try {
      const size = fstatSync(fd).size
      const start = Math.max(0, size - Math.floor(this.limit / 2))
      // From one byte earlier, to tell whether the tail starts on a line's start.
      const from = Math.max(0, start - 1)
      tail = Buffer.alloc(size - from)
      let filled = 0
      while (filled < tail.length) {
        const count = readSync(fd, tail, filled, tail.length - filled, from + filled)
        if (count === 0) break
        filled += count
      }
      tail = tail.subarray(0, filled)
      if (start > 0) {
        const newline = tail.indexOf(NEWLINE)
        tail = newline < 0 ? Buffer.alloc(0) : tail.subarray(newline + 1)
      }
    } finally {
      closeSync(fd)
    }
    const temp = `${this.path}.${randomHex(4)}.tmp`
    const out = openSync(temp, CREATE_OWN, 0o600)
    try {
      try {
        writeAll(out, tail)
        if (give) fchownSync(out, give.uid, give.gid)
      } finally {
        closeSync(out)
      }
      // A rename replaces the name: whatever stood there (even a link planted meanwhile) is never written through.
      await rename(temp, this.path)
    } catch (error) {
      await unlink(temp).catch(() => {})
      throw error
    }
  }

  /**
   * What the journal's newest records say: at most its bound from its end (a
   * journal grown past it by an older version is not read whole), read
   * asynchronously in 64 KiB chunks and parsed chunk by chunk, so the event
   * loop keeps turning. A torn line (a crash mid-append) is skipped.
   * @throws {UnsafeHistoryFileError} for a journal that is a symlink, not a regular file, or another owner's.
   */
  async read(): Promise<JournalRead> {
    const result: JournalRead = { authors: new Map(), first: undefined, bytesRead: 0 }
    const fd = this.files.open(this.path, READ_OWN)
    if (fd === undefined) return result
    try {
      const size = fstatSync(fd).size
      let position = Math.max(0, size - this.limit)
      // Up to the window's first newline lies the end of a line it cut (unless it starts the file).
      let skipping = position > 0
      let pending = Buffer.alloc(0)
      const buffer = Buffer.alloc(CHUNK)
      while (position < size) {
        const { bytesRead } = await readAt(fd, buffer, 0, Math.min(CHUNK, size - position), position)
        if (bytesRead === 0) break
        position += bytesRead
        result.bytesRead += bytesRead
        let chunk = Buffer.concat([pending, buffer.subarray(0, bytesRead)])
        if (skipping) {
          const newline = chunk.indexOf(NEWLINE)
          if (newline < 0) {
            pending = Buffer.alloc(0)
            continue
          }
          chunk = chunk.subarray(newline + 1)
          skipping = false
        }
        const last = chunk.lastIndexOf(NEWLINE)
        pending = Buffer.from(chunk.subarray(last + 1))
        if (last >= 0) takeRecords(chunk.subarray(0, last).toString('utf8'), result)
      }
      if (!skipping && pending.length) takeRecords(pending.toString('utf8'), result)
    } finally {
      closeSync(fd)
    }
    return result
  }
}

/** Parse whole journal lines into `into`; a line that is not a record is skipped. */
function takeRecords(lines: string, into: JournalRead): void {
  for (const line of lines.split('\n')) {
    if (!line) continue
    try {
      const record = JSON.parse(line) as { at?: unknown; sha256?: unknown; by?: unknown }
      const at = typeof record.at === 'string' ? Date.parse(record.at) : Number.NaN
      if (typeof record.sha256 !== 'string' || !Array.isArray(record.by) || Number.isNaN(at)) continue
      into.first ??= new Date(at)
      const list = into.authors.get(record.sha256) ?? []
      list.push({ at, by: record.by.filter((who): who is string => typeof who === 'string') })
      into.authors.set(record.sha256, list)
    } catch {
      // A torn line (a crash mid-append) is skipped.
    }
  }
}
