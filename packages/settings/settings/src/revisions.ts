/** Milliseconds since 2024-01-01, the origin of revision epochs. */
const EPOCH_ORIGIN = Date.UTC(2024, 0, 1)

/**
 * Revision counters of raw sections, kept for the life of one service whatever
 * registrations come and go. They come from one of two places:
 * - the process (default): every counter starts at a per-process epoch (the
 *   start time in milliseconds, times 1024, plus a random tail), so a revision
 *   read from an earlier process of the same document never matches a later one;
 * - the store ({@link adoptStoreVersions}): each section's revision is the
 *   version the store reports for it, 0 for one it never stored, the same on
 *   every host that shares the store.
 */
export class Revisions {
  private origin: number
  private owned = false
  private readonly counters = new Map<string, number>()

  constructor(now: number = Date.now(), random: number = Math.random()) {
    this.origin = Math.max(0, now - EPOCH_ORIGIN) * 1024 + Math.floor(random * 1024)
  }

  /** The value every untouched section reports. */
  get epoch(): number {
    return this.origin
  }

  /** Whether revisions are the store's versions. */
  get storeOwned(): boolean {
    return this.owned
  }

  /** Switch to the store's versions, before any revision was handed out. */
  adoptStoreVersions(versions: ReadonlyMap<string, number>): void {
    this.owned = true
    this.origin = 0
    this.counters.clear()
    for (const [id, version] of versions) this.counters.set(id, version)
  }

  /** The current revision of a section. */
  get(id: string): number {
    return this.counters.get(id) ?? this.origin
  }

  /** Record a section's new revision. */
  set(id: string, revision: number): void {
    this.counters.set(id, revision)
  }

  /** Move a section's revision one step and return the new value (process-owned revisions only). */
  bump(id: string): number {
    const next = this.get(id) + 1
    this.counters.set(id, next)
    return next
  }
}
