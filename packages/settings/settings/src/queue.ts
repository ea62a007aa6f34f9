/**
 * Ordered write queue with group commit. Writes wait in call order; when the
 * queue is free, every waiting write leaves together as one group, so writes
 * that pile up while a group is on storage share the next transaction; a
 * write that comes right after a group gathers for one turn of the event loop,
 * unless it comes from what the group's own end set off (a caller that awaited
 * its write and writes again: nothing else can arrive before it, so the turn
 * would gather nothing). Groups run one at a time, so writes to any one
 * section keep call order.
 */
export class GroupQueue<W> {
  private pending: W[] = []
  private scheduled = false
  private tail: Promise<void> = Promise.resolve()
  /** Whether a group finished since the event loop last turned (then writes are arriving in a stream). */
  private justFinished = false
  /**
   * Whether the promise jobs a group's end set off are still running (until the
   * next tick): a write queued from them follows its caller's own awaited write.
   */
  private ending = false

  /** @param runGroup - runs one group to completion; it must answer every write itself and never reject. */
  constructor(private readonly runGroup: (group: W[]) => Promise<void>) {}

  /** Queue a write; it joins the next group that starts. */
  push(write: W): void {
    this.pending.push(write)
    if (this.scheduled) return
    this.scheduled = true
    this.tail = this.tail.then(async () => {
      // A write after a quiet spell runs at once. One on the heels of a group waits a turn of the event loop,
      // so what else arrived with it (requests read in the same poll) shares its transaction, also when the
      // store holds the loop for its whole write (PostgreSQL's commit_delay waits only when others are active, too).
      if (this.justFinished && !this.ending) await new Promise((resolve) => setImmediate(resolve))
      this.scheduled = false
      const group = this.pending.splice(0)
      // Taken away meanwhile (`takePending`): nothing to run.
      if (!group.length) return
      try {
        await this.runGroup(group)
      } finally {
        this.justFinished = true
        this.ending = true
        // Ticks run once the promise jobs queued now (the callers' continuations) have all run.
        process.nextTick(() => (this.ending = false))
        setImmediate(() => (this.justFinished = false)).unref()
      }
    })
  }

  /** Take every write that has not started yet out of the queue. */
  takePending(): W[] {
    return this.pending.splice(0)
  }

  /** Settles once every group started so far has finished. */
  idle(): Promise<void> {
    return this.tail
  }
}
