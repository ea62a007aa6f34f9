import { describe, expect, it } from 'vitest'
import { GroupQueue } from '../src/queue.ts'
import { deferred, type Deferred } from 'dsh-testing'
import { drainMicrotasks } from './harness.ts'

/**
 * A queue whose groups wait for the test to release them. Each group is
 * recorded when it starts; `started(i)` resolves once the i-th group has
 * started, `release(i)` lets it finish.
 */
function controlled<W>() {
  const groups: W[][] = []
  const gates: Deferred[] = []
  const starts: Deferred[] = []
  const events: string[] = []
  let running = 0
  let overlapped = false
  const startOf = (index: number) => (starts[index] ??= deferred())
  const queue = new GroupQueue<W>(async (group) => {
    const index = groups.length
    groups.push(group)
    const gate = deferred()
    gates.push(gate)
    running++
    if (running > 1) overlapped = true
    events.push(`start ${index}`)
    startOf(index).resolve()
    await gate.promise
    events.push(`end ${index}`)
    running--
  })
  return {
    queue,
    groups,
    events,
    started: (index: number) => startOf(index).promise,
    release: (index: number) => gates[index]!.resolve(),
    get overlapped() {
      return overlapped
    },
  }
}

/** A queue whose groups finish at once, recording each; stores that never leave the event loop behave like this. */
function immediate<W>() {
  const groups: W[][] = []
  const queue = new GroupQueue<W>(async (group) => void groups.push(group))
  return { queue, groups }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('GroupQueue', () => {
  it('runs a write that comes after a quiet spell at once, without waiting for the event loop', async () => {
    const q = immediate<string>()
    q.queue.push('a')
    await drainMicrotasks()
    expect(q.groups).toEqual([['a']])
  })

  it('makes a write on the heels of a group wait one turn, gathering what arrives in that turn into its group', async () => {
    const q = immediate<string>()
    q.queue.push('a')
    await drainMicrotasks()
    // Right after the first group: these arrive as requests read in one poll would, one callback each.
    q.queue.push('b')
    await drainMicrotasks()
    expect(q.groups).toEqual([['a']])
    // Not run yet after its microtasks: what comes before the loop turns joins it.
    q.queue.push('c')
    await turn()
    await q.queue.idle()
    expect(q.groups).toEqual([['a'], ['b', 'c']])
    // Once a turn has passed with nothing queued, the next write runs at once again.
    await turn()
    q.queue.push('d')
    await drainMicrotasks()
    expect(q.groups.at(-1)).toEqual(['d'])
  })

  it('runs at once a write its caller queues on its own awaited write\'s end: nothing else could join it in a turn', async () => {
    const groups: string[][] = []
    const done: Record<string, () => void> = {}
    const queue = new GroupQueue<string>(async (group) => {
      groups.push(group)
      for (const write of group) done[write]?.()
    })
    const write = (name: string) => new Promise<void>((resolve) => ((done[name] = resolve), queue.push(name)))
    // A caller that awaits each write before the next, as a plugin's loop or a bench does.
    const sequence = (async () => {
      for (const name of ['a', 'b', 'c']) await write(name)
    })()
    // All three ran before the event loop turned once.
    await drainMicrotasks()
    expect(groups).toEqual([['a'], ['b'], ['c']])
    await sequence
    // From a later callback (a request read in the next poll), a write on the heels of a group still waits a turn.
    await write('d')
    setImmediate(() => queue.push('e'))
    await new Promise<void>((resolve) => setImmediate(resolve))
    queue.push('f')
    await turn()
    await queue.idle()
    expect(groups.slice(3)).toEqual([['d'], ['e', 'f']])
  })

  it('sends writes pushed in one synchronous run as one group, in call order', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    q.queue.push('b')
    q.queue.push('c')
    await q.started(0)
    expect(q.groups).toEqual([['a', 'b', 'c']])
    q.release(0)
    await q.queue.idle()
    expect(q.groups).toEqual([['a', 'b', 'c']])
  })

  it('gathers writes pushed while a group runs into the next group', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await q.started(0)
    expect(q.groups).toEqual([['a']])

    q.queue.push('b')
    q.queue.push('c')
    await drainMicrotasks()
    // The running group holds the line: the next one has not started.
    expect(q.groups).toEqual([['a']])

    q.release(0)
    await q.started(1)
    expect(q.groups).toEqual([['a'], ['b', 'c']])
    q.release(1)
    await q.queue.idle()
  })

  it('never runs two groups at once', async () => {
    const q = controlled<number>()
    q.queue.push(1)
    await q.started(0)
    q.queue.push(2)
    await drainMicrotasks()
    q.release(0)
    await q.started(1)
    q.queue.push(3)
    await drainMicrotasks()
    q.release(1)
    await q.started(2)
    q.release(2)
    await q.queue.idle()
    expect(q.groups).toEqual([[1], [2], [3]])
    expect(q.events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2'])
    expect(q.overlapped).toBe(false)
  })

  it('starts a fresh group for a write pushed after the queue went idle', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await q.started(0)
    q.release(0)
    await q.queue.idle()
    q.queue.push('b')
    await q.started(1)
    expect(q.groups).toEqual([['a'], ['b']])
    q.release(1)
    await q.queue.idle()
  })

  it('hands over unstarted writes through takePending and does not run them', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await q.started(0)
    q.queue.push('b')
    q.queue.push('c')
    expect(q.queue.takePending()).toEqual(['b', 'c'])
    expect(q.queue.takePending()).toEqual([])
    q.release(0)
    await drainMicrotasks()
    // The group that was scheduled for them starts empty or not at all; either way they never run.
    for (let i = 1; i < q.groups.length; i++) q.release(i)
    await q.queue.idle()
    expect(q.groups.flat()).toEqual(['a'])
  })

  it('leaves a running group alone when pending writes are taken', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    q.queue.push('b')
    await q.started(0)
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
    await drainMicrotasks()
    // The group scheduled for 'a' starts empty or not at all.
    for (let i = 0; i < q.groups.length; i++) q.release(i)
    await q.queue.idle()
    const before = q.groups.length
    q.queue.push('b')
    await q.started(before)
    expect(q.groups.slice(before)).toEqual([['b']])
    q.release(before)
    await q.queue.idle()
    expect(q.groups.flat()).toEqual(['b'])
  })

  it('resolves idle() only after the groups running when it was called have finished', async () => {
    const q = controlled<string>()
    q.queue.push('a')
    await q.started(0)
    q.queue.push('b')
    let idle = false
    const waiting = q.queue.idle().then(() => {
      idle = true
    })
    await drainMicrotasks()
    expect(idle).toBe(false)
    q.release(0)
    await q.started(1)
    expect(idle).toBe(false)
    q.release(1)
    await waiting
    expect(idle).toBe(true)
    expect(q.events).toEqual(['start 0', 'end 0', 'start 1', 'end 1'])
  })

  it('resolves idle() at once when nothing was ever queued', async () => {
    const queue = new GroupQueue<string>(async () => {})
    await expect(queue.idle()).resolves.toBeUndefined()
  })
})
