import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness } from './harness.ts'

const schema = () =>
  Schema.object({
    name: Schema.string().default('anon'),
    apiKey: Schema.string().role('secret'),
    profiles: Schema.dict(Schema.object({ token: Schema.string().role('secret'), url: Schema.string() })),
    routes: Schema.array(Schema.object({ host: Schema.string(), password: Schema.string().role('secret') })).default([]),
    shaped: Schema.transform(Schema.object({ inner: Schema.string().role('secret') }), (value) => ({ ...value, touched: true })),
    fallback: Schema.string().role('secret').default('sk-DEFAULT-SECRET'),
  })

let h: Harness
afterEach(() => h?.dispose())

describe('describe', () => {
  it('describes each kind in registration order with envelope, value, revision and applies', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('beta', Schema.object({ a: Schema.number().default(1) })))
    await h.mount((ctx) => ctx.settings.register('alpha', Schema.object({}), { applies: 'restart' }))
    const [beta, alpha] = h.provider.describe()
    expect(beta).toMatchObject({ ns: 'beta', registered: true, value: { a: 1 }, applies: 'live' })
    expect(alpha).toMatchObject({ ns: 'alpha', applies: 'restart' })
    const envelope = beta!.schema as { uid: number; refs: Record<string, { type: string }> }
    expect(envelope.refs[envelope.uid]!.type).toBe('object')
    expect(typeof beta!.revision).toBe('number')
    expect(beta).not.toHaveProperty('secrets')
  })

  it('exposes detached base and user layers beside the resolved value, and omits absent ones', async () => {
    h = await boot({ document: { one: { name: 'stored' } } })
    await h.mount((ctx) => ctx.settings.register('one', schema(), { base: { name: 'base' } }))
    await h.mount((ctx) => ctx.settings.register('two', schema()))
    const [one, two] = h.provider.describe()
    expect(one).toMatchObject({ base: { name: 'base' }, user: { name: 'stored' } })
    ;(one!.user as { name: string }).name = 'mutated'
    ;(one!.base as { name: string }).name = 'mutated'
    expect(h.provider.describe()[0]).toMatchObject({ base: { name: 'base' }, user: { name: 'stored' } })
    expect(Object.keys(two!)).not.toContain('base')
    expect(Object.keys(two!)).not.toContain('user')
  })

  it('shows secrets verbatim only without redaction', async () => {
    h = await boot({ document: { one: { apiKey: 'sk-USER' } } })
    await h.mount((ctx) => ctx.settings.register('one', schema()))
    const [plain] = h.provider.describe()
    expect(plain!.value).toMatchObject({ apiKey: 'sk-USER' })
    expect(plain!.secrets).toBeUndefined()
  })

  it('redacts every layer and enumerates secret slots with the layer each comes from', async () => {
    h = await boot({
      document: {
        one: { apiKey: 'sk-GLOBAL', profiles: { work: { token: 'sk-TOKEN', url: 'u' } }, routes: [{ host: 'h', password: 'sk-PASS' }] },
        scopes: { 'preset/a': { one: { apiKey: 'sk-SCOPE' } } },
      },
    })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('one', schema(), { base: { shaped: { inner: 'sk-BASE' } } }))
    const [scoped] = h.provider.describe({ redactSecrets: true, scope: 'preset/a' })
    const text = JSON.stringify(scoped)
    for (const secret of ['sk-GLOBAL', 'sk-TOKEN', 'sk-PASS', 'sk-SCOPE', 'sk-BASE', 'sk-DEFAULT-SECRET']) expect(text).not.toContain(secret)
    expect(scoped!.value).toMatchObject({ name: 'anon', profiles: { work: { url: 'u' } }, routes: [{ host: 'h' }] })
    expect(scoped!.secrets).toEqual([
      { path: ['apiKey'], set: true, layer: 'scope', source: 'document' },
      { path: ['profiles', 'work', 'token'], set: true, layer: 'global', source: 'document' },
      { path: ['routes', '0', 'password'], set: true, layer: 'global', source: 'document' },
      { path: ['shaped', 'inner'], set: true, layer: 'base' },
      { path: ['fallback'], set: true },
    ])
    expect(scoped!.inherited).toMatchObject({ name: 'anon' })
    expect(JSON.stringify(scoped!.inherited)).not.toContain('sk-')
  })

  it('gives a scope with no section of its own its value as inherited: redacted alike, and a copy apart from value', async () => {
    h = await boot({ document: { one: { name: 'global', apiKey: 'sk-GLOBAL' } } })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('one', schema()))
    const [plain] = h.provider.describe({ scope: 'preset/a' })
    expect(plain!.inherited).toEqual(plain!.value)
    const [scoped] = h.provider.describe({ redactSecrets: true, scope: 'preset/a' })
    expect(scoped!.inherited).toEqual(scoped!.value)
    expect(scoped!.value).toMatchObject({ name: 'global' })
    expect(JSON.stringify(scoped)).not.toContain('sk-GLOBAL')
    // A caller that edits one field of its descriptor leaves the other as it was.
    ;(scoped!.value as { name: string }).name = 'changed'
    expect(scoped!.inherited).toMatchObject({ name: 'global' })
  })

  it('enumerates unset object-property slots for a descriptor with neither base nor user layer', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('two', Schema.object({ key: Schema.string().role('secret'), plain: Schema.string() })))
    const [two] = h.provider.describe({ redactSecrets: true })
    expect(two!.secrets).toEqual([{ path: ['key'], set: false }])
    expect(two).not.toHaveProperty('base')
    expect(two).not.toHaveProperty('user')
  })

  it('ships no secret default and no transform source in a redacted schema envelope', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('one', schema()))
    const [verbatim] = h.provider.describe()
    const [redacted] = h.provider.describe({ redactSecrets: true })
    expect(JSON.stringify(verbatim!.schema)).toContain('sk-DEFAULT-SECRET')
    expect(JSON.stringify(redacted!.schema)).not.toContain('sk-DEFAULT-SECRET')
    expect(JSON.stringify(redacted!.schema)).not.toContain('touched')
  })

  it('stays total when a stored section became malformed after registration', async () => {
    h = await boot({ document: { one: { name: 'good' } } })
    await h.mount((ctx) => ctx.settings.register('one', schema()))
    await h.provider.edit({ one: 'not-an-object' })
    const [one] = h.provider.describe({ redactSecrets: true })
    expect(one).toMatchObject({ value: { name: 'good' } })
    expect(one).not.toHaveProperty('user')
    expect(h.logs.some((line) => line.type === 'warn' && line.text.includes('"one"'))).toBe(true)
  })

  it('stays total for a scope with no instance whose stored sections are malformed or invalid', async () => {
    h = await boot({ document: { one: { name: 5 }, scopes: { 'preset/a': { one: { name: 'ok' } }, 'preset/x': { one: ['list'] } } } })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('one', schema()))
    expect(() => h.provider.describe({ scope: 'preset/x', redactSecrets: true })).not.toThrow()
    const [x] = h.provider.describe({ scope: 'preset/x' })
    expect(x).toMatchObject({ registered: false, value: { name: 'anon' } })
    expect(x).not.toHaveProperty('user')
  })

  it('never quotes a stored secret in the warnings describe logs', async () => {
    h = await boot({ document: { one: { name: 'sk-NOT-A-STRING-FIELD', apiKey: 42 } } })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('one', Schema.object({ name: Schema.number(), apiKey: Schema.string().role('secret') })).get()).catch(() => undefined)
    h.provider.describe({ redactSecrets: true })
    expect(h.logs.map((line) => line.text).join('\n')).not.toContain('sk-NOT-A-STRING-FIELD')
  })
})

describe('describe({ ns })', () => {
  it('describes only the named namespace, and nothing for one without a live kind', async () => {
    const h = await boot({ document: { b: { n: 2 } } })
    try {
      const schema = Schema.object({ n: Schema.number().default(0) })
      await h.mount((ctx) => ['a', 'b', 'c'].map((ns) => ctx.settings.register(ns, schema)))
      const only = h.provider.describe({ ns: 'b', redactSecrets: true })
      expect(only.map((descriptor) => descriptor.ns)).toEqual(['b'])
      expect(only[0]).toEqual(h.provider.describe({ redactSecrets: true }).find((descriptor) => descriptor.ns === 'b'))
      expect(h.provider.describe({ ns: 'missing' })).toEqual([])
      expect(() => h.provider.describe({ ns: 'Bad Name' })).toThrow(TypeError)
    } finally {
      await h.dispose()
    }
  })
})
