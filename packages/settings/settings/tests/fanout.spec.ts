import { Context, type Logger, type Message } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { emitContained, Inflight, Watcher } from '../src/fanout.ts'
import type { SettingsNamespace, SettingsUpdateSource } from '../src/types.ts'
import '../src/types.ts'
import { deferred } from 'dsh-testing'
import { drainMicrotasks } from './harness.ts'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!()
})

describe('Watcher', () => {
  it('runs calls one at a time in enqueue order, even when the callback is async and slow', async () => {
    const events: string[] = []
    const started = [deferred(), deferred(), deferred()]
    const gates = [deferred(), deferred(), deferred()]
    const watcher = new Watcher<number>(
      async (next, prev) => {
        events.push(`start ${next} (from ${prev})`)
        started[next - 1]!.resolve()
        await gates[next - 1]!.promise
        events.push(`end ${next}`)
      },
      () => {},
    )
    const runs = [watcher.enqueue(1, 0, () => true), watcher.enqueue(2, 1, () => true), watcher.enqueue(3, 2, () => true)]
    await started[0]!.promise
    await drainMicrotasks()
    expect(events).toEqual(['start 1 (from 0)'])

    gates[0]!.resolve()
    await started[1]!.promise
    await drainMicrotasks()
    expect(events).toEqual(['start 1 (from 0)', 'end 1', 'start 2 (from 1)'])

    gates[1]!.resolve()
    await started[2]!.promise
    gates[2]!.resolve()
    await Promise.all(runs)
    expect(events).toEqual(['start 1 (from 0)', 'end 1', 'start 2 (from 1)', 'end 2', 'start 3 (from 2)', 'end 3'])
  })

  it('resolves each enqueue once its own call has finished', async () => {
    const gate = deferred()
    const started = deferred()
    let finished = false
    const watcher = new Watcher<string>(async () => {
      started.resolve()
      await gate.promise
      finished = true
    }, () => {})
    let resolved = false
    const run = watcher.enqueue('a', '', () => true).then(() => {
      resolved = true
    })
    await started.promise
    await drainMicrotasks()
    expect(resolved).toBe(false)
    gate.resolve()
    await run
    expect(finished).toBe(true)
  })

  it('hands a synchronous throw to onError and still runs later calls', async () => {
    const errors: unknown[] = []
    const calls: number[] = []
    const boom = new Error('sync boom')
    const watcher = new Watcher<number>((next) => {
      calls.push(next)
      if (next === 1) throw boom
    }, (error) => errors.push(error))
    const first = watcher.enqueue(1, 0, () => true)
    const second = watcher.enqueue(2, 1, () => true)
    await expect(first).resolves.toBeUndefined()
    await expect(second).resolves.toBeUndefined()
    expect(errors).toEqual([boom])
    expect(calls).toEqual([1, 2])
  })

  it('hands an async rejection to onError and still runs later calls', async () => {
    const errors: unknown[] = []
    const calls: number[] = []
    const boom = new Error('async boom')
    const watcher = new Watcher<number>(async (next) => {
      calls.push(next)
      await Promise.resolve()
      if (next === 1) throw boom
    }, (error) => errors.push(error))
    const runs = [watcher.enqueue(1, 0, () => true), watcher.enqueue(2, 1, () => true), watcher.enqueue(3, 2, () => true)]
    await expect(Promise.all(runs)).resolves.toEqual([undefined, undefined, undefined])
    expect(errors).toEqual([boom])
    expect(calls).toEqual([1, 2, 3])
  })

  it('skips calls not yet started once stopped, while the started one finishes', async () => {
    const gate = deferred()
    const started = deferred()
    const events: string[] = []
    const watcher = new Watcher<number>(async (next) => {
      events.push(`start ${next}`)
      started.resolve()
      if (next === 1) await gate.promise
      events.push(`end ${next}`)
    }, () => {})
    const runs = [watcher.enqueue(1, 0, () => true), watcher.enqueue(2, 1, () => true), watcher.enqueue(3, 2, () => true)]
    await started.promise
    await drainMicrotasks()
    expect(events).toEqual(['start 1'])

    watcher.stop()
    gate.resolve()
    await Promise.all(runs)
    expect(events).toEqual(['start 1', 'end 1'])

    await watcher.enqueue(4, 3, () => true)
    expect(events).toEqual(['start 1', 'end 1'])
  })

  it('skips a call whose mayStart says no, and runs the ones after it', async () => {
    const calls: number[] = []
    const watcher = new Watcher<number>((next) => {
      calls.push(next)
    }, () => {})
    await Promise.all([watcher.enqueue(1, 0, () => true), watcher.enqueue(2, 1, () => false), watcher.enqueue(3, 2, () => true)])
    expect(calls).toEqual([1, 3])
  })

  it('asks mayStart when the call comes up, not when it is queued', async () => {
    const gate = deferred()
    const started = deferred()
    const calls: number[] = []
    let open = true
    const asked: number[] = []
    const watcher = new Watcher<number>(async (next) => {
      calls.push(next)
      started.resolve()
      if (next === 1) await gate.promise
    }, () => {})
    const first = watcher.enqueue(1, 0, () => (asked.push(1), true))
    const second = watcher.enqueue(2, 1, () => (asked.push(2), open))
    await started.promise
    await drainMicrotasks()
    expect(asked).toEqual([1])
    open = false
    gate.resolve()
    await Promise.all([first, second])
    expect(asked).toEqual([1, 2])
    expect(calls).toEqual([1])
  })
})

describe('Inflight', () => {
  /** Start draining, with a probe for whether the drain has finished. */
  function watchDrain(inflight: Inflight) {
    let finished = false
    const draining = inflight.drain().then(() => {
      finished = true
    })
    return { draining, drained: () => finished }
  }

  it('drains at once when nothing is tracked', async () => {
    await expect(new Inflight().drain()).resolves.toBeUndefined()
  })

  it('waits in drain() for every tracked run', async () => {
    const inflight = new Inflight()
    const a = deferred()
    const b = deferred()
    inflight.track(a.promise)
    inflight.track(b.promise)
    const { draining, drained } = watchDrain(inflight)
    await drainMicrotasks()
    expect(drained()).toBe(false)
    a.resolve()
    await drainMicrotasks()
    expect(drained()).toBe(false)
    b.resolve()
    await draining
    expect(drained()).toBe(true)
  })

  it('also waits for runs tracked while it drains', async () => {
    const inflight = new Inflight()
    const a = deferred()
    const b = deferred()
    inflight.track(a.promise)
    const { draining, drained } = watchDrain(inflight)
    inflight.track(b.promise)
    a.resolve()
    await drainMicrotasks()
    expect(drained()).toBe(false)
    b.resolve()
    await draining
    expect(drained()).toBe(true)
  })

  it('drains watcher runs, including a stopped watcher whose running call finishes', async () => {
    const inflight = new Inflight()
    const gate = deferred()
    const started = deferred()
    const events: string[] = []
    const watcher = new Watcher<number>(async (next) => {
      events.push(`start ${next}`)
      started.resolve()
      await gate.promise
      events.push(`end ${next}`)
    }, () => {})
    inflight.track(watcher.enqueue(1, 0, () => true))
    inflight.track(watcher.enqueue(2, 1, () => true))
    await started.promise
    watcher.stop()
    const draining = inflight.drain().then(() => events.push('drained'))
    await drainMicrotasks()
    expect(events).toEqual(['start 1'])
    gate.resolve()
    await draining
    expect(events).toEqual(['start 1', 'end 1', 'drained'])
  })
})

describe('emitContained', () => {
  type UpdatedArgs = [SettingsNamespace, unknown, unknown, SettingsUpdateSource]
  const ns = 'ui-theme' as SettingsNamespace
  const args: UpdatedArgs = [ns, { dark: true }, { dark: false }, 'update']

  function setup() {
    const ctx = new Context()
    const lines: Message[] = []
    const heard = new Set<() => void>()
    cleanups.push(
      ctx.logger.exporter({
        export: (message) => {
          lines.push(message)
          for (const hear of [...heard]) hear()
        },
      }),
    )
    const logger: Logger = ctx.logger('settings')
    const listen = (listener: (...args: UpdatedArgs) => unknown) => {
      cleanups.push(ctx.on('settings/updated', listener as (...args: UpdatedArgs) => void))
    }
    const warnings = () => lines.filter((line) => line.type === 'warn' || line.type === 'error')
    /** Resolve once `count` warnings have been logged (an async rejection is logged once it rejects). */
    const warned = (count: number) =>
      new Promise<void>((resolve) => {
        const hear = () => {
          if (warnings().length < count) return
          heard.delete(hear)
          resolve()
        }
        heard.add(hear)
        hear()
      })
    return { ctx, lines, logger, listen, warnings, warned }
  }

  function invariantError(message: string): Error & { code: string } {
    return Object.assign(new Error(message), { code: 'INVARIANT' })
  }

  it('calls every listener with the event arguments', () => {
    const { ctx, logger, listen, warnings } = setup()
    const seen: unknown[][] = []
    listen((...received) => {
      seen.push(received)
    })
    listen((...received) => {
      seen.push(received)
    })
    const invariants: unknown[] = []
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    expect(seen).toEqual([args, args])
    expect(invariants).toEqual([])
    expect(warnings()).toEqual([])
  })

  it('does nothing when the event has no listeners', () => {
    const { ctx, logger, warnings } = setup()
    const invariants: unknown[] = []
    expect(() => emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')).not.toThrow()
    expect(invariants).toEqual([])
    expect(warnings()).toEqual([])
  })

  it('runs every listener even when an earlier one throws, and logs the throw', () => {
    const { ctx, logger, listen, warnings } = setup()
    const calls: string[] = []
    const boom = new Error('listener boom')
    listen(() => {
      calls.push('first')
      throw boom
    })
    listen(() => {
      calls.push('second')
    })
    const invariants: unknown[] = []
    expect(() => emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')).not.toThrow()
    expect(calls).toEqual(['first', 'second'])
    expect(invariants).toEqual([])
    const logged = warnings()
    expect(logged).toHaveLength(1)
    expect(logged[0]!.args).toContain(boom)
    expect(String(logged[0]!.args[0])).toContain('settings/updated')
    expect(String(logged[0]!.args[0])).toContain('"ui-theme"')
  })

  it('collects a synchronous INVARIANT throw into invariants without logging it, and keeps going', () => {
    const { ctx, logger, listen, warnings } = setup()
    const calls: string[] = []
    const invariant = invariantError('broken invariant')
    listen(() => {
      calls.push('first')
      throw invariant
    })
    listen(() => {
      calls.push('second')
    })
    const invariants: unknown[] = []
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    expect(calls).toEqual(['first', 'second'])
    expect(invariants).toEqual([invariant])
    expect(warnings()).toEqual([])
  })

  it('appends to invariants already collected by an earlier fan-out', () => {
    const { ctx, logger, listen } = setup()
    const earlier = invariantError('earlier')
    const invariant = invariantError('now')
    listen(() => {
      throw invariant
    })
    const invariants: unknown[] = [earlier]
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    expect(invariants).toEqual([earlier, invariant])
  })

  it('logs an async rejection and does not let it stop the others', async () => {
    const { ctx, logger, listen, warnings, warned } = setup()
    const calls: string[] = []
    const boom = new Error('async boom')
    listen(async () => {
      calls.push('first')
      throw boom
    })
    listen(() => {
      calls.push('second')
    })
    const invariants: unknown[] = []
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    expect(calls).toEqual(['first', 'second'])
    await warned(1)
    expect(invariants).toEqual([])
    const logged = warnings()
    expect(logged).toHaveLength(1)
    expect(logged[0]!.args).toContain(boom)
  })

  it('only logs an async INVARIANT rejection: it arrives too late to be collected', async () => {
    const { ctx, logger, listen, warnings, warned } = setup()
    const invariant = invariantError('late invariant')
    listen(async () => {
      throw invariant
    })
    const invariants: unknown[] = []
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    await warned(1)
    expect(invariants).toEqual([])
    const logged = warnings()
    expect(logged).toHaveLength(1)
    expect(logged[0]!.args).toContain(invariant)
  })

  it('handles a mix of failures in one fan-out, each its own way', async () => {
    const { ctx, logger, listen, warnings, warned } = setup()
    const calls: number[] = []
    const syncError = new Error('sync')
    const asyncError = new Error('async')
    const invariant = invariantError('invariant')
    listen(() => {
      calls.push(1)
      throw syncError
    })
    listen(async () => {
      calls.push(2)
      throw asyncError
    })
    listen(() => {
      calls.push(3)
      throw invariant
    })
    listen(() => {
      calls.push(4)
    })
    const invariants: unknown[] = []
    emitContained(ctx, logger, invariants, 'settings/updated', args, '"ui-theme"')
    expect(calls).toEqual([1, 2, 3, 4])
    expect(invariants).toEqual([invariant])
    await warned(2)
    const logged = warnings().flatMap((line) => line.args)
    expect(logged).toContain(syncError)
    expect(logged).toContain(asyncError)
    expect(logged).not.toContain(invariant)
    expect(warnings()).toHaveLength(2)
  })

  it('reaches listeners registered by plugins, and not those of disposed plugins', async () => {
    const { ctx, logger } = setup()
    const calls: string[] = []
    const live = ctx.plugin((inner: Context) => {
      inner.on('settings/updated', () => {
        calls.push('live')
      })
    })
    const gone = ctx.plugin((inner: Context) => {
      inner.on('settings/updated', () => {
        calls.push('gone')
      })
    })
    cleanups.push(() => live.dispose(), () => gone.dispose())
    await live
    await gone
    await gone.dispose()
    emitContained(ctx, logger, [], 'settings/updated', args, '"ui-theme"')
    expect(calls).toEqual(['live'])
  })

  it('calls only the listeners of the named event', () => {
    const { ctx, logger, listen } = setup()
    const calls: string[] = []
    listen(() => {
      calls.push('updated')
    })
    cleanups.push(
      ctx.on('settings/document-updated', () => {
        calls.push('document-updated')
      }),
    )
    emitContained(ctx, logger, [], 'settings/document-updated', [ns, 3], '"ui-theme"')
    expect(calls).toEqual(['document-updated'])
  })
})
