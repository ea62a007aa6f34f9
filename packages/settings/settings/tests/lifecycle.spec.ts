import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { bootControlled, deferred, drainMicrotasks, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

const schema = () => Schema.object({ size: Schema.number().default(1) })

let h: Harness<ControlledProvider>
afterEach(() => h?.dispose())

describe('service lifecycle', () => {
  it('drains an in-flight write at dispose: it persists and resolves but commits nothing', async () => {
    h = await bootControlled()
    const provider = h.provider
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const events = vi.fn()
    h.root.on('settings/updated', events)
    const gate = deferred()
    provider.persistGate = gate.promise
    const write = scope.update({ size: 2 })
    await provider.reached('persist')
    const queued = expect(scope.update({ size: 3 })).rejects.toThrow(/disposed before the queued "alpha" write ran/)
    let disposed = false
    const disposal = h.providerFiber.dispose().then(() => (disposed = true))
    await drainMicrotasks()
    expect(disposed).toBe(false)
    provider.persistGate = undefined
    gate.resolve()
    await write
    await queued
    await disposal
    expect(provider.stored).toEqual({ alpha: { size: 2 } })
    expect(events).not.toHaveBeenCalled()
  })

  it('refuses writes from the first moment of disposal', async () => {
    h = await bootControlled()
    const provider = h.provider
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const disposal = h.providerFiber.dispose()
    await expect(scope.update({ size: 2 })).rejects.toThrow(/disposed/)
    await disposal
    expect(provider.applyCount).toBe(0)
  })

  it('waits for an in-flight watcher call at service dispose and starts no queued one', async () => {
    h = await bootControlled()
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const gate = deferred()
    const running = deferred()
    const calls: number[] = []
    scope.watch(async (next) => {
      calls.push(next.size)
      running.resolve()
      await gate.promise
    })
    await scope.update({ size: 2 })
    await scope.update({ size: 3 })
    await running.promise
    let disposed = false
    const disposal = h.providerFiber.dispose().then(() => (disposed = true))
    await drainMicrotasks()
    expect(disposed).toBe(false)
    gate.resolve()
    await disposal
    expect(calls).toEqual([2])
  })

  it('resyncs a registration that replaced its predecessor while an older write was in flight', async () => {
    h = await bootControlled()
    const provider = h.provider
    const first = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await h.mountInScope('preset/keep', (ctx) => ctx.settings.register('alpha', schema()))
    const gate = deferred()
    provider.persistGate = gate.promise
    const write = provider.update('alpha', { size: 5 })
    await provider.reached('persist')
    await first.fiber.dispose()
    const second = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    expect(second.value.get()).toMatchObject({ size: 1 })
    provider.persistGate = undefined
    gate.resolve()
    await write
    expect(second.value.get()).toMatchObject({ size: 5 })
  })

  it('refuses new registrations once the service is disposing', async () => {
    h = await bootControlled()
    const service = h.provider
    const disposal = h.providerFiber.dispose()
    // The seam has stopped by the time it hands over to the provider's own teardown.
    await service.reached('close')
    expect(() => service.register('alpha', schema())).toThrow(/disposed/)
    await disposal
  })
})
