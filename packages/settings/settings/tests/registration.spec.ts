import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsRegistrationError, SettingsValidationError, type SettingsScope } from 'dsh-settings'
import { boot, type Harness } from './harness.ts'

const theme = () =>
  Schema.object({
    theme: Schema.union(['light', 'dark']).default('light'),
    fontSize: Schema.number().default(12),
    tags: Schema.array(String).default([]),
    nested: Schema.object({ a: Schema.number().default(1), b: Schema.number().default(2) }),
  })

let h: Harness
afterEach(() => h?.dispose())

describe('registration', () => {
  it('returns an owner handle whose value is readable before register returns', async () => {
    h = await boot({ document: { 'ui-theme': { theme: 'dark' } } })
    const { value: scope } = await h.mount((ctx) => {
      const scope = ctx.settings.register('ui-theme', theme())
      expect(ctx.settings.get('ui-theme')).toEqual(scope.get())
      return scope
    })
    expect(Object.keys(scope).sort()).toEqual(['get', 'replace', 'update', 'watch'])
    expect(scope.get()).toMatchObject({ theme: 'dark', fontSize: 12 })
  })

  it('resolves schema defaults, then the composition base, then the user section', async () => {
    h = await boot({ document: { 'ui-theme': { theme: 'dark' } } })
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { theme: 'light', fontSize: 14 } }))
    expect(scope.get()).toEqual({ theme: 'dark', fontSize: 14, tags: [], nested: { a: 1, b: 2 } })
  })

  it('merges nested objects across layers and replaces arrays wholesale', async () => {
    h = await boot({ document: { 'ui-theme': { nested: { b: 20 }, tags: ['user'] } } })
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { nested: { a: 10, b: 11 }, tags: ['base', 'more'] } }))
    expect(scope.get()).toMatchObject({ nested: { a: 10, b: 20 }, tags: ['user'] })
  })

  it('lets a stored null mask the base so the schema default applies', async () => {
    h = await boot({ document: { 'ui-theme': { fontSize: null } } })
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { fontSize: 30 } }))
    expect(scope.get()).toMatchObject({ fontSize: 12 })
  })

  it('keeps keys the schema does not declare', async () => {
    h = await boot({ document: { 'ui-theme': { extra: { kept: true } } } })
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    expect(scope.get()).toMatchObject({ extra: { kept: true } })
  })

  it('resolves an absent section from defaults and base', async () => {
    h = await boot()
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { fontSize: 9 } }))
    expect(scope.get()).toEqual({ theme: 'light', fontSize: 9, tags: [], nested: { a: 1, b: 2 } })
  })

  it('hands out deep-frozen values whose identity holds until a commit', async () => {
    h = await boot()
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    const value = scope.get() as { nested: { a: number }; tags: string[] }
    expect(Object.isFrozen(value)).toBe(true)
    expect(() => {
      'use strict'
      value.nested.a = 5
    }).toThrow(TypeError)
    expect(() => value.tags.push('x')).toThrow(TypeError)
    expect(scope.get()).toBe(value)
    expect(h.provider.get('ui-theme')).toBe(value)
  })

  it('never freezes or aliases the caller base object', async () => {
    h = await boot()
    const base = { nested: { a: 5 }, tags: ['x'] }
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base }))
    expect(Object.isFrozen(base)).toBe(false)
    expect(Object.isFrozen(base.nested)).toBe(false)
    base.nested.a = 99
    base.tags.push('y')
    expect(scope.get()).toMatchObject({ nested: { a: 5 }, tags: ['x'] })
    expect(h.provider.describe()[0]!.base).toEqual({ nested: { a: 5 }, tags: ['x'] })
  })

  it('reports the base layer without ever storing it', async () => {
    h = await boot()
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { fontSize: 14 } }))
    await scope.update({ theme: 'dark' })
    expect(h.provider.document()).toEqual({ 'ui-theme': { theme: 'dark' } })
  })

  it('reads undefined for a namespace nobody registered', async () => {
    h = await boot({ document: { other: { a: 1 } } })
    expect(h.provider.get('other')).toBeUndefined()
  })

  it('removes the instance and its observers when the registrant fiber disposes, and storage outlives it', async () => {
    h = await boot({ document: { 'ui-theme': { theme: 'dark' } } })
    const { value: scope, fiber } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    const seen: unknown[] = []
    scope.watch((next) => void seen.push(next))
    await fiber.dispose()
    expect(h.provider.get('ui-theme')).toBeUndefined()
    expect(h.provider.describe()).toEqual([])
    await h.provider.edit({ 'ui-theme': { theme: 'light', fontSize: 20 } })
    expect(seen).toEqual([])
    const { value: again } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    expect(again.get()).toMatchObject({ theme: 'light', fontSize: 20 })
  })

  it('describes applies as live by default and restart when declared', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    await h.mount((ctx) => ctx.settings.register('engine', Schema.object({}), { applies: 'restart' }))
    expect(h.provider.describe().map((d) => [d.ns, d.applies])).toEqual([
      ['ui-theme', 'live'],
      ['engine', 'restart'],
    ])
  })

  it.each([['UI'], [''], ['9lives'], ['a_b'], ['-lead'], ['a-'], ['a--b']])('refuses the malformed namespace %j with TypeError', async (ns) => {
    h = await boot()
    await expect(h.mount((ctx) => ctx.settings.register(ns as string, theme()))).rejects.toThrow(TypeError)
  })

  it.each([['scopes'], ['constructor'], ['prototype']])('refuses the reserved namespace %j with TypeError', async (ns) => {
    h = await boot()
    await expect(h.mount((ctx) => ctx.settings.register(ns, theme()))).rejects.toThrow(/reserved/)
  })

  it('refuses a second registration under the same scope loudly, naming the namespace', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    const failure = h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    await expect(failure).rejects.toThrow(SettingsRegistrationError)
    await expect(failure).rejects.toThrow(/"ui-theme" is already registered/)
    await expect(failure).rejects.toMatchObject({ code: 'SETTINGS_DUPLICATE', ns: 'ui-theme' })
  })

  it('treats separately built identical schemas as one kind', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    const { value } = await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui-theme', theme()))
    expect(value.get()).toMatchObject({ theme: 'light' })
  })

  it('refuses a structurally different schema under a taken name', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    const other = Schema.object({ theme: Schema.string() })
    await expect(h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui-theme', other))).rejects.toMatchObject({
      name: 'SettingsRegistrationError',
      code: 'SETTINGS_SCHEMA_MISMATCH',
      ns: 'ui-theme',
    })
  })

  it('fails the registration when the stored section is invalid for the schema, leaving nothing behind', async () => {
    h = await boot({ document: { 'ui-theme': { fontSize: 'big' }, scopes: { 'preset/a': { 'ui-theme': { fontSize: 'huge' } } } } })
    await expect(h.mount((ctx) => ctx.settings.register('ui-theme', theme()))).rejects.toThrow(SettingsValidationError)
    await expect(h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui-theme', theme()))).rejects.toThrow(SettingsValidationError)
    expect(h.provider.describe()).toEqual([])
    expect(h.provider.scopes()).toEqual([])
  })

  it('fails the registration with TypeError when the stored section is not an object', async () => {
    h = await boot({ document: { 'ui-theme': 'dark' } })
    const failure = h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    await expect(failure).rejects.toThrow(TypeError)
    await expect(failure).rejects.toThrow(/must be an object/)
  })

  it('fails the registration when the stored section holds a prototype key', async () => {
    h = await boot({ document: JSON.parse('{"ui-theme":{"nested":{"__proto__":{"polluted":true}}}}') })
    await expect(h.mount((ctx) => ctx.settings.register('ui-theme', theme()))).rejects.toThrow(/prototype key/)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('fails the registration itself when the stored section fails the owner check', async () => {
    h = await boot({ document: { 'ui-theme': { fontSize: 3 } } })
    const validate = (value: { fontSize: number }) => {
      if (value.fontSize < 8) throw new Error('font too small')
    }
    const failure = h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { validate }))
    await expect(failure).rejects.toThrow(/font too small/)
    await expect(failure).rejects.toMatchObject({ code: 'SETTINGS_INVALID' })
  })

  it('hands validate the fully resolved value, defaults and base included', async () => {
    h = await boot({ document: { 'ui-theme': { theme: 'dark' } } })
    const seen: unknown[] = []
    await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { base: { fontSize: 20 }, validate: (value) => void seen.push(value) }))
    expect(seen).toEqual([{ theme: 'dark', fontSize: 20, tags: [], nested: { a: 1, b: 2 } }])
  })

  it('fails a scoped registration when either the global or the scope section does not resolve', async () => {
    h = await boot({ document: { 'ui-theme': { fontSize: 'big' } } })
    await expect(h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui-theme', theme()))).rejects.toThrow(SettingsValidationError)
  })

  it('registers under the nearest named scope, skipping anonymous ones, and globally outside any', async () => {
    h = await boot({ document: { scopes: { 'preset/coder': { 'ui-theme': { theme: 'dark' } } } } })
    const { scope: outer } = await h.mountInScope('preset/coder', () => undefined)
    const { createScope } = await import('dsh-scope')
    const anonymous = createScope(outer.ctx)
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()), anonymous.ctx)
    expect(scope.get()).toMatchObject({ theme: 'dark' })
    expect(h.provider.get('ui-theme', 'preset/coder')).toBe(scope.get())
    expect(h.provider.get('ui-theme')).toBeUndefined()
    expect(h.provider.scopes()).toEqual(['preset/coder'])
  })

  it('keeps two instances of one kind for two presets mounting the same plugin', async () => {
    h = await boot({ document: { scopes: { 'preset/a': { 'ui-theme': { fontSize: 1 } }, 'preset/b': { 'ui-theme': { fontSize: 2 } } } } })
    const plugin = (ctx: Parameters<Parameters<Harness['mount']>[0]>[0]): SettingsScope<unknown> => ctx.settings.register('ui-theme', theme())
    const a = await h.mountInScope('preset/a', plugin)
    const b = await h.mountInScope('preset/b', plugin)
    expect(a.value.get()).toMatchObject({ fontSize: 1 })
    expect(b.value.get()).toMatchObject({ fontSize: 2 })
    expect(h.provider.describe()).toHaveLength(1)
  })

  it('follows the calling plugin fiber, not the provider, for ownership', async () => {
    h = await boot()
    const { fiber } = await h.mount((ctx) => ctx.settings.register('ui-theme', theme()))
    expect(h.provider.get('ui-theme')).toBeDefined()
    await fiber.dispose()
    expect(h.provider.get('ui-theme')).toBeUndefined()
    expect(h.providerFiber.state).toBe(2)
  })

  it('judges every instance with the earliest live registrant check, and passes it on when that registrant leaves', async () => {
    h = await boot()
    const strict = (value: { fontSize: number }) => {
      if (value.fontSize > 20) throw new Error('strict check')
    }
    const lenient = (value: { fontSize: number }) => {
      if (value.fontSize > 50) throw new Error('lenient check')
    }
    const first = await h.mount((ctx) => ctx.settings.register('ui-theme', theme(), { validate: strict }))
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui-theme', theme(), { validate: lenient }))
    await expect(h.provider.update('ui-theme', { fontSize: 30 }, undefined, 'preset/a')).rejects.toThrow(/strict check/)
    await first.fiber.dispose()
    await h.provider.update('ui-theme', { fontSize: 30 }, undefined, 'preset/a')
    await expect(h.provider.update('ui-theme', { fontSize: 60 }, undefined, 'preset/a')).rejects.toThrow(/lenient check/)
  })

  it('forgets a kind when its last instance goes and re-lists it last when it returns', async () => {
    h = await boot()
    const a = await h.mount((ctx) => ctx.settings.register('alpha', Schema.object({})))
    await h.mount((ctx) => ctx.settings.register('beta', Schema.object({})))
    await a.fiber.dispose()
    expect(h.provider.describe().map((d) => d.ns)).toEqual(['beta'])
    await h.mount((ctx) => ctx.settings.register('alpha', Schema.object({ changed: Schema.number() })))
    expect(h.provider.describe().map((d) => d.ns)).toEqual(['beta', 'alpha'])
  })
})
