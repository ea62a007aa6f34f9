import { createHash, randomBytes } from 'node:crypto'
import { appendFileSync, chmodSync, constants, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { copyFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'

/** How many replaced versions of the document are kept, and for how long. */
export interface HistoryLimits {
  /** The newest versions kept; older ones are removed. */
  keep: number
  /** Versions older than this many days are removed, however few there are. */
  maxAgeDays: number
}

/** One kept version of the document. */
export interface HistoryEntry {
  /** Absolute path of the kept file. */
  path: string
  /** When the version was replaced (from its name). */
  replacedAt: Date
}

const STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/

/** `20261202T014509123Z`: sortable as text, valid in every file system's names. */
export function historyStamp(date: Date): string {
  return date.toISOString().replace(/[-:.]/g, '')
}

function parseStamp(stamp: string): Date | undefined {
  const match = STAMP.exec(stamp)
  if (!match) return undefined
  const [, year, month, day, hour, minute, second, ms] = match.map(Number) as number[]
  return new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms!))
}

/**
 * The `history/` folder beside a document: before a write replaces the
 * document, the version it replaces is linked there (a hard link copies
 * nothing, and also keeps whatever an editor writes late into the old file).
 * Entries are named `<stem>.<stamp>.<random><ext>`, so they sort by time and
 * keep the document's extension for editors.
 */
export class DocumentHistory {
  readonly directory: string
  /** Lines in the journal as this process last counted them (another process may append too: a recount happens at each trim). */
  private journalCount: number | undefined
  private readonly stem: string
  private readonly extension: string

  /** @param document - the real (symlink-resolved) document path; the folder is `history/` beside it. */
  constructor(document: string, private readonly limits: HistoryLimits) {
    this.directory = join(document, '..', 'history')
    this.extension = extname(document)
    this.stem = basename(document, this.extension)
  }

  /**
   * Keep the file now at `document` as a version: link it (copy where links
   * are not possible). The caller checks that what was kept is the version it read.
   * @returns the kept file's path, and whether it is a link (a copy cannot witness later writes into the old file).
   */
  async keep(document: string, now = new Date()): Promise<{ path: string; linked: boolean }> {
    // Metadata steps are synchronous system calls: microseconds each, where a thread-pool round trip is ~0.1 ms.
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    const entry = join(this.directory, `${this.stem}.${historyStamp(now)}.${randomBytes(4).toString('hex')}${this.extension}`)
    try {
      linkSync(document, entry)
      return { path: entry, linked: true }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw error
    }
    await copyFile(document, entry, constants.COPYFILE_EXCL)
    return { path: entry, linked: false }
  }

  /** Make a kept version owner-only, once the document no longer shares its file. */
  seal(entry: string): void {
    try {
      chmodSync(entry, 0o600)
    } catch {}
  }

  /** Drop an entry that turned out not to be a replaced version. */
  discard(entry: string): void {
    rmSync(entry, { force: true })
  }

  /** The journal of this host's writes: one JSON line per stored document, with a digest of its text and who made it. */
  get journal(): string {
    return join(this.directory, `${this.stem}.journal.jsonl`)
  }

  /**
   * Note who wrote `text` (a document this provider just stored), so a kept
   * version with the same text can later say who made it. The journal keeps
   * about twice as many lines as versions are kept.
   */
  record(text: string, by: readonly string[], now = new Date()): void {
    mkdirSync(this.directory, { recursive: true, mode: 0o700 })
    appendFileSync(this.journal, `${JSON.stringify({ at: now.toISOString(), sha256: digest(text), by: [...by].sort() })}\n`, { mode: 0o600 })
    // Counted once, then kept: a write appends a line, it does not read the journal.
    this.journalCount = (this.journalCount ?? this.journalLines().length - 1) + 1
    if (this.journalCount <= this.limits.keep * 4) return
    const kept = this.journalLines().slice(-this.limits.keep * 2)
    const temp = `${this.journal}.${randomBytes(4).toString('hex')}.tmp`
    writeFileSync(temp, `${kept.join('\n')}\n`, { mode: 0o600 })
    renameSync(temp, this.journal)
    this.journalCount = kept.length
  }

  private journalLines(): string[] {
    try {
      return readFileSync(this.journal, 'utf8').split('\n').filter(Boolean)
    } catch {
      return []
    }
  }

  /** The records of who made each text, by digest, oldest first. */
  authors(): Map<string, { at: number; by: string[] }[]> {
    const authors = new Map<string, { at: number; by: string[] }[]>()
    for (const line of this.journalLines()) {
      try {
        const record = JSON.parse(line) as { at?: unknown; sha256?: unknown; by?: unknown }
        const at = typeof record.at === 'string' ? Date.parse(record.at) : Number.NaN
        if (typeof record.sha256 !== 'string' || !Array.isArray(record.by) || Number.isNaN(at)) continue
        const list = authors.get(record.sha256) ?? []
        list.push({ at, by: record.by.filter((who): who is string => typeof who === 'string') })
        authors.set(record.sha256, list)
      } catch {
        // A torn last line (a crash mid-append) is skipped.
      }
    }
    return authors
  }

  /** When the oldest record still in the journal was made, or `undefined` for an empty journal. */
  firstRecordAt(): Date | undefined {
    for (const line of this.journalLines()) {
      try {
        const at = new Date((JSON.parse(line) as { at?: string }).at ?? '')
        if (!Number.isNaN(at.getTime())) return at
      } catch {}
    }
    return undefined
  }

  /** The kept version named `id` (a file name this history made), or `undefined`. */
  find(id: string): HistoryEntry | undefined {
    return this.list().find((entry) => basename(entry.path) === id)
  }

  /** When a kept version's content was written: its file's modification time. */
  writtenAt(entry: HistoryEntry): Date {
    try {
      return statSync(entry.path).mtime
    } catch {
      return entry.replacedAt
    }
  }

  /** Every kept version, oldest first. */
  list(): HistoryEntry[] {
    let names: string[]
    try {
      names = readdirSync(this.directory)
    } catch {
      return []
    }
    const prefix = `${this.stem}.`
    const entries: HistoryEntry[] = []
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith(this.extension)) continue
      const middle = name.slice(prefix.length, name.length - this.extension.length).split('.')
      if (middle.length !== 2 || !/^[0-9a-f]{8}$/.test(middle[1]!)) continue
      const replacedAt = parseStamp(middle[0]!)
      if (replacedAt) entries.push({ path: join(this.directory, name), replacedAt })
    }
    return entries.sort((a, b) => a.replacedAt.getTime() - b.replacedAt.getTime() || a.path.localeCompare(b.path))
  }

  /** Remove versions beyond the newest `keep` and those older than `maxAgeDays`. */
  prune(now = new Date()): number {
    const entries = this.list()
    const oldest = now.getTime() - this.limits.maxAgeDays * 86_400_000
    const excess = Math.max(0, entries.length - this.limits.keep)
    let removed = 0
    for (const [index, entry] of entries.entries()) {
      if (index >= excess && entry.replacedAt.getTime() >= oldest) continue
      rmSync(entry.path, { force: true })
      removed++
    }
    return removed
  }
}

/** The SHA-256 of a document's text, hex. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
