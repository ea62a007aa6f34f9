import type { Context } from 'cordis'
import { mkdir, open, readFile, realpath, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import Schema from 'schemastery'
import { SettingsProvider, type SettingsDocument, type SettingsTransaction } from 'dsh-settings'
import { writeFileAtomic } from './atomic.ts'
import { formatOf, type DocumentFormat } from './format.ts'
import { resolveDocumentPath } from 'dsh-home'
import { acquireLock } from './lock.ts'
import { parseSettings, type ParsedDocument } from './parse.ts'
import { renderDocument } from './serialize.ts'
import { DocumentWatcher } from './watch.ts'

/** What the file records about the document it last read or wrote. */
interface Seen {
  /** The text, or `undefined` while the file does not exist. */
  text: string | undefined
  /** mtime, size and inode, for the cheap re-check. */
  signature: string
}

const ABSENT = 'absent'

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

async function signatureOf(file: string): Promise<string> {
  try {
    const info = await stat(file)
    return `${info.mtimeMs}:${info.size}:${info.ino}`
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT
    throw error
  }
}

/** The path a write must replace: the target of a symlinked document, so the user's link survives. */
async function writeTarget(file: string): Promise<string> {
  return realpath(file).catch(() => file)
}

/** The canonical path the watcher and the lock use, also when the file does not exist yet. */
async function canonicalPath(file: string): Promise<string> {
  try {
    return await realpath(file)
  } catch {
    const directory = await realpath(dirname(file)).catch(() => dirname(file))
    return join(directory, basename(file))
  }
}

/**
 * A settings provider that keeps the document in one YAML or JSON file the
 * user can edit by hand. Writes are transactions under a cross-process lock
 * that edit the file in place byte-stably; outside edits are watched, debounced
 * and re-checked periodically, then published.
 */
export class FileSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<FileSettingsProvider.Config> = Schema.object({
    path: Schema.string().description('Document path; .yaml, .yml or .json picks the format. Defaults to settings.yaml under home.'),
    home: Schema.string().description('Settings home when path is omitted; defaults to $DSH_HOME, else ~/.dsh.'),
    watch: Schema.boolean().default(true).description('Watch the document and publish outside edits.'),
    debounceMs: Schema.natural().default(100).description('Settle window for watcher events.'),
    recheckMs: Schema.natural().default(2000).description('Period of the re-check that heals missed watcher events (0 turns it off).'),
    lockTimeoutMs: Schema.natural().default(2000).description('How long a writer waits for the cross-process lock.'),
  })

  private readonly file: string
  private readonly format: DocumentFormat
  private readonly options: Required<Omit<FileSettingsProvider.Config, 'path' | 'home'>>
  private canonical: string
  private seen: Seen = { text: undefined, signature: ABSENT }
  private chain: Promise<void> = Promise.resolve()
  private watcher: DocumentWatcher | undefined
  private closed = false
  /** The last text parsed (or written, with the parse that checked it): a parse is skipped while the file still holds it. */
  private parsed: { text: string; result: ParsedDocument } | undefined

  constructor(ctx: Context, config: FileSettingsProvider.Config = {}) {
    super(ctx)
    this.file = resolveDocumentPath(config.path, config.home)
    this.format = formatOf(this.file)
    this.canonical = this.file
    // Defaults again here: a provider constructed without cordis's schema pass still behaves.
    this.options = {
      watch: config.watch ?? true,
      debounceMs: config.debounceMs ?? 100,
      recheckMs: config.recheckMs ?? 2000,
      lockTimeoutMs: config.lockTimeoutMs ?? 2000,
    }
  }

  override get documentPath(): string {
    return this.file
  }

  /** Keep an existing document, or exclusively create an empty one (mode 0600), and return its path. */
  override async prepareDocument(): Promise<string> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 })
    try {
      await (await open(this.file, 'wx', 0o600)).close()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    return this.file
  }

  protected override async open(): Promise<void> {
    this.canonical = await canonicalPath(this.file)
  }

  protected async load(): Promise<SettingsDocument> {
    const signature = await signatureOf(this.file)
    const text = await readText(this.file)
    const parsed = text === undefined ? undefined : this.parse(text)
    this.seen = { text, signature }
    if (this.options.watch) await this.startWatcher()
    return (parsed?.data ?? {}) as SettingsDocument
  }

  private async startWatcher(): Promise<void> {
    const logger = this.ctx.logger('settings')
    this.watcher = new DocumentWatcher(this.canonical, {
      debounceMs: this.options.debounceMs,
      recheckMs: this.options.recheckMs,
      onChange: () => void this.reload(true),
      onRecheck: () => void this.reload(false),
      onError: (error) => logger.warn(`settings: watching ${this.file} failed:`, error),
    })
    await this.watcher.start()
  }

  protected override async close(): Promise<void> {
    this.closed = true
    await this.watcher?.close()
    await this.chain
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
   * reads the content even when the stat signature is unchanged (a watcher
   * event); the periodic re-check reads only when the signature moved.
   */
  private reload(force: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (this.closed) return
      const logger = this.ctx.logger('settings')
      try {
        const signature = await signatureOf(this.file)
        if (!force && signature === this.seen.signature) return
        const text = await readText(this.file)
        if (text === this.seen.text) {
          this.seen = { text, signature }
          return
        }
        this.seen = { text, signature }
        if (text === undefined) return this.publish({})
        let parsed: ParsedDocument
        try {
          parsed = this.parse(text)
        } catch (error) {
          logger.warn(`${(error as Error).message}; keeping the last good settings`)
          return
        }
        this.publish(parsed.data as SettingsDocument)
      } catch (error) {
        logger.warn(`settings: reloading ${this.file} failed:`, error)
      }
    })
  }

  /** Parse document text, reusing the last parse when the text is the same. */
  private parse(text: string): ParsedDocument {
    if (this.parsed?.text === text) return this.parsed.result
    const result = parseSettings(text, this.format, this.file)
    this.parsed = { text, result }
    return result
  }

  protected async transact(transaction: SettingsTransaction): Promise<void> {
    return this.enqueue(async () => {
      const target = await writeTarget(this.file)
      await mkdir(dirname(this.canonical), { recursive: true, mode: 0o700 })
      const lock = await acquireLock(`${this.canonical}.lock`, { timeoutMs: this.options.lockTimeoutMs, file: this.file })
      try {
        // The signature before the read: a change landing after it is then seen by the re-check.
        const signature = await signatureOf(this.file)
        const text = await readText(this.file)
        // An unparsable document refuses the write and stays exactly as the user left it.
        const parsed = this.parse(text ?? '')
        const next = transaction.apply(parsed.data as SettingsDocument)
        if (next !== parsed.data) {
          const rendered = renderDocument(this.format, text ?? '', parsed, next)
          if (!rendered.preserved) this.ctx.logger('settings').warn(`settings: ${this.file} could not be edited in place and was rendered afresh`)
          await writeFileAtomic(target, rendered.text)
          this.parsed = rendered.parsed ? { text: rendered.text, result: rendered.parsed } : undefined
          this.seen = { text: rendered.text, signature: await signatureOf(this.file) }
        } else {
          this.seen = { text, signature }
        }
        transaction.commit()
      } finally {
        await lock.release()
      }
    })
  }
}

export namespace FileSettingsProvider {
  /** Configuration of {@link FileSettingsProvider}; see the package README for each key. */
  export interface Config {
    path?: string
    home?: string
    watch?: boolean
    debounceMs?: number
    recheckMs?: number
    lockTimeoutMs?: number
  }
}
