/**
 * Mounting the page's sections a few at a time, between frames, so a page of
 * a thousand namespaces shows its first screen at once and the rest arrives
 * while the reader is already working: each batch is sized to take about one
 * frame's budget, judged by how long the previous one took (the render a
 * batch causes runs before the next task, so its time is counted).
 */

/** Schedules a callback as a new task (a timer), so input and frames run between batches. */
export type ScheduleTask = (run: () => void) => void

/** What a queue needs from its surroundings; the defaults are the browser's. */
export interface MountQueueOptions {
  /** How long one batch, render included, should take. */
  budgetMs?: number
  schedule?: ScheduleTask
  now?: () => number
}

/** The default frame budget of one batch: most of a 60 Hz frame, leaving room for input and paint. */
export const MOUNT_BUDGET_MS = 12

/** The most mounts one batch takes, however cheap the last one was. */
const MAX_BATCH = 64

/** A first-in, first-out queue of mounts run in batches sized to a time budget. */
export class MountQueue {
  private readonly waiting = new Set<() => void>()
  private readonly budget: number
  private readonly schedule: ScheduleTask
  private readonly now: () => number
  private batch = 2
  private running = false

  constructor(options: MountQueueOptions = {}) {
    this.budget = options.budgetMs ?? MOUNT_BUDGET_MS
    this.schedule = options.schedule ?? ((run) => void setTimeout(run, 0))
    this.now = options.now ?? (() => performance.now())
  }

  /** How many mounts wait. */
  get size(): number {
    return this.waiting.size
  }

  /**
   * Run `mount` in a later batch, after those queued before it.
   * @returns a function that takes it out of the queue (it mounted some other way, or went away).
   */
  add(mount: () => void): () => void {
    this.waiting.add(mount)
    if (!this.running) {
      this.running = true
      this.schedule(() => this.run())
    }
    return () => void this.waiting.delete(mount)
  }

  /** Forget every waiting mount (the page went away). */
  clear(): void {
    this.waiting.clear()
  }

  private run(): void {
    const started = this.now()
    let left = this.batch
    for (const mount of this.waiting) {
      if (left-- <= 0) break
      this.waiting.delete(mount)
      mount()
    }
    // The next task starts after the render these mounts caused: that is the batch's real cost.
    this.schedule(() => {
      const took = this.now() - started
      if (took < this.budget / 2) this.batch = Math.min(MAX_BATCH, this.batch * 2)
      else if (took > this.budget * 1.5) this.batch = Math.max(1, Math.floor(this.batch / 2))
      if (this.waiting.size) this.run()
      else this.running = false
    })
  }
}
