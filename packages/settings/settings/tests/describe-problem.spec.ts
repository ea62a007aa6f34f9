/**
 * describe is total, and says what is wrong: a stored section the schema, the owner's check or its
 * own shape refuses is left out of `user`, and `problem` names the path and the rule, never the value.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness } from './harness.ts'

let h: Harness
afterEach(() => h?.dispose())

const schema = Schema.object({ limit: Schema.natural().default(10), apiKey: Schema.string().role('secret'), mode: Schema.union(['a', 'b']).default('a') })

describe('describe and a stored section that is not in effect', () => {
  it('leaves a section the schema refuses out of user, keeps the last good value, and names the problem', async () => {
    h = await boot({ document: { search: { limit: 3 } } })
    await h.mount((ctx) => ctx.settings.register('search', schema))
    await h.provider.edit({ search: { limit: 'lots-of-secret-text', apiKey: 'sk-123' } })
    const [descriptor] = h.provider.describe({ redactSecrets: true })
    expect(descriptor!.value).toMatchObject({ limit: 3 })
    expect(descriptor!.user).toBeUndefined()
    expect(descriptor!.problem).toEqual({ path: ['limit'], message: expect.stringContaining('$.limit') })
    expect(JSON.stringify(descriptor)).not.toContain('lots-of-secret-text')
    expect(JSON.stringify(descriptor)).not.toContain('sk-123')
  })

  it('names a refusal of the owner\'s check, with its message scrubbed of secrets', async () => {
    h = await boot()
    await h.mount((ctx) =>
      ctx.settings.register('search', schema, {
        validate: (value) => {
          if (value.mode === 'b' && value.limit > 5) throw new Error(`mode b allows 5 at most (key ${value.apiKey})`)
        },
      }),
    )
    await h.provider.edit({ search: { mode: 'b', limit: 9, apiKey: 'sk-live-abc' } })
    const [descriptor] = h.provider.describe({ redactSecrets: true })
    expect(descriptor!.user).toBeUndefined()
    expect(descriptor!.problem).toEqual({ path: [], message: expect.stringContaining('mode b allows 5 at most (key [redacted])') })
    expect(JSON.stringify(descriptor)).not.toContain('sk-live-abc')
  })

  it('names a malformed section as a whole', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', schema))
    await h.provider.edit({ search: 'just a string' as never })
    const [descriptor] = h.provider.describe()
    expect(descriptor!.user).toBeUndefined()
    expect(descriptor!.problem).toEqual({ path: [], message: 'the stored section must be an object of keys' })
  })

  it('reports the scope\'s own section in a scoped descriptor, and nothing for a good one', async () => {
    h = await boot({ document: { search: { limit: 4 }, scopes: { 'preset/x': { search: { limit: -1 } } } } })
    await h.mount((ctx) => ctx.settings.register('search', schema))
    const [scoped] = h.provider.describe({ scope: 'preset/x' })
    expect(scoped!.problem).toEqual({ path: ['limit'], message: expect.stringContaining('$.limit') })
    expect(scoped!.user).toBeUndefined()
    expect(scoped!.inherited).toMatchObject({ limit: 4 })
    const [global] = h.provider.describe()
    expect(global!.problem).toBeUndefined()
    expect(global!.user).toEqual({ limit: 4 })
  })

  it('shows, for a scoped instance kept at its last good value, what the layers below resolve to now as inherited', async () => {
    h = await boot({ document: { search: { limit: 3 } } })
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('search', schema))
    await h.provider.edit({ search: { limit: 'x' } as never })
    const [scoped] = h.provider.describe({ scope: 'preset/a' })
    // The instance keeps limit 3; without the refused global section, the layers below the scope give the default.
    expect(scoped!.value).toMatchObject({ limit: 3 })
    expect(scoped!.inherited).toMatchObject({ limit: 10 })
  })

  it('clears the problem once the section is replaced', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('search', schema))
    await h.provider.edit({ search: { limit: 'x' } as never })
    expect(h.provider.describe()[0]!.problem).toBeDefined()
    await h.provider.replace('search', {})
    expect(h.provider.describe()[0]!.problem).toBeUndefined()
  })
})
