import { open } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { writeTemp } from './atomic.ts'
import { resolveTarget, sameTarget, type DocumentTarget } from './document-target.ts'
import { StoreBusyError } from './errors.ts'
import type { DocumentHistory } from './history.ts'
import { keepReplaced } from './keep.ts'
import { LateWatch } from './late-watch.ts'
import { asideState, removeName, sweepLeftovers } from './leftovers.ts'
import { acquireLock, StandingRecord, type HeldLock, type LockStep } from './lock.ts'
import { currentOwner, hostFacts, makeFolder, ownerToGive, type HostFacts, type LockOwner } from './owner.ts'
import { placeNew, swapIn } from './replace.ts'
import { ABSENT, holdsVersion, readOnlyReason, readVersion, sameSignature, statVersion, versionOf, type FileVersion } from './version.ts'

/**
 * The steps of a write, named for tests that edit the file or kill the writer
 * between them: `read` (before reading the document), `check` (the new
 * version is written beside it), `keep` (before the last look at the version
 * read), `rename` (right before the exchange), `renamed` (after it, the
 * replaced version kept). `lock:<step>` are the lock's own steps.
 */
export type StoreStep = 'read' | 'check' | 'keep' | 'rename' | 'renamed' | `lock:${LockStep}`

/** How many times one write follows a retargeted symlink before giving up. */
const MAX_RETARGETS = 8
/** How long a "writable" answer is taken as still true without asking the file system again. */
const WRITABLE_FOR_MS = 1000
/**
 * How often a writer looks for what dead writers left (temp files, asides),
 * besides its first write and every lock it takes over from a dead owner. A
 * leftover is a hidden file that harms nothing; looking costs a listing of the folder.
 */
const SWEEP_EVERY_MS = 1000

/**
 * How many versions a write keeps before it prunes history: up to a fifth of
 * `keep` (at least one) may stand beyond it between two prunes, so a busy
 * document lists and unlinks in batches instead of at every write. Listings
 * show only the newest `keep` either way.
 */
export function pruneEvery(keep: number): number {
  return Math.max(1, Math.floor(keep / 5))
}

/**
 * How many times `settleMs` an empty file must be old before a read takes it
 * for the document (a shorter non-empty one needs `settleMs`), and how long a
 * settled read waits at most.
 */
const EMPTY_SETTLE_FACTOR = 10

/**
 * Whether a young read `text` may be a save in place caught between its
 * truncate and its last byte: shorter than the text last seen, or empty
 * whatever was seen (a writer that just started, or last saw an empty
 * document, knows no length to compare with; an empty file is the one state
 * every in-place save passes through).
 */
function mayBeMidSave(text: string, known: string | undefined): boolean {
  return text === '' || (known !== undefined && text.length < known.length)
}

/** Thrown inside a locked body when the document's symlink was retargeted: the body runs again at the new target. */
class Retargeted extends Error {}

/** Options of {@link DocumentStore}. */
export interface DocumentStoreOptions {
  /** The configured document path (it may be a symlink). */
  file: string
  lockTimeoutMs: number
  settleMs: number
  maxDocumentBytes: number
  /** Where replaced versions are kept, when they are. */
  history: DocumentHistory | undefined
  /** Another file of this store beside the configured path (the editor schema), whose dead writers' temps are swept too. */
  companion?: string
  /** Called before each step of a write. */
  step(step: StoreStep): Promise<void>
  /** The document now leads to other files (a retargeted symlink): its names, links first. */
  retargeted(paths: string[]): void
  /** An editor may have written late into the last replaced version: look (queued behind writes). */
  lateDue(): void
  /** Whether the host is stopping: reads stop waiting. */
  stopping(): boolean
}

/** How one {@link DocumentStore.replace} went. */
export type ReplaceOutcome = 'written' | 'changed' | 'lock-lost'

/**
 * The document's bytes on disk, knowing nothing of settings: where its path
 * leads, reading it whole and settled, the cross-process lock, replacing it by
 * exchange only while it holds the version read, keeping the replaced version
 * in history, and watching that version for an editor's late write.
 * @typeParam T - what the caller makes of a version (handed back with a late write into it).
 */
export class DocumentStore<T> {
  /** This host's boot and pid namespace, fixed for the life of the process. */
  readonly facts: HostFacts = hostFacts()
  readonly writer: LockOwner = currentOwner(this.facts)
  private readonly lockRecord = new StandingRecord(this.writer)
  /** Where the document path led at the last look. */
  private target: DocumentTarget
  /**
   * The version last read or written (a written one with the signature it was written with): reloads skip
   * what is known, and young reads shorter than it, or empty, settle first.
   */
  seen: FileVersion = ABSENT
  readonly late: LateWatch<T>
  private keptSincePrune = Number.POSITIVE_INFINITY
  private sweptAt = Number.NEGATIVE_INFINITY
  private writableUntil = 0

  constructor(private readonly options: DocumentStoreOptions) {
    this.target = resolveTarget(options.file)
    this.late = new LateWatch<T>({ settleMs: options.settleMs, onDue: options.lateDue })
  }

  get history(): DocumentHistory | undefined {
    return this.options.history
  }

  /** The document's names to watch: each symlink followed, then the file. */
  get names(): string[] {
    return [...this.target.links, this.target.file]
  }

  /** False while the document (the file its symlinks lead to) or its folder refuses writes. */
  writable(): boolean {
    // A yes stays good for a moment: every write asks, and the write itself checks again under the lock.
    if (Date.now() < this.writableUntil) return true
    try {
      const writable = readOnlyReason(resolveTarget(this.options.file).file) === undefined
      if (writable) this.writableUntil = Date.now() + WRITABLE_FOR_MS
      return writable
    } catch {
      return false // a symlink loop
    }
  }

  /** Create the document exclusively (mode 0600) holding `text`, at the end of its symlinks; an existing one is kept. */
  async create(text: string): Promise<void> {
    const file = this.options.file
    makeFolder(dirname(file), ownerToGive(file))
    const target = resolveTarget(file).file
    const give = ownerToGive(target)
    makeFolder(dirname(target), give)
    try {
      const handle = await open(target, 'wx', 0o600)
      try {
        if (give) await handle.chown(give.uid, give.gid)
        if (text) await handle.writeFile(text)
        // Known as written (when nothing was known, so nothing was published from another version):
        // a write right after need not wait for the fresh, maybe empty, file to settle.
        if (this.seen === ABSENT) this.seen = versionOf(await handle.stat({ bigint: true }), text)
      } finally {
        await handle.close()
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }

  /**
   * Where the document path leads now; a retargeted symlink is followed from here on.
   * @param folder - the document's folder without symlinks, resolved moments ago in the same write.
   */
  locate(folder?: string): DocumentTarget {
    const target = resolveTarget(this.options.file, folder)
    if (!sameTarget(target, this.target)) {
      this.target = target
      this.options.retargeted(this.names)
    }
    return target
  }

  /** How a read of the document names it and what it refuses before reading. */
  private get readOptions(): { document: string; maxBytes: number } {
    return { document: this.options.file, maxBytes: this.options.maxDocumentBytes }
  }

  /**
   * Read the document, trusting a read that comes back missing or shorter
   * than the last one seen, or empty (whatever was seen: a writer that just
   * started knows nothing to compare with), only once the file has settled
   * (an empty one, for ten times as long): an editor that saves in place
   * truncates first and writes after, and may be stalled in between.
   * @param lockless - read as {@link readPresent} does: the caller does not hold the lock.
   */
  async readSettled(path: string, lockless = false): Promise<FileVersion> {
    const { settleMs } = this.options
    const giveUp = Date.now() + settleMs * EMPTY_SETTLE_FACTOR
    let waitedForAbsent = false
    for (;;) {
      const version = lockless ? await this.readPresent(path) : await readVersion(path, this.readOptions)
      const known = this.seen.text
      if (sameSignature(version, this.seen) || Date.now() >= giveUp) return version
      if (version.text === undefined) {
        if (known === undefined || waitedForAbsent) return version
        waitedForAbsent = true
        await sleep(settleMs)
        continue
      }
      const age = Date.now() - version.mtimeMs
      // Emptied for good is rare and an editor stalled between its truncate and its bytes is not (a busy machine):
      // an empty file must stay empty for the whole bound before it is taken.
      const settled = version.text === '' ? settleMs * EMPTY_SETTLE_FACTOR : settleMs
      if (age >= settled || !mayBeMidSave(version.text, known)) return version
      // Looked at again at least every settleMs: a save that finishes meanwhile is taken at once.
      await sleep(Math.max(1, Math.min(settled - age, settleMs, giveUp - Date.now())))
    }
  }

  /**
   * Read the document without the lock. A document missing while a writer on
   * the portable path has it set aside (see `swapIn`) is not taken for a
   * deleted one: a running writer's is waited for, for as long as a writer
   * waits for the lock; one whose writer died is put back by the sweep of
   * whoever takes its lock next (here, if nobody else).
   */
  async readPresent(path: string): Promise<FileVersion> {
    const giveUp = Date.now() + this.options.lockTimeoutMs
    let unexplained = 0
    for (let round = 0; ; round++) {
      const version = await readVersion(path, this.readOptions)
      if (version !== ABSENT || Date.now() >= giveUp || this.options.stopping()) return version
      const aside = asideState(dirname(path), basename(path), this.facts)
      // A replace can end between the read and the look at the folder: missing with nothing aside counts once a
      // second read right after says so too.
      if (aside === 'none') {
        if (++unexplained >= 2) return version
        continue
      }
      unexplained = 0
      if (aside === 'gone') {
        const asked = Date.now()
        await this.locked(async (_lock, target) => {
          if (this.sweptAt < asked) await this.sweep(target)
        })
      } else await sleep(Math.min(2 ** round, 16))
    }
  }

  /**
   * Run `body` holding the lock of the file the document path leads to, after
   * removing what dead writers left; the lock is released before this settles.
   * When the body finds the symlink retargeted, it runs again at the new target.
   * @throws {StoreBusyError} when the symlink kept being retargeted.
   */
  async locked<R>(body: (lock: HeldLock, target: string) => Promise<R>): Promise<R> {
    for (let round = 1; ; round++) {
      const target = this.locate().file
      // Run as root over a user's home, the folder, lock and temp files are the document's owner's.
      const give = ownerToGive(target)
      makeFolder(dirname(target), give)
      const lock = await acquireLock(`${target}.lock`, {
        give,
        timeoutMs: this.options.lockTimeoutMs,
        file: this.options.file,
        record: this.lockRecord,
        step: (step) => this.options.step(`lock:${step}`),
      })
      try {
        if (lock.tookOver || Date.now() - this.sweptAt >= SWEEP_EVERY_MS) await this.sweep(target)
        return await body(lock, target)
      } catch (error) {
        if (!(error instanceof Retargeted)) throw error
        if (round >= MAX_RETARGETS) throw new StoreBusyError(this.options.file, 'its symlink kept being retargeted while it was being written')
      } finally {
        await lock.release()
      }
    }
  }

  /** Remove what dead writers left beside `target` (the lock is held) and beside the companion file. */
  private async sweep(target: string): Promise<void> {
    const companion = this.options.companion
    const together = companion !== undefined && dirname(companion) === dirname(target)
    await sweepLeftovers(dirname(target), basename(target), true, this.facts, together ? [basename(companion)] : [])
    // The companion stays beside the configured path (a symlink's own folder): its temps are swept there.
    if (companion !== undefined && !together) await sweepLeftovers(dirname(companion), basename(companion), false, this.facts)
    // Lock records of dead writers of earlier versions stood in history/.
    if (this.options.history) await sweepLeftovers(this.options.history.directory, basename(target), false, this.facts)
    this.sweptAt = Date.now()
  }

  /** Stop a locked body whose document path no longer leads to `target` (its symlink was retargeted): it runs again. */
  checkTarget(target: string): void {
    if (this.locate(dirname(this.target.links[0] ?? this.target.file)).file !== target) throw new Retargeted()
  }

  /**
   * Read the document under the lock for a write, with why it cannot be written (`undefined` when it can).
   * A retry (`attempt` > 1) looks at where the path leads again first.
   */
  async readForWrite(target: string, attempt: number): Promise<{ version: FileVersion; readOnly: string | undefined }> {
    await this.options.step('read')
    if (attempt > 1) this.checkTarget(target)
    const version = await this.readSettled(target)
    const readOnly = readOnlyReason(target, version)
    this.writableUntil = readOnly ? 0 : Date.now() + WRITABLE_FOR_MS
    return { version, readOnly }
  }

  /**
   * Put `text` at `target` only while it holds `read` (the version the caller
   * derived it from), holding `lock`: written beside it, then swapped in (see
   * `swapIn`); the replaced version is kept (sealed, in history) before this
   * settles, and watched for an editor's late write with `base`.
   * @returns `changed` when the document is no longer the version read (read
   *   again), `lock-lost` when the lock was taken over (nothing was written).
   */
  async replace(lock: HeldLock, target: string, read: FileVersion, text: string, base: T): Promise<ReplaceOutcome> {
    const created = read === ABSENT
    const temp = await writeTemp(target, text, created ? { writer: this.writer, ...ownerToGive(target) } : { mode: read.mode, uid: read.uid, gid: read.gid, writer: this.writer })
    // What this write puts at the path, as written: looked at after the exchange, the path may already hold an editor's truncate of it.
    const written = statVersion(temp)
    let placed = false
    let replaced: string | undefined
    try {
      if (!(await lock.holds())) return 'lock-lost'
      await this.options.step('check')
      if (created && statVersion(target) !== ABSENT) return 'changed'
      await this.options.step('keep')
      // The last look at the content: an edit in place since the read (a same-tick rewrite too) sends the write back to read.
      if (!created && !(await holdsVersion(target, read))) return 'changed'
      await this.options.step('rename')
      this.checkTarget(target)
      if (created) placed = placeNew(temp, target)
      else {
        // Swapped in only while the path still holds the inode read (an editor's rename always brings a new one).
        const swapped = swapIn(temp, target, read.ino)
        placed = typeof swapped !== 'string'
        if (placed) replaced = (swapped as { replaced: string }).replaced
      }
      if (!placed) return 'changed'
    } finally {
      if (!placed) removeName(temp)
    }
    // Kept, and sealed, before the write answers.
    const kept = replaced === undefined ? undefined : await keepReplaced(replaced, this.options.history)
    await this.options.step('renamed')
    this.seen = { ...written, text }
    if (kept) {
      this.prune(kept.entry)
      // The watch starts from the version read: a save landing between the last look and the exchange counts as late too.
      this.late.watch(kept, read, base)
    }
    return 'written'
  }

  /** Prune history every {@link pruneEvery} kept versions (under the lock, so one writer prunes at a time). */
  private prune(entry: string | undefined): void {
    const history = this.options.history
    if (!history || !entry) return
    if (++this.keptSincePrune >= pruneEvery(history.limits.keep)) {
      history.prune()
      this.keptSincePrune = 0
    }
  }

  /** Stop watching for late edits and drop this writer's lock record. */
  dispose(): void {
    this.late.dispose()
    this.lockRecord.drop()
  }
}
