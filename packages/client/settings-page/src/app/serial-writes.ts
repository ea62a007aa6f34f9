/**
 * One write at a time per section: a task queued while another of its
 * section is on its way starts once that one has settled (either way), so an
 * edit is planned against the answer of the one before it.
 */
export class SerialWrites {
  /** The last task of each section still on its way. */
  private readonly tails = new Map<string, Promise<void>>()

  /** Run `task` after the section's tasks before it; answers what it answers. */
  run<T>(ns: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(ns)
    const run = previous ? previous.then(task) : task()
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(ns, tail)
    void tail.then(() => {
      if (this.tails.get(ns) === tail) this.tails.delete(ns)
    })
    return run
  }
}
