import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, bootControlled, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

const schema = () => Schema.object({ size: Schema.number().default(1), name: Schema.string().default('n') })

let h: Harness<any>
afterEach(() => h?.dispose())

describe('provider publish', () => {
  it('re-resolves every instance of a published document and commits with source provider', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const b = await h.mountInScope('preset/x', (ctx) => ctx.settings.register('beta', schema()))
    const listener = vi.fn()
    h.root.on('settings/updated', listener)
    await h.provider.edit({ alpha: { size: 2 }, scopes: { 'preset/x': { beta: { size: 3 } } } })
    expect(a.value.get()).toMatchObject({ size: 2 })
    expect(b.value.get()).toMatchObject({ size: 3 })
    expect(listener.mock.calls.map((call) => [call[0], call[3], call[4]])).toEqual([
      ['alpha', 'provider', undefined],
      ['beta', 'provider', 'preset/x'],
    ])
  })

  it('keeps the last good value of an invalid section, warning with the namespace, while other namespaces commit', async () => {
    h = await boot({ document: { alpha: { size: 1 } } })
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const b = await h.mount((ctx) => ctx.settings.register('beta', schema()))
    const good = a.value.get()
    await h.provider.edit({ alpha: { size: 'sk-SECRETISH' }, beta: { size: 5 } })
    expect(a.value.get()).toBe(good)
    expect(b.value.get()).toMatchObject({ size: 5 })
    const warning = h.logs.find((line) => line.text.includes('keeping last good "alpha"'))
    expect(warning).toBeDefined()
    expect(warning!.text).not.toContain('sk-SECRETISH')
  })

  it('keeps the last good value for a stored section its owner check refuses', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema(), { validate: (value) => void (value.size > 10 && thrower('too big')) }))
    await h.provider.edit({ alpha: { size: 11 } })
    expect(a.value.get()).toMatchObject({ size: 1 })
    expect(h.logs.some((line) => line.text.includes('too big'))).toBe(true)
  })

  it('recovers once storage turns valid again', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await h.provider.edit({ alpha: ['broken'] })
    await h.provider.edit({ alpha: { size: 7 } })
    expect(a.value.get()).toMatchObject({ size: 7 })
  })

  it('keeps sections of unregistered namespaces for later registrants and writers', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await h.provider.edit({ later: { size: 9 }, alpha: {} })
    await h.provider.update('alpha', { size: 2 })
    expect(h.provider.document()).toEqual({ later: { size: 9 }, alpha: { size: 2 } })
    const { value } = await h.mount((ctx) => ctx.settings.register('later', schema()))
    expect(value.get()).toMatchObject({ size: 9 })
  })

  it('treats a published prototype key as an invalid section, never as a prototype', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    await h.provider.edit(JSON.parse('{"alpha":{"__proto__":{"size":99}}}'))
    expect(a.value.get()).toMatchObject({ size: 1 })
    expect(({} as { size?: number }).size).toBeUndefined()
    expect(h.logs.some((line) => line.text.includes('prototype key'))).toBe(true)
  })

  it('reads a non-object scopes map as empty with a warning', async () => {
    h = await boot()
    const a = await h.mountInScope('preset/x', (ctx) => ctx.settings.register('alpha', schema()))
    await h.provider.edit({ scopes: 'nonsense' as never })
    expect(a.value.get()).toMatchObject({ size: 1 })
    expect(h.logs.some((line) => line.text.includes('"scopes" is not a map'))).toBe(true)
  })

  it('loads the provider document through the base init, with no provider boilerplate', async () => {
    h = await bootControlled({ document: { alpha: { size: 4 } } })
    const { value } = await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    expect(value.get()).toMatchObject({ size: 4 })
  })

  it('announces and revises each changed section of a publish, scoped ones included', async () => {
    h = await bootControlled()
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('alpha', schema()))
    const documents = vi.fn()
    h.root.on('settings/document-updated', documents)
    provider.externalEdit({ alpha: { size: 2 }, scopes: { 'preset/y': { alpha: { size: 3 } } } })
    expect(documents.mock.calls.map((call) => [call[0], call[2]])).toEqual([
      ['alpha', undefined],
      ['alpha', 'preset/y'],
    ])
  })
})

function thrower(message: string): never {
  throw new Error(message)
}
