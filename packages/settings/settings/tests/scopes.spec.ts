import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SettingsValidationError } from 'dsh-settings'
import { boot, type Harness } from './harness.ts'

const schema = () =>
  Schema.object({
    engine: Schema.union(['bing', 'google', 'ddg']).default('bing'),
    limit: Schema.number().max(10).default(5),
    region: Schema.string().default('us'),
  })

let h: Harness
afterEach(() => h?.dispose())

describe('kinds, instances and named scopes', () => {
  it('resolves a scoped instance as defaults < own base < global section < scope section', async () => {
    h = await boot({ document: { search: { engine: 'google', limit: 7 }, scopes: { 'preset/coder': { search: { limit: 3 } } } } })
    const { value: scope } = await h.mountInScope('preset/coder', (ctx) => ctx.settings.register('search', schema(), { base: { engine: 'ddg', region: 'eu' } }))
    expect(scope.get()).toEqual({ engine: 'google', limit: 3, region: 'eu' })
  })

  it('lists live named scopes in first-seen order, never the global scope, and re-lists a returning scope last', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', schema()))
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    await h.mountInScope('preset/b', (ctx) => ctx.settings.register('search', schema()))
    expect(h.provider.scopes()).toEqual(['preset/a', 'preset/b'])
    await a.scope.dispose()
    expect(h.provider.scopes()).toEqual(['preset/b'])
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    expect(h.provider.scopes()).toEqual(['preset/b', 'preset/a'])
  })

  it('answers get per scope and undefined where the scope has no instance even if a global one exists', async () => {
    h = await boot({ document: { scopes: { 'preset/a': { search: { engine: 'ddg' } } } } })
    await h.mount((ctx) => ctx.settings.register('search', schema()))
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    expect(h.provider.get('search')).toMatchObject({ engine: 'bing' })
    expect(h.provider.get('search', 'preset/a')).toMatchObject({ engine: 'ddg' })
    expect(h.provider.get('search', 'preset/none')).toBeUndefined()
  })

  it('re-resolves every instance of the kind on a global write, each emitting with its own scope', async () => {
    h = await boot({ document: { scopes: { 'preset/b': { search: { engine: 'ddg' } } } } })
    const global = await h.mount((ctx) => ctx.settings.register('search', schema()))
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    const b = await h.mountInScope('preset/b', (ctx) => ctx.settings.register('search', schema()))
    const listener = vi.fn()
    h.root.on('settings/updated', listener)
    await h.provider.update('search', { engine: 'google' })
    expect(global.value.get()).toMatchObject({ engine: 'google' })
    expect(a.value.get()).toMatchObject({ engine: 'google' })
    expect(b.value.get()).toMatchObject({ engine: 'ddg' })
    expect(listener.mock.calls.map((call) => call[4])).toEqual([undefined, 'preset/a'])
  })

  it('re-resolves only the written scope on a scoped write', async () => {
    h = await boot()
    const global = await h.mount((ctx) => ctx.settings.register('search', schema()))
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    const b = await h.mountInScope('preset/b', (ctx) => ctx.settings.register('search', schema()))
    const before = [global.value.get(), b.value.get()]
    await a.value.update({ limit: 9 })
    expect(a.value.get()).toMatchObject({ limit: 9 })
    expect([global.value.get(), b.value.get()]).toEqual(before)
    expect(h.provider.document()).toEqual({ scopes: { 'preset/a': { search: { limit: 9 } } } })
  })

  it('refuses a global write that any instance would not accept, persisting nothing', async () => {
    h = await boot()
    await h.mount((ctx) =>
      ctx.settings.register('search', schema(), {
        validate: (value) => {
          if (value.engine === 'google' && value.limit > 8) throw new Error('google allows at most 8')
        },
      }),
    )
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema(), { base: { engine: 'google' } }))
    await expect(h.provider.update('search', { limit: 9 })).rejects.toThrow(/google allows at most 8/)
    expect(h.provider.document()).toEqual({})
  })

  it('lets a global write through when another instance already failed before it, keeping that one at its last good value', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', schema()))
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    await h.provider.edit({ scopes: { 'preset/a': { search: { limit: 50 } } } })
    expect(a.value.get()).toMatchObject({ limit: 5 })
    await h.provider.update('search', { region: 'eu' })
    expect(h.provider.get('search')).toMatchObject({ region: 'eu' })
    expect(a.value.get()).toMatchObject({ limit: 5, region: 'us' })
  })

  it('accepts a write to a scope with no instance, judged by the kind alone', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', schema(), { validate: (value) => void (value.region === 'xx' && fail('region xx')) }))
    await h.provider.update('search', { engine: 'ddg' }, undefined, 'preset/later')
    await expect(h.provider.update('search', { limit: 11 }, undefined, 'preset/later')).rejects.toThrow(SettingsValidationError)
    await expect(h.provider.update('search', { region: 'xx' }, undefined, 'preset/later')).rejects.toThrow(/region xx/)
    expect(h.provider.document()).toEqual({ scopes: { 'preset/later': { search: { engine: 'ddg' } } } })
    const { value: later } = await h.mountInScope('preset/later', (ctx) => ctx.settings.register('search', schema()))
    expect(later.get()).toMatchObject({ engine: 'ddg' })
  })

  it('accepts a global write for a kind registered only inside presets', async () => {
    h = await boot()
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    await h.provider.update('search', { limit: 2 })
    expect(a.value.get()).toMatchObject({ limit: 2 })
    await expect(h.provider.update('search', { limit: 20 })).rejects.toThrow(SettingsValidationError)
  })

  it('shares the kind schema across instances and describes a kind with no instance in the scope from the kind alone', async () => {
    h = await boot({ document: { search: { engine: 'google' }, scopes: { 'preset/x': { search: { limit: 2 } } } } })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema(), { base: { region: 'eu' } }))
    const [global] = h.provider.describe()
    expect(global).toMatchObject({ ns: 'search', registered: false, value: { engine: 'google', limit: 5, region: 'us' }, user: { engine: 'google' } })
    expect(global).not.toHaveProperty('scope')
    expect(global).not.toHaveProperty('base')
    expect(global).not.toHaveProperty('inherited')
    const [unseen] = h.provider.describe({ scope: 'preset/x' })
    expect(unseen).toMatchObject({
      ns: 'search',
      scope: 'preset/x',
      registered: false,
      value: { engine: 'google', limit: 2, region: 'us' },
      user: { limit: 2 },
      inherited: { engine: 'google', limit: 5, region: 'us' },
    })
    expect(unseen).not.toHaveProperty('base')
    expect(typeof unseen!.revision).toBe('number')
    const [registered] = h.provider.describe({ scope: 'preset/a' })
    expect(registered).toMatchObject({
      registered: true,
      scope: 'preset/a',
      base: { region: 'eu' },
      inherited: { engine: 'google', limit: 5, region: 'eu' },
      value: { engine: 'google', limit: 5, region: 'eu' },
    })
    expect(registered).not.toHaveProperty('user')
    expect(unseen!.schema).toEqual(registered!.schema)
  })

  it('forgets a kind for every scope when its last instance goes', async () => {
    h = await boot()
    const a = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema()))
    await a.fiber.dispose()
    expect(h.provider.describe()).toEqual([])
    expect(h.provider.describe({ scope: 'preset/a' })).toEqual([])
    await expect(h.provider.update('search', {})).rejects.toThrow(/not registered/)
  })
})

function fail(message: string): never {
  throw new Error(message)
}
