import { describe, expect, it } from 'vitest'
import { GroupQueue } from '../src/queue.ts'
import { deferred, settle, type Deferred } from 'dsh-testing'

/**
 * A queue whose groups wait for the test to release them. Each group is
 * recorded when it starts; `release(i)` lets the i-th group finish.
 */
function controlled<W>() {
  const groups: W[][] = []
  const gates: Deferred[] = []
  const events: string[] = []
  let running = 0
  let overlapped = false
  const queue = new GroupQueue<W>(async (group) => {
    const index = groups.length
    groups.push(group)
    const gate = deferred()
    gates.push(gate)
    running++
    if (running > 1) overlapped = true
    events.push(`start ${index}`)
    await gate.promise
    events.push(`end ${index}`)
    running--
  })
  return {
    queue,
    groups,
    events,
    release: (index: number) => gates[index]!.resolve(),
    get overlapped() {
      return overlapped
    },
  }
}

describe('GroupQueue', () => {
  it('sends writes pushed in one synchronous run as one group, in call order', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    q.queue.push('b')
    q.queue.push('c')
    await settle()
    expect(q.groups).toEqual([['a', 'b', 'c']])
    q.release(0)
    await q.queue.idle()
  })

  it('gathers writes pushed while a group runs into the next group', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await settle()
    expect(q.groups).toEqual([['a']])

    q.queue.push('b')
    q.queue.push('c')
    await settle()
    // The running group holds the line: the next one has not started.
    expect(q.groups).toEqual([['a']])

    q.release(0)
    await settle()
    expect(q.groups).toEqual([['a'], ['b', 'c']])
    q.release(1)
    await q.queue.idle()
  })

  it('never runs two groups at once', async () => {
    const q = controlled<number>()
    q.queue.push(1)
    await settle()
    q.queue.push(2)
    await settle()
    q.release(0)
    await settle()
    q.queue.push(3)
    await settle()
    q.release(1)
    await settle()
    q.release(2)
    await q.queue.idle()
    expect(q.groups).toEqual([[1], [2], [3]])
    expect(q.events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2'])
    expect(q.overlapped).toBe(false)
  })

  it('starts a fresh group for a write pushed after the queue went idle', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await settle()
    q.release(0)
    await q.queue.idle()
    q.queue.push('b')
    await settle()
    expect(q.groups).toEqual([['a'], ['b']])
    q.release(1)
    await q.queue.idle()
  })

  it('hands over unstarted writes through takePending and does not run them', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await settle()
    q.queue.push('b')
    q.queue.push('c')
    expect(q.queue.takePending()).toEqual(['b', 'c'])
    expect(q.queue.takePending()).toEqual([])
    q.release(0)
    await settle()
    // The group that was scheduled for them starts empty or not at all; either way they never run.
    for (let i = 1; i < q.groups.length; i++) q.release(i)
    await q.queue.idle()
    expect(q.groups.flat()).toEqual(['a'])
  })

  it('leaves a running group alone when pending writes are taken', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    q.queue.push('b')
    await settle()
    expect(q.queue.takePending()).toEqual([])
    q.release(0)
    await q.queue.idle()
    expect(q.groups).toEqual([['a', 'b']])
    expect(q.events).toEqual(['start 0', 'end 0'])
  })

  it('keeps working after pending writes were taken', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    q.queue.takePending()
    await settle()
    for (let i = 0; i < q.groups.length; i++) q.release(i)
    await q.queue.idle()
    const before = q.groups.length
    q.queue.push('b')
    await settle()
    expect(q.groups.slice(before)).toEqual([['b']])
    q.release(before)
    await q.queue.idle()
    expect(q.groups.flat()).toEqual(['b'])
  })

  it('settles idle() only after the groups running when it was called have finished', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await settle()
    q.queue.push('b')
    let idle = false
    const waiting = q.queue.idle().then(() => {
      idle = true
    })
    await settle()
    expect(idle).toBe(false)
    q.release(0)
    await settle()
    expect(idle).toBe(false)
    q.release(1)
    await waiting
    expect(idle).toBe(true)
    expect(q.events).toEqual(['start 0', 'end 0', 'start 1', 'end 1'])
  })

  it('settles idle() at once when nothing was ever queued', async () => {
    const queue = new GroupQueue<string>(async () => {})
    await expect(queue.idle()).resolves.toBeUndefined()
  })
})
