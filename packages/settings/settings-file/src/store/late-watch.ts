import type { KeptVersion } from './keep.ts'
import { removeName } from './leftovers.ts'
import { ABSENT, readVersion, sameSignature, statVersion, type FileVersion } from './version.ts'
import { setTimeout as sleep } from 'node:timers/promises'

/** How long an editor's late write into the version a write replaced is still taken. */
export const LATE_WINDOW_MS = 10_000

/** The version a write replaced, watched for an editor's late write into it. */
interface Watched<T> {
  /** The old file (a history entry, or its hidden name beside the document). */
  path: string
  /** Whether {@link path} is a hidden name to remove once the window closes. */
  hidden: boolean
  /** The signature it had when read, before the replace: a save from then on counts as late. */
  version: FileVersion
  /** What the caller made of it (the data a late editor started from); handed back with the late text. */
  base: T
  until: number
}

/** A late write into a replaced version: its text as it settled, and the base the watch was given. */
export interface LateText<T> {
  text: string
  base: T
}

/**
 * Watches the file the last write replaced for an editor that had it open and
 * writes into it after the replace (the late window): looked at a short while
 * after each write and before the next, and handed back as text with the base
 * the caller gave, for the caller to merge. Owns its timer: dispose it with
 * the host (a cordis effect).
 */
export class LateWatch<T> {
  private watched: Watched<T> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private disposed = false

  constructor(
    private readonly options: {
      /** A read younger than this may still be written into: waited for (bounded). */
      settleMs: number
      /** The watched file may have changed: look (the caller queues it behind its writes). */
      onDue(): void
    },
  ) {}

  /** Watch the file `kept` names, from the signature `read` had. Replaces the watch before it. */
  watch(kept: KeptVersion, read: FileVersion, base: T): void {
    this.forget()
    this.watched = { path: kept.watched, hidden: kept.hidden, version: read, base, until: Date.now() + LATE_WINDOW_MS }
    if (this.disposed) this.forget()
    else this.schedule()
  }

  /** Look again soon, while a file is watched. */
  schedule(): void {
    clearTimeout(this.timer)
    if (!this.watched || this.disposed) return
    this.timer = setTimeout(() => this.options.onDue(), this.options.settleMs * 2)
    this.timer.unref?.()
  }

  /** Whether an editor wrote into the watched file since it was replaced; a window that closed, or a file gone (pruned), ends the watch. */
  pending(): boolean {
    const watched = this.watched
    if (!watched) return false
    if (Date.now() > watched.until) {
      this.forget()
      return false
    }
    const now = statVersion(watched.path)
    if (now === ABSENT) {
      this.forget()
      return false
    }
    return !sameSignature(now, watched.version)
  }

  /**
   * The late write's text once it has not changed for `settleMs` (bounded), with the base; `undefined` when none is pending.
   * The watch goes on until {@link forget}: a text the caller cannot use yet is looked at again.
   */
  async read(): Promise<LateText<T> | undefined> {
    if (!this.pending()) return undefined
    const watched = this.watched!
    const { settleMs } = this.options
    const giveUp = Date.now() + settleMs * 10
    let version = await readVersion(watched.path)
    while (Date.now() - version.mtimeMs < settleMs && Date.now() < giveUp) {
      await sleep(Math.max(1, settleMs - (Date.now() - version.mtimeMs)))
      version = await readVersion(watched.path)
    }
    return { text: version.text ?? '', base: watched.base }
  }

  /** Stop watching; a hidden name beside the document is removed. */
  forget(): void {
    const watched = this.watched
    this.watched = undefined
    if (watched?.hidden) removeName(watched.path)
  }

  /** Stop the timer and the watch for good. */
  dispose(): void {
    this.disposed = true
    clearTimeout(this.timer)
    this.forget()
  }
}
