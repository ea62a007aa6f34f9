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
 * Watches one document through the directories of its names (so deleting,
 * re-creating and atomically replacing the file are all seen): the file, and
 * for a symlinked document each link on the way too, so a retargeted link is
 * seen like an edit. Debounces their events, and ticks a periodic re-check for
 * file systems whose events are unreliable.
 */
export class DocumentWatcher {
  private watcher: FSWatcher | undefined
  private debounce: ReturnType<typeof setTimeout> | undefined
  private trailing: ReturnType<typeof setTimeout> | undefined
  private recheck: ReturnType<typeof setInterval> | undefined
  private closed = false
  private files: Set<string>
  private directories: Set<string>

  /** @param paths - the document's names in symlink-free folders: each link followed, then the file (see `resolveTarget`). */
  constructor(paths: readonly string[], private readonly options: DocumentWatcherOptions) {
    this.files = new Set(paths)
    this.directories = new Set(paths.map((path) => dirname(path)))
  }

  /** Start watching; resolves once the watcher is ready. */
  start(): Promise<void> {
    const watcher = watch([...this.directories], {
      ignoreInitial: true,
      depth: 0,
      atomic: true,
      // A link is watched as the name it is; the file it leads to is watched by its own name.
      followSymlinks: false,
      ignored: (path: string) => !this.directories.has(path) && !this.files.has(path),
    })
    this.watcher = watcher
    watcher.on('all', (_event, path) => {
      if (this.files.has(path)) this.schedule()
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

  /** Watch these names from now on (a link was retargeted): folders no longer needed are let go. */
  follow(paths: readonly string[]): void {
    const files = new Set(paths)
    const directories = new Set(paths.map((path) => dirname(path)))
    const added = [...directories].filter((directory) => !this.directories.has(directory))
    const dropped = [...this.directories].filter((directory) => !directories.has(directory))
    this.files = files
    this.directories = directories
    if (this.closed || !this.watcher) return
    if (added.length) this.watcher.add(added)
    if (dropped.length) this.watcher.unwatch(dropped)
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
