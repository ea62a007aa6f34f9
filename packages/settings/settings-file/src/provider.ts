import type { Context } from 'cordis'
import { statSync, unlinkSync } from 'node:fs'
import { link, open, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import Schema from 'schemastery'
import { documentWith, getSection, handOver, readsHold, SettingsProvider, SettingsStoreError, type SettingsDocument, type SettingsHistoryQuery, type SettingsHistoryVersion, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { resolveDocumentPath } from 'dsh-settings-home'
import { environmentLocale } from 'dsh-settings/locale'
import { placeNew, replaceIfSame, writeTemp } from './atomic.ts'
import { realDirectory, resolveTarget, sameTarget, type DocumentTarget } from './document-target.ts'
import { SettingsDocumentTooLargeError, SettingsNotAFileError } from './errors.ts'
import { formatOf, type DocumentFormat } from './format.ts'
import { DocumentHistory } from './history.ts'
import { mergeLateEdit } from './late-edit.ts'
import { asideState, sweepLeftovers, tempName } from './leftovers.ts'
import { acquireLock, StandingRecord, type HeldLock, type LockStep } from './lock.ts'
import { currentOwner, hostFacts, makeFolder, ownerToGive, type HostFacts, type LockOwner } from './owner.ts'
import { checkNextSize, DEFAULT_MAX_DOCUMENT_BYTES, parseSettings, sizeOver, type ParsedDocument } from './parse.ts'
import { rereadChanged } from './reread.ts'
import { renderDocument } from './serialize.ts'
import { ABSENT, holdsVersion, readOnlyReason, readVersion, sameSignature, statVersion, type FileVersion } from './version.ts'
import { listVersions, readVersionDocument } from './versions.ts'
import { DocumentWatcher } from './watch.ts'
import { EditorSchemaWriter, editorSchemaPath, hasSchemaModeline, LEAVE_GRACE_MS, schemaModeline } from './editor-schema.ts'

/**
 * The steps of a write, named for tests that edit the file or kill the writer
 * between them. `lock:<step>` are the lock protocol's own steps.
 */
export type FileStep = 'read' | 'check' | 'keep' | 'rename' | 'renamed' | `lock:${LockStep}`

/** A store gives up after this many rounds of finding the document changed under it. */
const MAX_ATTEMPTS = 8
/** How long an editor's late write into the version a write replaced is still folded in. */
const LATE_WINDOW_MS = 10_000

/** The version a write replaced, watched for an editor's late write into it. */
interface Replaced {
  /** The kept file (a history entry, or a hidden witness link when history is off). */
  path: string
  /** Its signature right after the replace. */
  version: FileVersion
  /** The data it held when it was replaced: what a late editor started from. */
  data: Record<string, unknown>
  /** A witness link to remove once the window closes (history off). */
  witness: boolean
  until: number
}

/** What one locked store wrote. */
interface Stored {
  document: SettingsDocument
  text: string
}

/**
 * The version a write is replacing, as kept: the history entry (a link of the
 * replaced file, or a copy), and a link of the replaced file that shows an
 * editor's late write into it (the entry itself when it is a link, else a
 * hidden witness beside the document, removed once the late-edit window closes).
 */
interface Kept {
  entry?: string
  watched: string
  witness: boolean
}

/** Thrown inside a locked store when the document's symlink was retargeted: the store starts over at the new target. */
class Retargeted extends Error {}

/** How many times one write follows a retargeted symlink before giving up. */
const MAX_RETARGETS = 8

/** How long a "writable" answer is taken as still true without asking the file system again. */
const WRITABLE_FOR_MS = 1000

/**
 * How often a writer looks for what dead writers left (temp files, claims),
 * besides its first write and every lock it takes over from a dead owner. A
 * leftover is a hidden file that harms nothing; looking costs a listing of the
 * folder per write.
 */
const SWEEP_EVERY_MS = 1000

/** Remove a file this writer made, if it is still there; a failure leaves it for the next sweep. */
function removeQuietly(path: string): void {
  try {
    // `unlink` alone: `rmSync` looks at the path twice before it.
    unlinkSync(path)
  } catch {}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * How long an answered write's tidying (sealing its kept version, noting who
 * wrote it in the journal) waits for more writes to gather: a burst then
 * costs one journal append, not one per write. `history()` and `close()` do
 * what has gathered at once.
 */
const TIDY_AFTER_MS = 50

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
 * A settings provider that keeps the document in one YAML or JSON file the
 * user can edit by hand. Writes are transactions under a cross-process lock
 * that edit the file in place byte-stably, replace it only if it is still the
 * version they read, and keep the version they replace; outside edits are
 * watched, settled, re-checked periodically, then published.
 */
export class FileSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<FileSettingsProvider.Config> = Schema.object({
    path: Schema.string().description('Document path; .yaml, .yml or .json picks the format. Defaults to settings.yaml under home.'),
    home: Schema.string().description('Settings home when path is omitted; defaults to $DSH_HOME, else ~/.dsh.'),
    watch: Schema.boolean().default(true).description('Watch the document and publish outside edits.'),
    debounceMs: Schema.natural().default(100).description('Settle window for watcher events.'),
    recheckMs: Schema.natural().default(2000).description('Period of the re-check that heals missed watcher events (0 turns it off).'),
    lockTimeoutMs: Schema.natural().default(2000).description('How long a writer waits for the cross-process lock.'),
    settleMs: Schema.natural().default(100).description('A read that comes back shorter than the last one while the file is younger than this is read again once it settles.'),
    maxDocumentBytes: Schema.natural().min(1).default(DEFAULT_MAX_DOCUMENT_BYTES).description('Size cap (UTF-8 bytes) on the document: a larger one fails the load, is ignored on reload and refuses writes; a write that would pass it is refused.'),
    editorSchema: Schema.boolean().default(true).description('Keep <document>.schema.json (JSON Schema of every registered namespace) beside the document for editors.'),
    locale: Schema.string().description('Locale the editor schema\'s descriptions are written in where a plugin gives them per locale (zh-CN, en-US); defaults from LC_ALL / LC_MESSAGES / LANG.'),
    schemaModeline: Schema.boolean().default(false).description('Also add the yaml-language-server modeline to an existing YAML document at its next write (a new one always gets it).'),
    history: Schema.union([
      Schema.const(false),
      Schema.object({
        keep: Schema.natural().min(1).default(50).description('How many replaced versions to keep.'),
        maxAgeDays: Schema.number().min(0).default(30).description('Remove kept versions older than this.'),
      }),
    ]).default({ keep: 50, maxAgeDays: 30 }).description('Keep replaced versions in history/ beside the document; false turns it off.'),
  })

  private readonly file: string
  private readonly format: DocumentFormat
  private readonly options: Required<Omit<FileSettingsProvider.Config, 'path' | 'home' | 'history' | 'editorSchema' | 'schemaModeline' | 'locale'>>
  private readonly schemaOptions: { editorSchema: boolean; schemaModeline: boolean; locale: string }
  private schemaWriter: EditorSchemaWriter | undefined
  private readonly historyLimits: Required<FileSettingsProvider.HistoryConfig> | false
  /** This host's boot and pid namespace: fixed for the life of the process, so read once, not on every write. */
  private readonly facts: HostFacts = hostFacts()
  private readonly writer: LockOwner = currentOwner(this.facts)
  /**
   * This writer's lock record, written once into `history/` and linked to the
   * lock at each write (see {@link StandingRecord}); removed at close. Without
   * a usable history folder each write writes a record of its own.
   */
  private readonly lockRecord = new StandingRecord(this.writer, () => {
    const versions = this.versions
    return versions && versions.unavailable() === undefined ? versions.directory : undefined
  })
  /** Where the document path led at the last look (the file at the end of its symlinks). */
  private target: DocumentTarget
  /** The signature of a document refused at the last reload (not a regular file, too large): warned about once. */
  private refused: FileVersion | undefined
  /** Whether the host is stopping: set by close, or seen on this plugin's fiber. */
  private readonly stopping: () => boolean
  private versions: DocumentHistory | undefined
  /** The version last read or written: reloads skip what is already known, and reads shorter than it settle first. */
  private seen: FileVersion = ABSENT
  private chain: Promise<void> = Promise.resolve()
  private watcher: DocumentWatcher | undefined
  private lateCheck: ReturnType<typeof setTimeout> | undefined
  private replaced: Replaced | undefined
  private closed = false
  /** The last text parsed (or written, with the parse that checked it): a parse is skipped while the file still holds it. */
  private parsed: { text: string; result: ParsedDocument } | undefined
  /** The document the seam was last handed (loaded, published or stored): one it has not seen is published first. */
  private handed: SettingsDocument | undefined
  /** What answered writes left to do (see {@link tidyLater}), and the tidying that does it. */
  private unsealed: string[] = []
  private unnoted: { text: string; by: string[]; at: Date }[] = []
  private tidying: Promise<void> = Promise.resolve()
  /** The pause before gathered tidying runs ({@link TIDY_AFTER_MS}), and what ends it early: set while tidying is due. */
  private tidyTimer: ReturnType<typeof setTimeout> | undefined
  private tidyNow: (() => void) | undefined
  /** Versions kept since history was last pruned (see {@link pruneEvery}); the first write after boot prunes. */
  private keptSincePrune = Number.POSITIVE_INFINITY
  /** When {@link sweep} last ran (see {@link SWEEP_EVERY_MS}); never, before the first write. */
  private sweptAt = Number.NEGATIVE_INFINITY
  /** Until when {@link writable} answers yes without looking (see {@link WRITABLE_FOR_MS}). */
  private writableUntil = 0

  constructor(ctx: Context, config: FileSettingsProvider.Config = {}) {
    super(ctx)
    this.file = resolveDocumentPath(config.path, config.home)
    this.format = formatOf(this.file)
    this.target = { file: this.file, links: [] }
    // 4 DISPOSED, 5 UNLOADING (cordis's FiberState is a const enum): the provider is on its way out.
    this.stopping = () => this.closed || ctx.fiber?.state === 4 || ctx.fiber?.state === 5
    // Defaults again here: a provider constructed without cordis's schema pass still behaves.
    this.options = {
      watch: config.watch ?? true,
      debounceMs: config.debounceMs ?? 100,
      recheckMs: config.recheckMs ?? 2000,
      lockTimeoutMs: config.lockTimeoutMs ?? 2000,
      settleMs: config.settleMs ?? 100,
      maxDocumentBytes: config.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
    }
    this.historyLimits = config.history === false ? false : { keep: config.history?.keep ?? 50, maxAgeDays: config.history?.maxAgeDays ?? 30 }
    this.schemaOptions = { editorSchema: config.editorSchema ?? true, schemaModeline: config.schemaModeline ?? false, locale: config.locale ?? environmentLocale() }
  }

  /** The registered kinds changed: rewrite the editor schema once they settle. */
  protected override kindsChanged(): void {
    this.schemaWriter?.schedule()
  }

  /** The text a YAML document starts with so editors find its schema, when this write should add it. */
  private modelineFor(text: string, created: boolean): string | undefined {
    if (this.format !== 'yaml' || !this.schemaOptions.editorSchema) return undefined
    // A user's existing bytes are changed only when asked.
    if (!created && !this.schemaOptions.schemaModeline) return undefined
    return hasSchemaModeline(text) ? undefined : schemaModeline(this.file)
  }

  override get documentPath(): string {
    return this.file
  }

  /** False while the document (the file its symlinks lead to) or its folder refuses writes (mode without the owner's write bit, or no access). */
  override get writable(): boolean {
    // A yes stays good for a moment: every write asks, and the write itself checks again under the lock.
    if (Date.now() < this.writableUntil) return true
    try {
      const writable = readOnlyReason(resolveTarget(this.file).file) === undefined
      if (writable) this.writableUntil = Date.now() + WRITABLE_FOR_MS
      return writable
    } catch {
      return false // a symlink loop
    }
  }

  /**
   * Keep an existing document, or exclusively create an empty one (mode 0600),
   * and return its path. A symlinked document whose file does not exist yet
   * gets it created at the end of its symlinks.
   */
  override async prepareDocument(): Promise<string> {
    // Run as root over a user's home, what is made here is given to the owner of the folder it is made in.
    makeFolder(dirname(this.file), ownerToGive(this.file))
    const target = resolveTarget(this.file).file
    const give = ownerToGive(target)
    makeFolder(dirname(target), give)
    try {
      const handle = await open(target, 'wx', 0o600)
      try {
        if (give) await handle.chown(give.uid, give.gid)
        const modeline = this.modelineFor('', true)
        if (modeline) await handle.writeFile(`${modeline}\n`)
      } finally {
        await handle.close()
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    return this.file
  }

  /**
   * Called before each step of a write; a no-op here. Tests override it to
   * edit the file, delay or kill the writer at an exact point.
   */
  protected async step(_step: FileStep): Promise<void> {}

  /**
   * How long a namespace whose plugin was removed stays in the editor schema
   * while the host keeps running; tests shorten it.
   */
  protected get kindLeaveGraceMs(): number {
    return LEAVE_GRACE_MS
  }

  protected override async open(): Promise<void> {
    this.target = resolveTarget(this.file)
    // History belongs to the deployment: beside the path it configured (a symlink's own folder), never
    // in the folder a symlink leads to (a dotfiles repository), and it stays there when the link is retargeted.
    const logger = this.ctx.logger('settings')
    if (this.historyLimits) {
      this.versions = new DocumentHistory(join(realDirectory(dirname(this.file)), basename(this.file)), this.historyLimits, { warn: (message) => logger.warn(message) })
    }
    if (this.schemaOptions.editorSchema) {
      // An effect of the provider's fiber: its disposal writes what is pending and stops the writer.
      this.ctx.effect(() => {
        const writer = new EditorSchemaWriter(this.file, () => this.registeredKinds(), (error) => logger.warn(`settings: writing the editor schema beside ${this.file} failed:`, error), {
          owner: this.writer,
          stopping: this.stopping,
          leaveGraceMs: this.kindLeaveGraceMs,
          locale: this.schemaOptions.locale,
          give: () => ownerToGive(this.file),
        })
        this.schemaWriter = writer
        return () => writer.close()
      }, 'settings-file: editor schema writer')
    }
  }

  /**
   * Where the document path leads now; a retargeted symlink is followed from here on (the watcher too).
   * @param folder - the document's folder without symlinks, resolved moments ago in the same write.
   */
  private locate(folder?: string): DocumentTarget {
    const target = resolveTarget(this.file, folder)
    if (!sameTarget(target, this.target)) {
      this.target = target
      this.watcher?.follow([...target.links, target.file])
    }
    return target
  }

  /** How a read of the document names it and what it refuses before reading. */
  private get readOptions(): { document: string; maxBytes: number } {
    return { document: this.file, maxBytes: this.options.maxDocumentBytes }
  }

  protected async load(): Promise<SettingsDocument> {
    const version = await this.readPresent(this.file)
    const parsed = version.text === undefined ? undefined : this.parse(version.text)
    this.seen = version
    if (this.options.watch) await this.startWatcher()
    this.handed = (parsed?.data ?? {}) as SettingsDocument
    return this.handed
  }

  private async startWatcher(): Promise<void> {
    const logger = this.ctx.logger('settings')
    // An effect of the provider's fiber: its disposal stops the watcher (and its timers).
    this.ctx.effect(() => {
      const started = new DocumentWatcher([...this.target.links, this.target.file], {
        debounceMs: this.options.debounceMs,
        recheckMs: this.options.recheckMs,
        onChange: () => void this.reload(true),
        onRecheck: () => void this.reload(false),
        onError: (error) => logger.warn(`settings: watching ${this.file} failed:`, error),
      })
      this.watcher = started
      return () => started.close()
    }, 'settings-file: document watcher')
    await this.watcher!.start()
  }

  protected override async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.lateCheck)
    // The editor schema writer and the watcher are effects of this fiber, stopped with it.
    await this.chain
    await this.tidyGathered()
    await this.forgetReplaced()
    // Last: the tidying may have taken the lock (a journal trim).
    this.lockRecord.drop()
  }

  /** Run `operation` after every earlier reload and write: one chain for both. */
  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.chain.then(operation)
    this.chain = result.then(
      () => {},
      () => {},
    )
    return result
  }

  /**
   * Fold the file into the seam if it changed since it was last seen. `force`
   * reads the content even when the signature is unchanged (a watcher event);
   * the periodic re-check reads only when the signature moved. A late write into
   * the version the last write replaced is folded in first.
   */
  private reload(force: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return
      const logger = this.ctx.logger('settings')
      try {
        this.locate()
        if (await this.lateEditPending()) return this.rescueLateEdit()
        if (!force && sameSignature(statVersion(this.file), this.seen)) return
        let version: FileVersion
        try {
          version = await this.readSettled(this.file, true)
        } catch (error) {
          if (!(error instanceof SettingsNotAFileError || error instanceof SettingsDocumentTooLargeError)) throw error
          // One warning per state of the file, not one per re-check.
          const now = statVersion(this.file)
          if (this.refused && sameSignature(now, this.refused)) return
          this.refused = now
          logger.warn(`${error.message}; keeping the last good settings`)
          return
        }
        this.refused = undefined
        if (version.text === this.seen.text) {
          this.seen = version
          return
        }
        this.seen = version
        if (version.text === undefined) return this.hand({})
        let parsed: ParsedDocument
        try {
          parsed = this.parse(version.text)
        } catch (error) {
          logger.warn(`${(error as Error).message}; keeping the last good settings`)
          return
        }
        this.hand(parsed.data as SettingsDocument)
      } catch (error) {
        logger.warn(`settings: reloading ${this.file} failed:`, error)
      }
    })
  }

  /** Parse document text, reusing the last parse when the text is the same. */
  private parse(text: string): ParsedDocument {
    if (this.parsed?.text === text) return this.parsed.result
    const previous = this.parsed
    // An edit of a few entries, or inside one large entry, is read as what it changed alone, when the document allows it (see rereadChanged).
    const changed = previous && this.format === 'yaml' && sizeOver(text, this.options.maxDocumentBytes) === undefined ? rereadChanged(previous.text, previous.result, text) : undefined
    const result = changed ?? parseSettings(text, this.format, this.file, this.options.maxDocumentBytes)
    // The parse is the provider's alone and never changed: the seam takes it without copying.
    handOver(result.data)
    this.parsed = { text, result }
    return result
  }

  /**
   * Read the document, trusting a read that comes back empty, missing or
   * shorter than the last one seen only once the file has settled: an editor
   * that saves in place truncates first and writes after, and a read in between
   * must not be taken for the user's document.
   * @param lockless - read as {@link readPresent} does: the caller does not hold the lock.
   */
  private async readSettled(path: string, lockless = false): Promise<FileVersion> {
    const { settleMs } = this.options
    const giveUp = Date.now() + settleMs * 10
    let waitedForAbsent = false
    for (;;) {
      const version = lockless ? await this.readPresent(path) : await readVersion(path, this.readOptions)
      const known = this.seen.text
      if (known === undefined || sameSignature(version, this.seen) || Date.now() >= giveUp) return version
      if (version.text === undefined) {
        if (waitedForAbsent) return version
        waitedForAbsent = true
        await sleep(settleMs)
        continue
      }
      const age = Date.now() - version.mtimeMs
      if (version.text.length >= known.length || age >= settleMs) return version
      await sleep(Math.max(1, settleMs - age))
    }
  }

  /**
   * Read the document without the lock. A document missing while a writer
   * has it set aside (see `replaceIfSame`) is not taken for a deleted one: a
   * running writer's is waited for (it is back in microseconds, or once the
   * writer is scheduled again), for as long as a writer waits for the lock; one
   * whose writer died is put back by taking its lock over, whose sweep
   * restores it. Under the lock no aside stands but the holder's own, so
   * writes read directly.
   */
  private async readPresent(path: string): Promise<FileVersion> {
    const giveUp = Date.now() + this.options.lockTimeoutMs
    let unexplained = 0
    for (let round = 0; ; round++) {
      const version = await readVersion(path, this.readOptions)
      if (version !== ABSENT || Date.now() >= giveUp || this.closed) return version
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
        // Taking a dead owner's lock over sweeps already; otherwise the holder sweeps here.
        await this.locked(async (_lock, target) => {
          if (this.sweptAt < asked) await this.sweep(target)
        })
      } else await sleep(Math.min(2 ** round, 16))
    }
  }

  protected override async store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    return this.enqueue(() =>
      this.locked(async (lock, target) => {
        let moved = false
        const stored = await this.storeText(lock, target, (current) => {
          // What the file holds beyond what the seam was last told (an edit still in the debounce window, another process's write).
          this.hand(current)
          moved = !readsHold(transaction.reads, (ns, scope) => getSection(current, ns, scope))
          return moved ? current : documentWith(current, transaction.changes)
        })
        // Who made this text, so its kept version can say so later: noted once the write is answered.
        if (stored && this.versions) this.tidyLater({ text: stored.text, by: [...transaction.origins], at: new Date() })
        if (stored) this.handed = stored.document
        return moved ? { moved: true } : undefined
      }),
    )
  }

  /** Tell the seam about a document it has not been handed yet. */
  private hand(document: SettingsDocument): void {
    if (document === this.handed) return
    this.handed = document
    this.publish(document)
  }

  /**
   * Whether replaced versions are kept in `history/` (the `history` option)
   * and the folder can take them now: false while it cannot (not writable,
   * another owner's, a symlink), when writes land without a kept version.
   */
  override get keepsHistory(): boolean {
    return this.versions !== undefined && this.versions.unavailable() === undefined
  }

  override async history(query?: SettingsHistoryQuery): Promise<SettingsHistoryVersion[]> {
    if (!this.versions) return super.history(query)
    await this.tidyGathered()
    return listVersions(this.versions, (text) => this.parseVersion(text), query)
  }

  override async historyDocument(id: string): Promise<SettingsDocument> {
    if (!this.versions) return super.historyDocument(id)
    await this.tidyGathered()
    return readVersionDocument(this.versions, (text) => this.parseVersion(text), id)
  }

  /** A kept version's data, parsed apart from the document's own parse cache. */
  private parseVersion(text: string): SettingsDocument {
    return parseSettings(text, this.format, this.file, this.options.maxDocumentBytes).data as SettingsDocument
  }

  /**
   * Run `body` holding the lock of the file the document path leads to (one
   * lock per real file, beside it), after removing what dead writers left; the
   * lock is released before this settles. When the body finds the symlink
   * retargeted, it runs again at the new target under that file's lock.
   */
  private async locked<T>(body: (lock: HeldLock, target: string) => Promise<T>): Promise<T> {
    for (let round = 1; ; round++) {
      const target = this.locate().file
      // Run as root over a user's home, the folder, lock and temp files are the document's owner's.
      const give = ownerToGive(target)
      makeFolder(dirname(target), give)
      const lock = await acquireLock(`${target}.lock`, {
        give,
        timeoutMs: this.options.lockTimeoutMs,
        file: this.file,
        record: this.lockRecord,
        step: (step) => this.step(`lock:${step}`),
      })
      try {
        if (lock.tookOver || Date.now() - this.sweptAt >= SWEEP_EVERY_MS) await this.sweep(target)
        return await body(lock, target)
      } catch (error) {
        if (!(error instanceof Retargeted) || round >= MAX_RETARGETS) {
          if (error instanceof Retargeted) throw new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${this.file}: its symlink kept being retargeted while it was being written; nothing was written`, this.file)
          throw error
        }
      } finally {
        await lock.release()
      }
    }
  }

  /** Remove what dead writers left beside `target` (the lock is held) and beside the editor schema. */
  private async sweep(target: string): Promise<void> {
    const schema = editorSchemaPath(this.file)
    const together = dirname(schema) === dirname(target)
    await sweepLeftovers(dirname(target), basename(target), true, this.facts, together ? [basename(schema)] : [])
    // The editor schema stays beside the configured path (a symlink's own folder): its temps are swept there.
    if (!together) await sweepLeftovers(dirname(schema), basename(schema), false, this.facts)
    // Dead writers' standing lock records (see StandingRecord) are in history/.
    if (this.versions) await sweepLeftovers(this.versions.directory, basename(target), false, this.facts)
    this.sweptAt = Date.now()
  }

  /**
   * Stop a store whose document path no longer leads to `target` (its symlink was retargeted). Only the
   * document's own links are followed again: its folders were resolved when the write took its lock, and a
   * folder retargeted since leaves this write in the file it locked and read, as if it had come first
   * (resolving the folders again costs a `readlink` per folder on the way).
   */
  private checkTarget(target: string): void {
    if (this.locate(dirname(this.target.links[0] ?? this.target.file)).file !== target) throw new Retargeted()
  }

  /**
   * Store what `derive` makes of the document, holding the lock. The file is
   * replaced only if the path still holds the version read: checked on the
   * old version once it is kept (a link of whatever stands at the path), and a
   * last time on the path's inode right before the rename.
   * When a check fails, the document is read again and `derive` runs again on it.
   * @returns what was written, or `undefined` when `derive` changed nothing.
   */
  private async storeText(lock: HeldLock, target: string, derive: (current: SettingsDocument) => SettingsDocument): Promise<Stored | undefined> {
    // An editor's late write into the version the previous write replaced is the freshest user edit there is.
    const late = await this.takeLateEdit(target)
    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_ATTEMPTS) {
        throw new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${this.file} kept changing while it was being written (${MAX_ATTEMPTS} attempts); nothing was written`, this.file)
      }
      await this.step('read')
      // The first attempt runs right after `locked` resolved the path; a retry looks again.
      if (attempt > 1) this.checkTarget(target)
      const onDisk = await this.readSettled(target)
      const reason = readOnlyReason(target, onDisk)
      this.writableUntil = reason ? 0 : Date.now() + WRITABLE_FOR_MS
      if (reason) throw new SettingsStoreError('SETTINGS_READ_ONLY', `settings document ${this.file} is read-only: ${reason}; nothing was written`, this.file)
      // An unparsable document refuses the write and stays exactly as the user left it.
      const parsed = this.parse(onDisk.text ?? '')
      const current = late ? mergeLateEdit(late.base, late.data, parsed.data) : parsed.data
      const next = derive(current as SettingsDocument)
      if (next === parsed.data) {
        this.seen = onDisk
        return undefined
      }
      let rendered = renderDocument(this.format, onDisk.text ?? '', parsed, next, this.file)
      const modeline = this.modelineFor(rendered.text, onDisk === ABSENT)
      // The modeline shifts every offset of the parse kept with the text, so that parse is dropped.
      if (modeline) rendered = { text: `${modeline}\n${rendered.text}`, preserved: rendered.preserved }
      checkNextSize(rendered.text, this.file, this.options.maxDocumentBytes)
      if (!rendered.preserved) this.ctx.logger('settings').warn(`settings: ${this.file} could not be edited in place and was rendered afresh`)
      const temp = await writeTemp(target, rendered.text, onDisk === ABSENT ? { writer: this.writer, ...ownerToGive(target) } : { mode: onDisk.mode, uid: onDisk.uid, gid: onDisk.gid, writer: this.writer })
      let kept: Kept | undefined
      let renamed = false
      try {
        if (!(await lock.holds())) throw new SettingsStoreError('SETTINGS_STORE_BUSY', `settings document ${this.file}: the lock was taken over during the write; nothing was written`, this.file)
        await this.step('check')
        // An existing document is checked once, through the link kept of it below (one read, not two).
        if (onDisk === ABSENT && statVersion(target) !== ABSENT) continue
        await this.step('keep')
        kept = onDisk === ABSENT ? undefined : await this.keep(target)
        if (onDisk !== ABSENT && !kept) continue // the document was replaced or removed meanwhile
        // What was kept is what now stands at the path: if that is not the version read, an editor replaced it meanwhile.
        if (kept && !(await holdsVersion(kept.watched, onDisk))) {
          await this.dropKept(kept)
          kept = undefined
          continue
        }
        await this.step('rename')
        this.checkTarget(target)
        // The last look: the file at the path is still the one kept (an editor's rename always brings a new
        // inode). It is set aside, checked and the new version linked in its place, so no save lands unseen.
        const placed = onDisk === ABSENT ? await placeNew(temp, target) : replaceIfSame(temp, target, onDisk.ino)
        // A replace took the temp file's name along: nothing is left to remove.
        renamed = placed && onDisk !== ABSENT
        if (!placed) {
          if (kept) await this.dropKept(kept)
          kept = undefined
          continue
        }
      } catch (error) {
        if (kept) await this.dropKept(kept)
        throw error
      } finally {
        if (!renamed) removeQuietly(temp)
      }
      await this.step('renamed')
      this.seen = { ...(statVersion(target)), text: rendered.text }
      this.parsed = rendered.parsed ? { text: rendered.text, result: rendered.parsed } : undefined
      // An in-place save that lands in the old file from the last check on is folded in as a late edit.
      if (kept) await this.settleKept(kept, onDisk, parsed.data)
      return { document: next, text: rendered.text }
    }
  }

  /** Read a file once it has not changed for `settleMs` (bounded): an editor may still be writing into it. */
  private async readStable(path: string): Promise<FileVersion> {
    const { settleMs } = this.options
    const giveUp = Date.now() + settleMs * 10
    let version = await readVersion(path)
    while (Date.now() - version.mtimeMs < settleMs && Date.now() < giveUp) {
      await sleep(Math.max(1, settleMs - (Date.now() - version.mtimeMs)))
      version = await readVersion(path)
    }
    return version
  }

  /**
   * Keep the document's current file as the version a write replaces, and a
   * link of it that shows an editor's late write into it. A file no other name
   * shares is linked into history as it is (keeping copies nothing, and the
   * entry shows late writes). History gets a copy instead when the file has
   * another name (a second hard link: a link would let history's sealing change
   * that name's mode) or lives on another file system (no link can cross); a
   * hidden witness link beside the file then shows late writes. With history
   * off, or unavailable (a folder it cannot write: warned, and `keepsHistory`
   * says so), only the witness.
   * @returns `undefined` when the file was replaced or removed meanwhile (read again).
   */
  private async keep(target: string): Promise<Kept | undefined> {
    const versions = this.versions
    let witness: string | undefined
    let entry: string | undefined
    try {
      // History that cannot take a version now answers `undefined` (warned once per state): the write goes on
      // without one, an editor's late write watched through a witness link as with history off.
      const info = versions ? statSync(target) : undefined
      if (versions && info?.nlink === 1) {
        const kept = await versions.keep(target, undefined, { owner: { uid: info.uid, gid: info.gid } })
        if (kept?.linked) return { entry: kept.path, watched: kept.path, witness: false }
        entry = kept?.path
        witness = await this.linkWitness(target)
        return { entry, watched: witness, witness: true }
      }
      witness = await this.linkWitness(target)
      if (!versions) return { watched: witness, witness: true }
      // Copied from the witness: the very file the checks that follow look at.
      const kept = await versions.keep(witness, undefined, { copy: true })
      return { entry: kept?.path, watched: witness, witness: true }
    } catch (error) {
      if (witness) await unlink(witness).catch(() => {})
      if (entry) await unlink(entry).catch(() => {})
      // `link` and `stat` answer ENOENT when the name is being renamed over (an editor's save) or is gone: read again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  /** A hidden link of `target` beside it, named like a temp file of this writer (swept should the writer die). */
  private async linkWitness(target: string): Promise<string> {
    const witness = join(dirname(target), tempName(basename(target), this.writer))
    await link(target, witness)
    return witness
  }

  /** Remove what {@link keep} made for a write that did not happen. */
  private async dropKept(kept: Kept): Promise<void> {
    if (kept.entry) await unlink(kept.entry).catch(() => {})
    if (kept.witness) await unlink(kept.watched).catch(() => {})
  }

  /**
   * After a replace: prune history, watch the replaced file for an editor's
   * late write, and have the kept version sealed ({@link tidyLater}). The
   * watch starts from the version read, so a save that landed between the last
   * check and the replace counts as late too. A kept file is sealed (made
   * owner-only) only while no other name shares it, so no other name's mode
   * ever changes.
   */
  private async settleKept(kept: Kept, read: FileVersion, data: Record<string, unknown>): Promise<void> {
    await this.forgetReplaced()
    if (this.versions && kept.entry) {
      // Under the lock, so one writer prunes at a time.
      if (++this.keptSincePrune >= pruneEvery(this.versions.limits.keep)) {
        this.versions.prune()
        this.keptSincePrune = 0
      }
      this.tidyLater({ kept: kept.entry })
    }
    this.replaced = { path: kept.watched, version: read, data, witness: kept.witness, until: Date.now() + LATE_WINDOW_MS }
    this.scheduleLateCheck()
  }

  /**
   * What a write leaves to do once it has been answered ({@link TIDY_AFTER_MS}
   * later, gathered with the writes that follow): seal the version it kept and
   * note in the journal who wrote the text. Neither changes the document, and each is safe beside another
   * writer's without the lock (a seal touches only this write's entry, an
   * append adds whole lines); only trimming the journal takes the lock.
   * {@link history} and `close()` wait for it. The write is stored either
   * way: a journal that cannot be written (a full disk) costs only that record.
   */
  private tidyLater(work: { kept: string } | { text: string; by: string[]; at: Date }): void {
    if ('kept' in work) this.unsealed.push(work.kept)
    else this.unnoted.push(work)
    // Due already: the tidying to come takes this too.
    if (this.tidyNow) return
    const gathered = new Promise<void>((resolve) => {
      this.tidyNow = resolve
      this.tidyTimer = setTimeout(resolve, TIDY_AFTER_MS)
    })
    // After the tidying before it (a journal trim may still run): history() and close() wait for the last one.
    this.tidying = this.tidying
      .then(() => gathered)
      .then(() => this.tidy())
      // Never a failure for whoever waits on it (history(), close()): tidying is logged, not thrown.
      .catch((error: unknown) => this.ctx.logger('settings').warn(`settings: tidying up after writing ${this.file} failed:`, error))
  }

  /** Do what {@link tidyLater} gathered now, without its pause; resolves once every tidying so far is done. */
  private tidyGathered(): Promise<void> {
    clearTimeout(this.tidyTimer)
    this.tidyNow?.()
    return this.tidying
  }

  /** Do what {@link tidyLater} gathered. */
  private async tidy(): Promise<void> {
    clearTimeout(this.tidyTimer)
    this.tidyNow = undefined
    const versions = this.versions!
    for (const kept of this.unsealed.splice(0)) {
      const info = statSync(kept, { throwIfNoEntry: false })
      // Already owner-only (as a document usually is): nothing to open and change.
      if (info?.nlink === 1 && (info.mode & 0o077) !== 0) versions.seal(kept)
    }
    let overBound = false
    const unnoted = this.unnoted.splice(0)
    try {
      // One append for every write gathered.
      if (unnoted.length) overBound = versions.noteAll(unnoted)
    } catch (error) {
      this.ctx.logger('settings').warn(`settings: recording who wrote ${this.file} failed:`, error)
    }
    if (!overBound) return
    try {
      await this.enqueue(() => this.locked(() => versions.trimJournal()))
    } catch (error) {
      this.ctx.logger('settings').warn(`settings: trimming the history journal of ${this.file} failed:`, error)
    }
  }

  /** Look at the last replaced version again soon, while it is watched. */
  private scheduleLateCheck(): void {
    clearTimeout(this.lateCheck)
    if (!this.replaced || this.closed) return
    this.lateCheck = setTimeout(() => void this.checkLateEdit(), this.options.settleMs * 2)
    this.lateCheck.unref?.()
  }

  /** Fold in a late edit if one landed; only that (a provider without a watcher publishes nothing else here). */
  private checkLateEdit(): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return
      try {
        if (await this.lateEditPending()) await this.rescueLateEdit()
        else this.scheduleLateCheck()
      } catch (error) {
        this.ctx.logger('settings').warn(`settings: folding a late edit into ${this.file} failed:`, error)
      }
    })
  }

  /** Stop watching the last replaced version; a witness link is removed. */
  private async forgetReplaced(): Promise<void> {
    const replaced = this.replaced
    this.replaced = undefined
    if (replaced?.witness) await unlink(replaced.path).catch(() => {})
  }

  /** Whether an editor wrote into the last replaced version since it was replaced. */
  private async lateEditPending(): Promise<boolean> {
    const replaced = this.replaced
    if (!replaced) return false
    if (Date.now() > replaced.until) {
      await this.forgetReplaced()
      return false
    }
    const now = statVersion(replaced.path)
    // A kept version another writer pruned is gone, not edited.
    if (now === ABSENT) {
      await this.forgetReplaced()
      return false
    }
    return !sameSignature(now, replaced.version)
  }

  /**
   * Take a late edit for the next store: what the editor started from and what
   * it wrote. An edit that does not parse yet (still being written) is left for later.
   */
  private async takeLateEdit(target: string): Promise<{ base: Record<string, unknown>; data: Record<string, unknown> } | undefined> {
    if (!(await this.lateEditPending())) return undefined
    const replaced = this.replaced!
    const version = await this.readStable(replaced.path)
    let data: Record<string, unknown>
    try {
      data = parseSettings(version.text ?? '', this.format, target, this.options.maxDocumentBytes).data
    } catch {
      return undefined // still being written, or broken: looked at again until the window closes
    }
    // No sections at all: a save that has only truncated so far (or died there), never merged in.
    if (!Object.keys(data).length) return undefined
    await this.forgetReplaced()
    this.ctx.logger('settings').warn(`settings: an editor wrote ${this.file} while it was being replaced; its changes are folded in`)
    return { base: replaced.data, data }
  }

  /** Fold a late edit in outside any write: store the merged document and publish it. */
  private async rescueLateEdit(): Promise<void> {
    const stored = await this.locked((lock, target) => this.storeText(lock, target, (current) => current))
    if (stored && !this.closed) this.hand(stored.document)
    // A save still under way is looked at again.
    else if (!stored) this.scheduleLateCheck()
  }
}

export namespace FileSettingsProvider {
  /** How many replaced versions `history/` keeps. */
  export interface HistoryConfig {
    keep?: number
    maxAgeDays?: number
  }

  /** Configuration of {@link FileSettingsProvider}; see the package README for each key. */
  export interface Config {
    path?: string
    home?: string
    watch?: boolean
    debounceMs?: number
    recheckMs?: number
    lockTimeoutMs?: number
    settleMs?: number
    maxDocumentBytes?: number
    /** Keep `<document>.schema.json` beside the document for editors (default true). */
    editorSchema?: boolean
    /** Add the yaml-language-server modeline to an existing YAML document at its next write (default false; a new one always gets it). */
    schemaModeline?: boolean
    /** The locale of the editor schema's descriptions (default: from `LC_ALL` / `LC_MESSAGES` / `LANG`). */
    locale?: string
    history?: HistoryConfig | false
  }
}
