import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, deferred, drainMicrotasks, type Harness } from './harness.ts'

const schema = () => Schema.object({ theme: Schema.string().default('light'), size: Schema.number().default(1) })

let h: Harness
afterEach(() => h?.dispose())

async function registered() {
  h = await boot()
  const { value: scope, fiber } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
  return { scope, fiber }
}

const invariant = (message: string) => Object.assign(new Error(message), { code: 'INVARIANT' })

describe('watch', () => {
  it('calls back with next and prev after a commit, never at subscription time', async () => {
    const { scope } = await registered()
    const callback = vi.fn()
    const prev = scope.get()
    scope.watch(callback)
    await scope.update({ size: 2 })
    // A call made at subscription time would have been queued before the commit's, so it would come first.
    expect(callback.mock.calls).toEqual([[scope.get(), prev]])
  })

  it('calls back asynchronously, never inside the commit frame', async () => {
    const { scope } = await registered()
    const order: string[] = []
    scope.watch(() => void order.push('watcher'))
    h.root.on('settings/updated', () => void order.push('event'))
    await scope.update({ size: 2 })
    expect(order).toEqual(['event', 'watcher'])
  })

  it('serializes invocations of one async watcher in commit order', async () => {
    const { scope } = await registered()
    const gate = deferred()
    const last = deferred()
    const log: string[] = []
    scope.watch(async (next) => {
      const size = (next as { size: number }).size
      log.push(`start ${size}`)
      if (size === 2) await gate.promise
      log.push(`end ${size}`)
      if (size === 3) last.resolve()
    })
    await scope.update({ size: 2 })
    await scope.update({ size: 3 })
    await drainMicrotasks()
    expect(log).toEqual(['start 2'])
    gate.resolve()
    await last.promise
    expect(log).toEqual(['start 2', 'end 2', 'start 3', 'end 3'])
  })

  it('contains a throwing watcher and an async rejection, logging the namespace, while others proceed', async () => {
    const { scope } = await registered()
    const survivor = vi.fn()
    const survived = deferred()
    scope.watch(() => {
      throw new Error('sync boom')
    })
    scope.watch(async () => {
      throw new Error('async boom')
    })
    scope.watch((...args) => {
      survivor(...args)
      survived.resolve()
    })
    await scope.update({ size: 2 })
    await survived.promise
    await h.logged((line) => line.text.includes('async boom'))
    expect(survivor).toHaveBeenCalledTimes(1)
    expect(scope.get()).toMatchObject({ size: 2 })
    const warnings = h.logs.filter((line) => line.text.includes('settings: watcher for "ui" failed'))
    expect(warnings.map((line) => line.text)).toEqual([expect.stringContaining('sync boom'), expect.stringContaining('async boom')])
  })

  it('never calls back once its disposer ran', async () => {
    const { scope } = await registered()
    const callback = vi.fn()
    const stop = scope.watch(callback)
    stop()
    await scope.update({ size: 2 })
    await scope.update({ size: 3 })
    await drainMicrotasks()
    expect(callback).not.toHaveBeenCalled()
    expect(() => stop()).not.toThrow()
  })

  it('skips an invocation queued in the same frame as its disposer', async () => {
    const { scope } = await registered()
    const callback = vi.fn()
    let stop = () => {}
    h.root.on('settings/updated', () => stop())
    stop = scope.watch(callback)
    await scope.update({ size: 2 })
    await drainMicrotasks()
    expect(callback).not.toHaveBeenCalled()
  })

  it('lets a started invocation finish after its disposer runs', async () => {
    const { scope } = await registered()
    const gate = deferred()
    const started = deferred()
    const finished = deferred()
    const stop = scope.watch(async () => {
      started.resolve()
      await gate.promise
      finished.resolve()
    })
    await scope.update({ size: 2 })
    await started.promise
    stop()
    gate.resolve()
    await finished.promise
  })

  it('deactivates and drains the watchers of a registrant that disposes', async () => {
    const { scope, fiber } = await registered()
    const gate = deferred()
    const running = deferred()
    const log: string[] = []
    scope.watch(async (next) => {
      log.push(`start ${(next as { size: number }).size}`)
      running.resolve()
      await gate.promise
      log.push('end')
    })
    await scope.update({ size: 2 })
    await scope.update({ size: 3 })
    await running.promise
    let disposed = false
    const disposal = fiber.dispose().then(() => (disposed = true))
    await drainMicrotasks()
    expect(disposed).toBe(false)
    gate.resolve()
    await disposal
    expect(log).toEqual(['start 2', 'end'])
  })
})

describe('settings/updated', () => {
  it('emits (ns, next, prev, source) after the value is authoritative, with exactly four arguments globally', async () => {
    const { scope } = await registered()
    const prev = scope.get()
    const calls: unknown[][] = []
    h.root.on('settings/updated', (...args) => {
      calls.push(args)
      expect(h.provider.get('ui')).toBe(args[1])
    })
    await scope.update({ size: 2 })
    expect(calls).toEqual([['ui', scope.get(), prev, 'update']])
  })

  it('carries the scope as a fifth argument for a scoped instance', async () => {
    h = await boot()
    const { value: scope } = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui', schema()))
    const listener = vi.fn()
    h.root.on('settings/updated', listener)
    await scope.update({ size: 5 })
    expect(listener).toHaveBeenCalledWith('ui', scope.get(), expect.anything(), 'update', 'preset/a')
  })

  it('reports source provider for an external edit and stays silent when the value is deep-equal', async () => {
    const { scope } = await registered()
    const listener = vi.fn()
    h.root.on('settings/updated', listener)
    await h.provider.edit({ ui: { size: 4 } })
    expect(listener).toHaveBeenLastCalledWith('ui', scope.get(), expect.anything(), 'provider')
    await h.provider.edit({ ui: { size: 4, theme: 'light' } })
    expect(listener).toHaveBeenCalledTimes(1)
  })

  it('runs every listener even when an earlier one throws or rejects, logging the namespace', async () => {
    const { scope } = await registered()
    const later = vi.fn()
    h.root.on('settings/updated', () => {
      throw new Error('listener boom')
    })
    h.root.on('settings/updated', async () => {
      throw new Error('async listener boom')
    })
    h.root.on('settings/updated', later)
    await scope.update({ size: 2 })
    await scope.update({ size: 3 })
    expect(later).toHaveBeenCalledTimes(2)
    await h.logged((line) => line.text.includes('async listener boom'), 2)
    expect(h.logs.filter((line) => line.text.includes('settings/updated listener for "ui" failed'))).toHaveLength(4)
  })

  it('rethrows a synchronous INVARIANT failure to the writer after every listener ran', async () => {
    const { scope } = await registered()
    const later = vi.fn()
    h.root.on('settings/updated', () => {
      throw invariant('broken invariant')
    })
    h.root.on('settings/updated', later)
    await expect(scope.update({ size: 2 })).rejects.toThrow('broken invariant')
    expect(later).toHaveBeenCalledTimes(1)
    expect(scope.get()).toMatchObject({ size: 2 })
  })

  it('only logs an async INVARIANT rejection', async () => {
    const { scope } = await registered()
    h.root.on('settings/updated', async () => {
      throw invariant('async invariant')
    })
    await expect(scope.update({ size: 2 })).resolves.toBeUndefined()
    await h.logged((line) => line.text.includes('async invariant'))
  })

  it('finishes every namespace of a publish before rethrowing an INVARIANT failure', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const b = await h.mount((ctx) => ctx.settings.register('beta', schema()))
    h.root.on('settings/updated', (ns) => {
      if (ns === 'alpha') throw invariant('alpha invariant')
    })
    await expect(h.provider.edit({ alpha: { size: 2 }, beta: { size: 3 } })).rejects.toThrow('alpha invariant')
    expect(a.value.get()).toMatchObject({ size: 2 })
    expect(b.value.get()).toMatchObject({ size: 3 })
  })
})

describe('settings/document-updated', () => {
  it('fires with the new revision before settings/updated for the same commit', async () => {
    const { scope } = await registered()
    const order: string[] = []
    h.root.on('settings/updated', () => void order.push('updated'))
    h.root.on('settings/document-updated', (ns, revision) => void order.push(`document ${ns} ${typeof revision}`))
    await scope.update({ size: 2 })
    await h.provider.edit({ ui: { size: 3 } })
    expect(order).toEqual(['document ui number', 'updated', 'document ui number', 'updated'])
  })

  it('carries the scope for a scoped section and fires once for a global write feeding several instances', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui', schema()))
    const documents = vi.fn()
    const updates = vi.fn()
    h.root.on('settings/document-updated', documents)
    h.root.on('settings/updated', updates)
    await h.provider.update('ui', { size: 9 })
    expect(documents).toHaveBeenCalledTimes(1)
    expect(documents.mock.calls[0]).toHaveLength(2)
    expect(updates.mock.calls.map((call) => call[4])).toEqual([undefined, 'preset/a'])
    await h.provider.update('ui', { size: 10 }, undefined, 'preset/a')
    expect(documents).toHaveBeenLastCalledWith('ui', expect.any(Number), 'preset/a')
  })

  it('contains throwing and rejecting document listeners and rethrows an INVARIANT one after both fan-outs', async () => {
    const { scope } = await registered()
    const updated = vi.fn()
    h.root.on('settings/document-updated', () => {
      throw new Error('document boom')
    })
    h.root.on('settings/document-updated', async () => {
      throw new Error('async document boom')
    })
    h.root.on('settings/updated', updated)
    await scope.update({ size: 2 })
    expect(updated).toHaveBeenCalledTimes(1)
    h.root.on('settings/document-updated', () => {
      throw invariant('document invariant')
    })
    await expect(scope.update({ size: 3 })).rejects.toThrow('document invariant')
    expect(updated).toHaveBeenCalledTimes(2)
    expect(scope.get()).toMatchObject({ size: 3 })
  })
})
