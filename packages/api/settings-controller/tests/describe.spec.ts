/**
 * describe(scope?): the shape of the answer and its redaction.
 *
 * What these tests prove: the answer carries the provider's writability, whether it keeps a local
 * document, one view per kind in registration order (with `secrets` always an array) and the
 * scopes; a scoped describe answers the scope's views (registered or from the kind alone); no
 * secret configured in any layer (`value`, `base`, `user`, `inherited`), in a schema default, or a
 * transform callback's source text reaches the answer, while the verbatim in-process describe
 * shows that those positions really held them; malformed scope ids are `settings/invalid`.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { boot, expectNoSecrets, remoteFailure, type Booted } from './harness.ts'

const SECRETS = ['sk-default-DEFAULT', 'sk-base-BASE', 'sk-global-GLOBAL', 'sk-scope-SCOPE', 'pw-one-ONE', 'pw-two-TWO', 'TRANSFORM_SOURCE_MARKER']

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('bing'),
  limit: Schema.natural().default(10),
  apiKey: Schema.string().role('secret').default('sk-default-DEFAULT'),
  accounts: Schema.array(Schema.object({ user: Schema.string(), password: Schema.string().role('secret') })).default([]),
  label: Schema.transform(Schema.string().default('x'), (value) => {
    const marker = 'TRANSFORM_SOURCE_MARKER'
    return value === marker ? '' : value
  }),
})

const Theme = Schema.object({ dark: Schema.boolean().default(false) })

let booted: Booted | undefined

afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

async function layered(): Promise<Booted> {
  booted = await boot({
    document: {
      search: { apiKey: 'sk-global-GLOBAL', accounts: [{ user: 'one', password: 'pw-one-ONE' }] },
      scopes: { 'preset/coder': { search: { apiKey: 'sk-scope-SCOPE', accounts: [{ user: 'two', password: 'pw-two-TWO' }] } } },
    },
  })
  await booted.register('search', Search, { base: { apiKey: 'sk-base-BASE', engine: 'google' } })
  await booted.register('theme', Theme)
  await booted.register('search', Search, { base: { apiKey: 'sk-base-BASE' } }, 'preset/coder')
  return booted
}

describe('describe', () => {
  it('answers writability, document presence, one view per kind in registration order, and the scopes', async () => {
    const { controller } = await layered()
    const answer = controller.describe()
    expect(answer.writable).toBe(true)
    expect(answer.document).toBe(false)
    expect(answer.scopes).toEqual(['preset/coder'])
    expect(answer.namespaces.map((view) => view.ns)).toEqual(['search', 'theme'])
    const theme = answer.namespaces[1]!
    expect(theme).toMatchObject({ ns: 'theme', registered: true, value: { dark: false }, applies: 'live', secrets: [] })
    expect(typeof theme.revision).toBe('number')
    expect(theme).not.toHaveProperty('scope')
    expect(theme).not.toHaveProperty('user')
    expect(theme).not.toHaveProperty('base')
  })

  it('reports a read-only provider as not writable', async () => {
    booted = await boot({ writable: false })
    expect(booted.controller.describe().writable).toBe(false)
  })

  it('redacts value, base and user of the global view and lists the secret slots with their layers', async () => {
    const { controller } = await layered()
    const search = controller.describe().namespaces[0]!
    expect(search.value).toEqual({ engine: 'google', limit: 10, accounts: [{ user: 'one' }] })
    expect(search.base).toEqual({ engine: 'google' })
    expect(search.user).toEqual({ accounts: [{ user: 'one' }] })
    expect(search.secrets).toEqual([
      { path: ['apiKey'], set: true, layer: 'global', source: 'document' },
      { path: ['accounts', '0', 'password'], set: true, layer: 'global', source: 'document' },
    ])
    expectNoSecrets(controller.describe(), SECRETS)
  })

  it('redacts every layer of a scoped view, inherited included', async () => {
    const { controller } = await layered()
    const answer = controller.describe('preset/coder')
    const search = answer.namespaces[0]!
    expect(search).toMatchObject({ ns: 'search', scope: 'preset/coder', registered: true })
    expect(search.user).toEqual({ accounts: [{ user: 'two' }] })
    expect(search.inherited).toEqual({ engine: 'bing', limit: 10, accounts: [{ user: 'one' }] })
    expect(search.secrets).toContainEqual({ path: ['apiKey'], set: true, layer: 'scope', source: 'document' })
    // A kind with no instance under the scope is described from the kind alone.
    expect(answer.namespaces[1]).toMatchObject({ ns: 'theme', scope: 'preset/coder', registered: false, secrets: [] })
    expectNoSecrets(answer, SECRETS)
  })

  it('keeps secret defaults and transform source out of the schema envelope, which the verbatim describe does carry', async () => {
    const { controller, provider } = await layered()
    // The in-process, unredacted describe shows the test's secrets really are in the layers and the envelope.
    const verbatim = JSON.stringify(provider.describe({ scope: 'preset/coder' }))
    for (const secret of SECRETS.filter((secret) => secret !== 'pw-one-ONE')) expect(verbatim).toContain(secret)
    for (const scope of [undefined, 'preset/coder']) {
      const search = controller.describe(scope).namespaces[0]!
      expect(JSON.stringify(search.schema)).not.toContain('sk-default-DEFAULT')
      expect(JSON.stringify(search.schema)).not.toContain('TRANSFORM_SOURCE_MARKER')
    }
  })

  it('answers null as the global scope', async () => {
    const { controller } = await layered()
    expect(controller.describe(null as unknown as undefined)).toEqual(controller.describe())
  })

  it.each([['nope'], ['Preset/coder'], ['preset/'], ['preset/a/b'], [42], [{}]])('refuses the scope %j as settings/invalid', async (scope) => {
    const { controller } = await layered()
    const error = await remoteFailure(() => controller.describe(scope as string), 'settings/invalid')
    expect(error.message).toContain('scope')
  })
})
