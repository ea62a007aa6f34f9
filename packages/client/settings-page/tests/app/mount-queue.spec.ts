/**
 * MountQueue: the page's background mounting. What these tests prove: mounts run
 * in the order queued, a few per task, never within the call that queued them;
 * a cheap batch makes the next one larger and a costly one smaller (its cost
 * measured at the next task, after the render it caused); a mount taken out of
 * the queue never runs; clear drops every waiting mount.
 */
import { describe, expect, it } from 'vitest'
import { MountQueue } from '../../src/app/mount-queue.ts'

/** A queue on a hand-driven clock and task list. */
function driven(budgetMs = 10) {
  const tasks: (() => void)[] = []
  let clock = 0
  const queue = new MountQueue({ budgetMs, schedule: (run) => void tasks.push(run), now: () => clock })
  return {
    queue,
    advance: (ms: number) => void (clock += ms),
    /** Run the next task; false when none is left. */
    step: () => {
      const task = tasks.shift()
      task?.()
      return task !== undefined
    },
  }
}

describe('MountQueue', () => {
  it('mounts in order, in batches that grow while they are cheap, and never inside add', () => {
    const { queue, step } = driven()
    const mounted: number[] = []
    for (let index = 0; index < 20; index++) queue.add(() => mounted.push(index))
    expect(mounted).toEqual([])
    const batches: number[] = []
    while (step()) batches.push(mounted.length)
    expect(mounted).toEqual(Array.from({ length: 20 }, (_, index) => index))
    // 2, then 4, 8, 6 more: each batch took no time, so the next is twice as large.
    expect([...new Set(batches)]).toEqual([2, 6, 14, 20])
    expect(queue.size).toBe(0)
  })

  it('shrinks the batch after one that overran its budget', () => {
    const { queue, step, advance } = driven(10)
    const mounted: number[] = []
    for (let index = 0; index < 12; index++) queue.add(() => {
      mounted.push(index)
      // Each mount (with its render) costs 8 ms: a batch of two overruns a 10 ms budget by more than half.
      advance(8)
    })
    step()
    expect(mounted).toHaveLength(2)
    // The next task measures 16 ms for that batch, and mounts half as many.
    step()
    expect(mounted).toHaveLength(3)
    // One mount (8 ms) is within the budget: the batch stays at one.
    step()
    expect(mounted).toHaveLength(4)
  })

  it('never runs a mount taken out of the queue, and drops all on clear', () => {
    const { queue, step } = driven()
    const mounted: string[] = []
    queue.add(() => mounted.push('a'))
    const cancel = queue.add(() => mounted.push('b'))
    queue.add(() => mounted.push('c'))
    cancel()
    while (step());
    expect(mounted).toEqual(['a', 'c'])
    queue.add(() => mounted.push('d'))
    queue.clear()
    while (step());
    expect(mounted).toEqual(['a', 'c'])
    // A queue that ran dry starts again for the next mount.
    queue.add(() => mounted.push('e'))
    while (step());
    expect(mounted).toEqual(['a', 'c', 'e'])
  })
})
