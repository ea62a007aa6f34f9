/** Milliseconds since 2024-01-01, the origin of revision epochs. */
const EPOCH_ORIGIN = Date.UTC(2024, 0, 1)

/**
 * Revision counters of raw sections, kept for the life of one service whatever
 * registrations come and go. Every counter starts at a per-process epoch (the
 * start time in milliseconds, times 1024, plus a random tail), so a revision
 * read from an earlier process of the same document never matches a later one.
 */
export class Revisions {
  /** The value every untouched section reports. */
  readonly epoch: number
  private readonly counters = new Map<string, number>()

  constructor(now: number = Date.now(), random: number = Math.random()) {
    this.epoch = Math.max(0, now - EPOCH_ORIGIN) * 1024 + Math.floor(random * 1024)
  }

  /** The current revision of a section. */
  get(id: string): number {
    return this.counters.get(id) ?? this.epoch
  }

  /** Record a section's new revision. */
  set(id: string, revision: number): void {
    this.counters.set(id, revision)
  }

  /** Move a section's revision one step and return the new value. */
  bump(id: string): number {
    const next = this.get(id) + 1
    this.counters.set(id, next)
    return next
  }
}
