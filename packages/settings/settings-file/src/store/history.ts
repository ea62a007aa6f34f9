import { accessSync, closeSync, constants, fchmodSync, fstatSync, linkSync, lstatSync, readdirSync, readFile, renameSync, unlinkSync, type Stats } from 'node:fs'
import { basename, extname, join } from 'node:path'
import { promisify } from 'node:util'
// The store's own error (named as the provider's until this file's uses are renamed).
import { HistoryUnavailableError } from './errors.ts'
import { copyRegular, HistoryFiles, READ_OWN } from './history-files.ts'
import { HistoryJournal, journalLimit, type JournalNote, type JournalRead } from './history-journal.ts'
import { makeFolder, ownerOf, ownerToGive, trustedOwner, type FileOwnerIds } from './owner.ts'
import { randomHex } from './random.ts'
import { notAFileKind } from './version.ts'

export { digest, journalLimit, type JournalNote, type JournalRead } from './history-journal.ts'

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

/** A kept version as read: its text and when it was written (its file's modification time). */
export interface KeptText {
  text: string
  writtenAt: Date
}

const STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/
/** The random part of a kept version's name. */
const HEX8 = /^[0-9a-f]{8}$/

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

/** Journal records written in one append: about 13 KB, a fifth of the tail a re-append check reads. */
const NOTES_PER_APPEND = 100
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code
const readWhole = promisify(readFile) as (fd: number, encoding: 'utf8') => Promise<string>
const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0')

/** Options of {@link DocumentHistory}. */
export interface DocumentHistoryOptions {
  /** Told once per state when versions cannot be kept (the folder and the reason); the write goes on without one. */
  warn?: (message: string) => void
}

/**
 * The `history/` folder beside a document: the version a write replaced is
 * moved there (see {@link adopt}: nothing is copied, and whatever an editor
 * writes late into the old file shows there), or copied where it cannot be.
 * Entries are named `<stem>.<stamp>.<random><ext>`, so they sort by time and
 * keep the document's extension for editors.
 *
 * Only regular files of the document's owner are read or written here, never
 * through a symlink; run as root, everything made here is given to the
 * document's owner. A folder that cannot take versions (not writable, another
 * owner's, a symlink) makes history unavailable: writes go on without it.
 */
export class DocumentHistory {
  readonly directory: string
  private readonly stem: string
  private readonly extension: string
  /** Opens history's files, refusing what history did not make. */
  private readonly files: HistoryFiles
  /** The journal of who wrote each stored text. */
  private readonly records: HistoryJournal
  /** The reason last warned about, so a warning comes once per state, not once per write. */
  private warned: string | undefined

  /**
   * @param document - the document path whose folder holds `history/` (its file may not exist yet);
   *   its owner (or its folder's, while it does not exist) is whom history's files belong to.
   */
  constructor(
    private readonly document: string,
    /** How many versions are kept, and for how long. */
    readonly limits: HistoryLimits,
    private readonly options: DocumentHistoryOptions = {},
  ) {
    this.directory = join(document, '..', 'history')
    this.extension = extname(document)
    this.stem = basename(document, this.extension)
    this.files = new HistoryFiles(document)
    this.records = new HistoryJournal(join(this.directory, `${this.stem}.journal.jsonl`), journalLimit(limits.keep), this.files)
  }

  /** The journal's bound in bytes ({@link journalLimit} of `keep`). */
  get journalLimit(): number {
    return this.records.limit
  }

  /**
   * Why versions cannot be kept in the folder now, or `undefined` when they can
   * (a missing folder is made by the next keep). Synchronous: one `lstat` and
   * one `access`, so `keepsHistory` can answer at call time. A mode without the
   * owner's write bit counts as unwritable also for root, as for the document.
   */
  unavailable(): string | undefined {
    return this.look().reason
  }

  /** {@link unavailable}, and whether the folder is there already (then nothing needs making); `owner` is the document's, when known. */
  private look(owner?: FileOwnerIds): { reason: string | undefined; exists: boolean } {
    let info: Stats
    try {
      info = lstatSync(this.directory)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return { reason: undefined, exists: false }
      return { reason: `it cannot be looked at (${errorCode(error) ?? String(error)})`, exists: false }
    }
    return { reason: this.unfit(info, owner), exists: true }
  }

  /** Why the folder `lstat` saw as `info` cannot take versions, or `undefined`. */
  private unfit(info: Stats, owner?: FileOwnerIds): string | undefined {
    if (info.isSymbolicLink()) return 'it is a symlink (versions are kept only in a real folder)'
    if (!info.isDirectory()) return `it is a ${info.isFile() ? 'file' : notAFileKind(info)}, not a folder`
    if (!trustedOwner(info.uid, this.document, owner)) return `it belongs to uid ${info.uid}, not to the document's owner (uid ${(owner ?? ownerOf(this.document)).uid})`
    if ((info.mode & 0o200) === 0) return `its mode ${octal(info.mode)} gives its owner no write permission`
    try {
      accessSync(this.directory, constants.W_OK | constants.X_OK)
    } catch {
      return `this process (uid ${process.geteuid?.() ?? '?'}) may not write it`
    }
    return undefined
  }

  /** Throw when versions cannot be kept now (see {@link unavailable}). */
  assertAvailable(): void {
    const reason = this.unavailable()
    if (reason !== undefined) throw new HistoryUnavailableError(this.directory, reason)
  }

  /**
   * Make the folder (given to the document's owner under root) and check it; warn once per state when it cannot be used.
   * @param owner - the document's owner, when the caller just looked it up.
   */
  private usable(owner?: FileOwnerIds): { give: FileOwnerIds | undefined } | undefined {
    const look = this.look(owner)
    let reason = look.reason
    let give: FileOwnerIds | undefined
    if (reason === undefined) {
      try {
        give = ownerToGive(this.document, owner)
        // A folder the look just found is left as it is: making it would change nothing.
        if (!look.exists) makeFolder(this.directory, give)
      } catch (error) {
        reason = `it cannot be made (${errorCode(error) ?? String(error)})`
      }
    }
    this.report(reason)
    return reason === undefined ? { give } : undefined
  }

  private report(reason: string | undefined): void {
    if (reason !== undefined && reason !== this.warned) {
      this.options.warn?.(`settings: the history folder ${this.directory} is unavailable: ${reason}; writes go on without keeping the version they replace`)
    }
    this.warned = reason
  }

  /**
   * Keep the file now at `document` as a version: link it (copy where links
   * are not possible, or with `copy`: the document has another name a link
   * would share). A copy is made from the open file, never through a symlink,
   * and given to the document's owner. The caller checks that what was kept is
   * the version it read. `owner` is the document's owner when the caller
   * just looked it up (one `stat` less per write).
   * @returns the kept file's path, and whether it is a link (a copy cannot
   *   witness later writes into the old file); `undefined` when history cannot
   *   take a version now (warned): the write goes on without one.
   * @throws the `ENOENT` of a document renamed over or removed meanwhile (read again).
   */
  async keep(document: string, now = new Date(), options: { copy?: boolean; owner?: FileOwnerIds } = {}): Promise<{ path: string; linked: boolean } | undefined> {
    // Metadata steps are synchronous system calls: microseconds each, where a thread-pool round trip is ~0.1 ms.
    const folder = this.usable(options.owner)
    if (!folder) return undefined
    const entry = this.entryPath(now)
    try {
      if (!options.copy) {
        try {
          // `link` never follows a symlink: a document swapped for one is kept as that link, which the caller's check refuses.
          linkSync(document, entry)
          return { path: entry, linked: true }
        } catch (error) {
          const code = errorCode(error)
          if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw error
        }
      }
      await copyRegular(document, entry, folder.give)
      return { path: entry, linked: false }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') throw error
      this.report(`keeping a version failed (${errorCode(error) ?? (error as Error).message})`)
      return undefined
    }
  }

  /** A new version's name: `<stem>.<stamp>.<random><ext>`. */
  private entryPath(now: Date): string {
    return join(this.directory, `${this.stem}.${historyStamp(now)}.${randomHex(4)}${this.extension}`)
  }

  /**
   * Take the replaced file at `replaced` (a hidden name beside the document
   * that only this writer uses) as a kept version: renamed into the folder, so
   * nothing is copied and an editor's late write into the old file shows there.
   * @param owner - the document's owner, as the caller just looked it up.
   * @returns the entry's path; `undefined` when history cannot take a version
   *   now (warned) or lives on another file system (the caller copies instead).
   */
  adopt(replaced: string, owner: FileOwnerIds, now = new Date()): string | undefined {
    if (!this.usable(owner)) return undefined
    const entry = this.entryPath(now)
    try {
      renameSync(replaced, entry)
      return entry
    } catch (error) {
      if (errorCode(error) !== 'EXDEV') this.report(`keeping a version failed (${errorCode(error) ?? (error as Error).message})`)
      return undefined
    }
  }

  /** Make a kept version owner-only, once the document no longer shares its file (through the open file: a symlink is never followed). */
  seal(entry: string): void {
    let fd: number | undefined
    try {
      fd = this.files.open(entry, READ_OWN)
      if (fd !== undefined) fchmodSync(fd, 0o600)
    } catch {
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }

  /** The journal of this host's writes: one JSON line per stored document, with a digest of its text and who made it. */
  get journal(): string {
    return this.records.path
  }

  /**
   * Note who wrote `text` (a document this provider just stored), so a kept
   * version with the same text can later say who made it. Appends one line
   * (a journal that is not a regular file of the document's owner is refused,
   * never written through), then trims the journal to its newest half once it
   * is over {@link journalLimit}, reading only that half. Nothing is recorded
   * while history is unavailable.
   * @throws {UnsafeHistoryFileError} for a journal that is a symlink, not a regular file, or another owner's.
   */
  async record(text: string, by: readonly string[], now = new Date()): Promise<void> {
    if (this.note(text, by, now)) await this.trimJournal()
  }

  /**
   * {@link record} without the trim: append the line (safe without the
   * document's lock, see {@link HistoryJournal.append}).
   * @returns whether the journal is over its bound: {@link trimJournal} it holding the lock.
   */
  note(text: string, by: readonly string[], now = new Date()): boolean {
    return this.noteAll([{ text, by, at: now }])
  }

  /**
   * {@link note} for several texts at once: one append per {@link NOTES_PER_APPEND}
   * (a batch stays well inside the tail a re-append check reads).
   */
  noteAll(notes: readonly JournalNote[]): boolean {
    const folder = this.usable()
    if (!folder) return false
    let overBound = false
    for (let from = 0; from < notes.length; from += NOTES_PER_APPEND) {
      overBound = this.records.append(notes.slice(from, from + NOTES_PER_APPEND), folder.give) || overBound
    }
    return overBound
  }

  /** Trim the journal to its newest half (see {@link HistoryJournal.trim}); run it holding the document's lock. */
  async trimJournal(): Promise<void> {
    const folder = this.usable()
    if (folder) await this.records.trim(folder.give)
  }

  /**
   * What the journal's newest records say: at most {@link journalLimit} bytes
   * from its end, read without blocking the event loop (see {@link HistoryJournal.read}).
   * @throws {UnsafeHistoryFileError} for a journal that is a symlink, not a regular file, or another owner's.
   */
  readJournal(): Promise<JournalRead> {
    return this.records.read()
  }

  /**
   * Read a kept version: its text and when it was written, from the open file.
   * @returns `undefined` when it is gone (pruned meanwhile).
   * @throws {UnsafeHistoryFileError} for a symlink, anything but a regular file, or another owner's file: never read.
   */
  async read(entry: HistoryEntry): Promise<KeptText | undefined> {
    const fd = this.files.open(entry.path, READ_OWN)
    if (fd === undefined) return undefined
    try {
      const writtenAt = fstatSync(fd).mtime
      return { text: await readWhole(fd, 'utf8'), writtenAt }
    } finally {
      closeSync(fd)
    }
  }

  /** The kept version named `id` (a file name this history made), or `undefined`. */
  find(id: string): HistoryEntry | undefined {
    return this.list().find((entry) => basename(entry.path) === id)
  }

  /** When a kept version that could not be read was written, as far as its name tells (`lstat`: never through a link). */
  writtenAt(entry: HistoryEntry): Date {
    try {
      return lstatSync(entry.path).mtime
    } catch {
      return entry.replacedAt
    }
  }

  /** Every kept version, oldest first (by name: what each is, is checked when it is read). */
  list(): HistoryEntry[] {
    return this.names().flatMap(({ name, stamp }) => {
      const replacedAt = parseStamp(stamp)
      return replacedAt ? [{ path: join(this.directory, name), replacedAt }] : []
    })
  }

  /**
   * The names of the kept versions with their stamps, oldest first. The stamp
   * is fixed-width (`YYYYMMDDTHHMMSSmmmZ`), so name order is time order and no
   * date is parsed here.
   */
  private names(): { name: string; stamp: string }[] {
    let names: string[]
    try {
      names = readdirSync(this.directory)
    } catch {
      return []
    }
    const prefix = `${this.stem}.`
    // `<stem>.` + a 19-character stamp + `.` + 8 hex digits + the extension: one length, so name order is time order.
    const length = prefix.length + 28 + this.extension.length
    const versions: string[] = []
    for (const name of names) {
      if (name.length !== length || !name.startsWith(prefix) || !name.endsWith(this.extension)) continue
      const stamp = name.slice(prefix.length, prefix.length + 19)
      if (name.charCodeAt(prefix.length + 19) !== 0x2e || !STAMP.test(stamp) || !HEX8.test(name.slice(prefix.length + 20, prefix.length + 28))) continue
      versions.push(name)
    }
    versions.sort()
    return versions.map((name) => ({ name, stamp: name.slice(prefix.length, prefix.length + 19) }))
  }

  /**
   * Remove versions beyond the newest `keep` and those older than `maxAgeDays`
   * (names only: `unlink` never follows a link). It runs after every write, so
   * it reads dates only from the oldest names on, stopping at the first one
   * young enough. Run it holding the document's lock, so one writer prunes at
   * a time.
   * @returns how many versions it removed.
   */
  prune(now = new Date()): number {
    const entries = this.names()
    const oldest = now.getTime() - this.limits.maxAgeDays * 86_400_000
    const excess = Math.max(0, entries.length - this.limits.keep)
    let removed = 0
    for (const [index, { name, stamp }] of entries.entries()) {
      if (index >= excess && (parseStamp(stamp)?.getTime() ?? 0) >= oldest) break
      try {
        unlinkSync(join(this.directory, name))
        removed++
      } catch {
        // Gone already, or a folder planted under a version's name: never fails the write that pruned.
      }
    }
    return removed
  }
}
