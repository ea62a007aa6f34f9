import { Context } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { drainMicrotasks } from 'dsh-testing'
import { boot, bootControlled, deferred, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

const schema = () => Schema.object({ size: Schema.number().default(1) })

let h: Harness<any>
afterEach(() => h?.dispose())

describe('provider contract and metadata', () => {
  it('advertises no local document unless the provider declares one', async () => {
    h = await boot()
    expect(h.provider.documentPath).toBeUndefined()
    await expect(h.provider.prepareDocument()).resolves.toBeUndefined()
    await h.dispose()
    h = await bootControlled({ documentPath: '/tmp/settings.yaml' })
    await expect(h.provider.prepareDocument()).resolves.toBe('/tmp/settings.yaml')
  })

  it('hands the provider the complete next document, never a patch', async () => {
    h = await bootControlled({ document: { other: { kept: 1 }, alpha: { size: 2 } } })
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('alpha', Schema.object({ size: Schema.number(), name: Schema.string() })))
    await provider.update('alpha', { name: 'n' })
    expect(provider.persisted).toEqual([{ other: { kept: 1 }, alpha: { size: 2, name: 'n' } }])
  })

  it('stores nothing for a transaction that changes nothing', async () => {
    h = await bootControlled({ document: { alpha: { size: 2 } } })
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await provider.update('alpha', { size: 2 })
    await expect(provider.update('alpha', { size: 'x' })).rejects.toThrow()
    expect(provider.persistCount).toBe(0)
  })

  it('keeps a malformed scopes entry the user wrote when a global write persists', async () => {
    h = await bootControlled({ document: { alpha: {}, scopes: { 'preset/odd': 'oops' } as never } })
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await provider.update('alpha', { size: 3 })
    expect(provider.stored).toEqual({ alpha: { size: 3 }, scopes: { 'preset/odd': 'oops' } })
  })

  it('commits a write and tells its writer only once the provider answered (its critical section left)', async () => {
    h = await bootControlled({ document: { alpha: { size: 2 } } })
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const leave = deferred()
    provider.leaveGate = leave.promise
    const events: unknown[] = []
    h.root.on('settings/updated', (_ns, next) => void events.push(next))
    let resolved = false
    const write = provider.update('alpha', { size: 3 }).then(() => (resolved = true))
    // Stored, but the provider has not answered yet: nothing is committed, nobody is told.
    await provider.reached('leave')
    expect(provider.stored).toEqual({ alpha: { size: 3 } })
    await drainMicrotasks()
    expect(provider.get('alpha')).toEqual({ size: 2 })
    expect(events).toEqual([])
    expect(resolved).toBe(false)
    leave.resolve()
    await write
    expect(provider.get('alpha')).toEqual({ size: 3 })
    expect(events).toEqual([{ size: 3 }])
    expect(resolved).toBe(true)
  })

  it('runs one transaction for a burst of writes across namespaces (group commit)', async () => {
    h = await boot()
    const names = Array.from({ length: 20 }, (_, i) => `ns${i}`)
    for (const ns of names) await h.mount((ctx) => ctx.settings.register(ns, schema()))
    const before = h.provider.persistCount
    await Promise.all(names.flatMap((ns) => [1, 2, 3].map((size) => h.provider.update(ns, { size }))))
    expect(h.provider.persistCount - before).toBe(1)
    for (const ns of names) expect(h.provider.get(ns)).toEqual({ size: 3 })
  })
})

describe('MemorySettingsProvider', () => {
  it('copies its configured document and hands out detached copies', async () => {
    const document = { alpha: { size: 2 } }
    h = await boot({ document })
    document.alpha.size = 9
    const copy = h.provider.document()
    ;(copy.alpha as { size: number }).size = 7
    expect(h.provider.document()).toEqual({ alpha: { size: 2 } })
  })

  it('publishes an edit with source provider and resolves after its events ran', async () => {
    h = await boot()
    const { value } = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const sources: string[] = []
    h.root.on('settings/updated', (_ns, _next, _prev, source) => void sources.push(source))
    await h.provider.edit({ alpha: { size: 5 } })
    expect(sources).toEqual(['provider'])
    expect(value.get()).toEqual({ size: 5 })
    expect(h.provider.document()).toEqual({ alpha: { size: 5 } })
  })

  it('is read-only when configured so', async () => {
    h = await boot({ writable: false })
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    expect(h.provider.writable).toBe(false)
    await expect(h.provider.replace('alpha', {})).rejects.toThrow(/read-only/)
  })

  it('fails the second provider of settings in one context', async () => {
    const root = new Context()
    const first = root.plugin(MemorySettingsProvider, {})
    await first
    const second = root.plugin(MemorySettingsProvider, {})
    await expect(second.await()).rejects.toThrow()
    await first.dispose()
  })
})
