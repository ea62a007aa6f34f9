import { watch, type FSWatcher } from 'chokidar'
import { dirname } from 'node:path'

/** Delay after the debounce before the extra re-check that catches a change chokidar throttled away. */
const TRAILING_CHECK_MS = 75

/** Options of {@link DocumentWatcher}. */
export interface DocumentWatcherOptions {
  /** Settle window: events closer together than this make one notification. */
  debounceMs: number
  /** Period of the re-check that heals events the file system never delivered. */
  recheckMs: number
  /** A debounced change of the document, or the watcher becoming ready (a reconcile). */
  onChange(): void
  /** The periodic re-check is due. */
  onRecheck(): void
  /** The watcher reported an error. */
  onError(error: unknown): void
}

/**
 * Watches one document file through its directory (so deleting, re-creating
 * and atomically replacing the file are all seen), debounces its events, and
 * ticks a periodic re-check for file systems whose events are unreliable.
 */
export class DocumentWatcher {
  private watcher: FSWatcher | undefined
  private debounce: ReturnType<typeof setTimeout> | undefined
  private trailing: ReturnType<typeof setTimeout> | undefined
  private recheck: ReturnType<typeof setInterval> | undefined
  private closed = false

  /** @param file - the canonical (realpath) document path. */
  constructor(private readonly file: string, private readonly options: DocumentWatcherOptions) {}

  /** Start watching; resolves once the watcher is ready. */
  start(): Promise<void> {
    const directory = dirname(this.file)
    const watcher = watch(directory, {
      ignoreInitial: true,
      depth: 0,
      atomic: true,
      ignored: (path: string) => path !== directory && path !== this.file,
    })
    this.watcher = watcher
    watcher.on('all', (_event, path) => {
      if (path === this.file) this.schedule()
    })
    watcher.on('error', (error) => this.options.onError(error))
    if (this.options.recheckMs > 0) {
      this.recheck = setInterval(() => this.closed || this.options.onRecheck(), this.options.recheckMs)
      this.recheck.unref?.()
    }
    return new Promise((resolve) => {
      watcher.once('ready', () => {
        if (!this.closed) this.options.onChange()
        resolve()
      })
    })
  }

  private schedule(): void {
    if (this.closed) return
    clearTimeout(this.debounce)
    this.debounce = setTimeout(() => this.closed || this.options.onChange(), this.options.debounceMs)
    this.debounce.unref?.()
    // chokidar drops a change that follows another within 50 ms; a re-check just after heals it.
    clearTimeout(this.trailing)
    this.trailing = setTimeout(() => this.closed || this.options.onRecheck(), this.options.debounceMs + TRAILING_CHECK_MS)
    this.trailing.unref?.()
  }

  /** Stop every timer and close the watcher. */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.debounce)
    clearTimeout(this.trailing)
    clearInterval(this.recheck)
    await this.watcher?.close()
  }
}
