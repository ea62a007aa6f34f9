/**
 * Ordered write queue with group commit. Writes wait in call order; when the
 * queue is free, every waiting write leaves together as one group, so writes
 * that pile up while a group is on storage share the next transaction.
 * Groups run one at a time, so writes to any one section keep call order.
 */
export class GroupQueue<W> {
  private pending: W[] = []
  private scheduled = false
  private tail: Promise<void> = Promise.resolve()

  /** @param runGroup - runs one group to completion; it must settle every write itself and never reject. */
  constructor(private readonly runGroup: (group: W[]) => Promise<void>) {}

  /** Queue a write; it joins the next group that starts. */
  push(write: W): void {
    this.pending.push(write)
    if (this.scheduled) return
    this.scheduled = true
    this.tail = this.tail.then(() => {
      this.scheduled = false
      return this.runGroup(this.pending.splice(0))
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
