import type { Context } from 'cordis'
import { basename, dirname, join } from 'node:path'
import type Schema from 'schemastery'
import { SettingsProvider, SettingsStoreError, type JsonObject, type SectionKey, type SettingsDocument, type SettingsSecretOrigin, type SettingsHistoryQuery, type SettingsHistoryVersion, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { resolveDocumentPath } from 'dsh-settings-home'
import { realDirectory } from '../store/document-target.ts'
import { DocumentStore, type StoreStep } from '../store/document-store.ts'
import { DocumentHistory } from '../store/history.ts'
import { JournalNotes } from '../store/journal-notes.ts'
import { DocumentWatcher } from '../store/watch.ts'
import { fileProviderConfig, fileProviderOptions, type FileHistoryConfig, type FileProviderConfig, type FileProviderOptions } from './config.ts'
import { editorSchemaPath, LEAVE_GRACE_MS, type EditorSchemaWriter } from './editor-schema.ts'
import { modelineFor, startEditorSchema } from './editor-schema-wiring.ts'
import { settingsError, settingsErrorOf } from './errors.ts'
import { ParseCache } from './parse-cache.ts'
import { Reloads } from './reload.ts'
import { sectionChanges } from './section-changes.ts'
import { formatOf, parseSettings, type DocumentFormat } from './settings-codec.ts'
import { listVersions, readVersionDocument } from './versions.ts'
import { checkStore, moveSecrets, referencesAsJson, secretsOf, storeWatchEffect, writeTransaction, type DocumentSecrets } from './secret-wiring.ts'
import { SettingsWrites, type Base } from './write.ts'

/** The steps of a write (`StoreStep`), named for tests that edit the file or kill the writer between them; `lock:<step>` are the lock's own. */
export type FileStep = StoreStep

export { pruneEvery } from '../store/document-store.ts'

/**
 * A settings provider that keeps the document in one YAML or JSON file the
 * user can edit by hand: it adapts the seam's transactions to the document
 * store (lock, replace by exchange, kept versions, late edits) and the codec
 * (byte-stable edits); outside edits are watched, settled, re-checked
 * periodically, then published.
 */
export class FileSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<FileSettingsProvider.Config> = fileProviderConfig

  private readonly file: string
  private readonly format: DocumentFormat
  private readonly options: FileProviderOptions
  private readonly disk: DocumentStore<Base>
  private readonly writes: SettingsWrites
  private readonly parses: ParseCache
  private readonly reloads: Reloads
  private readonly notes: JournalNotes | undefined
  private readonly secrets: DocumentSecrets
  private schemaWriter: () => EditorSchemaWriter | undefined = () => undefined
  private watcher: DocumentWatcher | undefined
  /** Whether the host is stopping: set by close, or seen on this plugin's fiber. */
  private readonly stopping: () => boolean
  private chain: Promise<void> = Promise.resolve()
  private closed = false
  /** The document the seam was last given (loaded, published or stored): one it has not seen is published first. */
  private given: SettingsDocument | undefined
  /** A kept version's data, parsed apart from the document's own parse cache. */
  private readonly parseVersion = (text: string) => referencesAsJson(parseSettings(text, this.format, this.file, this.options.maxDocumentBytes).data) as SettingsDocument

  constructor(ctx: Context, config: FileSettingsProvider.Config = {}) {
    super(ctx)
    this.file = resolveDocumentPath(config.path, config.home)
    this.format = formatOf(this.file)
    this.options = fileProviderOptions(config)
    // 4 DISPOSED, 5 UNLOADING (cordis's FiberState is a const enum): the provider is on its way out.
    this.stopping = () => this.closed || ctx.fiber?.state === 4 || ctx.fiber?.state === 5
    const warn = (message: string, error?: unknown) => ctx.logger('settings').warn(message, ...(error === undefined ? [] : [error]))
    const { file, format } = this
    const { maxDocumentBytes, history: limits } = this.options
    // History belongs to the deployment: beside the path it configured (a symlink's own folder), never
    // in the folder a symlink leads to (a dotfiles repository), and it stays there when the link is retargeted.
    const history = limits ? new DocumentHistory(join(realDirectory(dirname(file)), basename(file)), limits, { warn }) : undefined
    this.disk = new DocumentStore<Base>({
      ...this.options,
      file,
      history,
      companion: editorSchemaPath(file),
      step: (step) => this.step(step),
      retargeted: (paths) => this.watcher?.follow(paths),
      lateDue: () => void this.checkLateEdit(),
      stopping: this.stopping,
    })
    this.parses = new ParseCache({ file, format, maxDocumentBytes })
    this.reloads = new Reloads({ file, disk: this.disk, parses: this.parses, warn })
    this.writes = new SettingsWrites({ file, format, maxDocumentBytes, store: this.disk, parse: (text) => this.parses.parse(text), written: (text, parsed) => this.parses.remember(text, parsed), modelineFor: (text, created) => this.modelineFor(text, created), warn })
    const locked = (trim: () => Promise<void>) => this.enqueue(() => this.disk.locked(trim))
    this.secrets = secretsOf({ ...this.options, file, format, mode: this.options.secrets, env: process.env, stopping: this.stopping, secretPaths: (ns, section) => this.secretPaths(ns, section), warn })
    this.notes = history && new JournalNotes(history, { locked, warn: (message, error) => warn(`settings: ${file}: ${message}`, error) })
  }

  /** The registered kinds changed: rewrite the editor schema once they settle. */
  protected override kindsChanged(): void {
    this.schemaWriter()?.schedule()
  }

  /** The text a YAML document starts with so editors find its schema, when this write should add it. */
  private modelineFor(text: string, created: boolean): string | undefined {
    return modelineFor(this.file, this.format, this.options, text, created)
  }

  override get documentPath(): string {
    return this.file
  }

  /** False while the document (the file its symlinks lead to) or its folder refuses writes (mode without the owner's write bit, or no access). */
  override get writable(): boolean {
    return this.disk.writable()
  }

  /**
   * Keep an existing document, or exclusively create an empty one (mode 0600),
   * and return its path. A symlinked document whose file does not exist yet
   * gets it created at the end of its symlinks.
   */
  override async prepareDocument(): Promise<string> {
    const modeline = this.modelineFor('', true)
    await this.disk.create(modeline ? `${modeline}\n` : '')
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
    // Effects of the provider's fiber: the store's late-edit timer and the journal's gathering end with it.
    this.ctx.effect(() => () => (this.disk.dispose(), this.secrets.dispose()), 'settings-file: document and secret stores')
    this.ctx.effect(() => () => this.notes?.flush(), 'settings-file: history journal notes')
    if (!this.options.editorSchema) return
    const { locale } = this.options
    this.schemaWriter = startEditorSchema(this.ctx, this.file, () => this.registeredKinds(), { owner: this.disk.writer, stopping: this.stopping, leaveGraceMs: this.kindLeaveGraceMs, locale })
  }

  protected async load(): Promise<SettingsDocument> {
    try {
      // A keychain that is missing or locked fails the start here, saying what to do.
      await checkStore(this.secrets.store)
      // Settled: a start at the instant an editor's in-place save has truncated the document waits for the save.
      const version = await this.disk.readSettled(this.file, true)
      const parsed = version.text === undefined ? undefined : this.parses.parse(version.text)
      this.disk.seen = version
      if (this.options.watch) await this.startWatcher()
      this.given = await this.secrets.resolve((parsed?.data ?? {}) as SettingsDocument)
      return this.given
    } catch (error) {
      throw settingsError(this.file, error)
    }
  }

  private async startWatcher(): Promise<void> {
    // An effect of the provider's fiber: its disposal stops the watcher (and its timers).
    this.ctx.effect(() => {
      const started = new DocumentWatcher(this.disk.names, {
        ...this.options,
        onChange: () => void this.reload(true),
        onRecheck: () => void this.reload(false),
        onError: (error) => this.ctx.logger('settings').warn(`settings: watching ${this.file} failed:`, error),
      })
      this.watcher = started
      return () => started.close()
    }, 'settings-file: document watcher')
    this.ctx.effect(storeWatchEffect(this.secrets.store, this.options, () => void this.secretsChanged()), 'settings-file: secret store watcher')
    await this.watcher!.start()
  }

  protected override async close(): Promise<void> {
    this.closed = true
    // Timers and watchers are effects of this fiber, stopped with it; what was answered is finished here.
    await this.chain
    await this.notes?.flush()
  }

  /** Run `operation` after every earlier reload and write: one chain for both. */
  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.chain.then(operation)
    this.chain = result.then(() => {}, () => {})
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
      try {
        this.disk.locate()
        if (this.disk.late.pending()) return this.rescueLateEdit()
        const document = await this.reloads.read(force)
        if (document) this.publishIfNew(await this.secrets.resolve(document))
      } catch (error) {
        this.ctx.logger('settings').warn(`settings: reloading ${this.file} failed:`, error)
      }
    })
  }

  protected override async store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    const options = { writes: this.writes, secrets: this.secrets, notes: this.notes, publishIfNew: (document: SettingsDocument) => this.publishIfNew(document), given: (document: SettingsDocument) => void (this.given = document) }
    try {
      return await this.enqueue(() => this.disk.locked((lock, target) => writeTransaction(options, lock, target, transaction)))
    } catch (error) {
      throw settingsError(this.file, error)
    }
  }

  /** A hand edit of the secret store: the sections that read it resolve again, and those that changed are published. */
  private secretsChanged(): Promise<void> {
    const raw = () => (this.disk.seen.text === undefined ? {} : this.parses.parse(this.disk.seen.text).data) as SettingsDocument
    return this.enqueue(async () => void (this.secrets.storeChanged(), this.closed || this.publishIfNew(await this.secrets.resolve(raw())))).catch((error: unknown) => this.ctx.logger('settings').warn(`settings: reading the secret store of ${this.file} failed:`, error))
  }

  /** A change of a value held by `!env`/`!file` is refused, naming the reference. */
  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    return this.secrets.refusal(key, section)
  }

  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    return this.secrets.source(key, path)
  }

  /** Move every inline secret (each registered kind's, global and scoped) to the store in one write, and out of `history/`; the count only, never which. */
  async moveSecrets(): Promise<{ moved: number }> {
    const { file, format, secrets, disk, writes, options } = this
    const stored = (document: SettingsDocument) => secrets.resolve(document).then((resolved) => this.publishIfNew(resolved))
    const context = { file, format, store: secrets.store, secrets, disk, writes, maxDocumentBytes: options.maxDocumentBytes, stored, warn: (message: string) => this.ctx.logger('settings').warn(message), secretPaths: (ns: string, section: unknown) => this.secretPaths(ns, section) }
    return this.enqueue(() => moveSecrets(context)).catch((error: unknown) => Promise.reject(settingsError(file, error)))
  }

  /** Tell the seam about a document it has not been given yet: the sections that are not those it was last given. */
  private publishIfNew(document: SettingsDocument): void {
    const given = this.given
    if (document === given) return
    this.given = document
    this.publish(given ? sectionChanges(given, document) : document)
  }

  /** Fold a late edit in, if one landed, outside any write: store the merged document and publish it. */
  private checkLateEdit(): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return
      try {
        if (this.disk.late.pending()) await this.rescueLateEdit()
        else this.disk.late.schedule()
      } catch (error) {
        this.ctx.logger('settings').warn(`settings: folding a late edit into ${this.file} failed:`, error)
      }
    })
  }

  private async rescueLateEdit(): Promise<void> {
    const stored = await this.disk.locked((lock, target) => this.writes.write(lock, target, (current) => ({ next: current })))
    if (stored && !this.closed) this.publishIfNew(await this.secrets.resolve(stored.document))
    // A save still under way is looked at again.
    else if (!stored) this.disk.late.schedule()
  }

  /**
   * Whether replaced versions are kept in `history/` (the `history` option)
   * and the folder can take them now: false while it cannot (not writable,
   * another owner's, a symlink), when writes land without a kept version.
   */
  override get keepsHistory(): boolean {
    return this.disk.history !== undefined && this.disk.history.unavailable() === undefined
  }

  override async history(query?: SettingsHistoryQuery): Promise<SettingsHistoryVersion[]> {
    const history = this.disk.history
    if (!history) return super.history(query)
    await this.notes?.flush()
    return listVersions(history, this.parseVersion, query).catch((error: unknown) => Promise.reject(settingsErrorOf(error)))
  }

  override async historyDocument(id: string): Promise<SettingsDocument> {
    const history = this.disk.history
    if (!history) return super.historyDocument(id)
    await this.notes?.flush()
    // References resolve (with today's values): a restore hands the seam plain values, as a load does.
    return readVersionDocument(history, this.parseVersion, id).then((document) => this.secrets.resolve(document, false)).catch((error: unknown) => Promise.reject(settingsErrorOf(error)))
  }
}

export namespace FileSettingsProvider {
  /** How many replaced versions `history/` keeps. */
  export type HistoryConfig = FileHistoryConfig
  /** Configuration of {@link FileSettingsProvider}; see the package README for each key. */
  export type Config = FileProviderConfig
}
