/**
 * update / replace / mutate: what they store, what they answer, and secrets that must survive.
 *
 * What these tests prove: each write answers the namespace's redacted view under the written
 * scope read after the write (the revision moved by one); `expectedRevision` may be a number,
 * `null` or absent; a secret written through `update` is stored but never answered; `mutate`
 * setting one field of a section that holds a secret keeps the secret, and array element edits
 * (set, append, remove) keep the secrets of the elements the caller never saw; a `replace` built
 * from the redacted view would have dropped them (the reason `mutate` exists); the caller's
 * objects are copied, not aliased; every settings/updated and settings/document-updated commit
 * still happens in-process without any server.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { boot, expectNoSecrets, type Booted } from './harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('bing'),
  limit: Schema.natural().default(10),
  apiKey: Schema.string().role('secret'),
  accounts: Schema.array(Schema.object({ user: Schema.string(), password: Schema.string().role('secret') })).default([]),
})

let booted: Booted | undefined

afterEach(async () => {
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})

async function withSearch(document: Record<string, unknown> = {}): Promise<Booted> {
  booted = await boot({ document })
  await booted.register('search', Search)
  return booted
}

const revisionOf = (b: Booted, scope?: string) => b.controller.describe(scope).namespaces.find((view) => view.ns === 'search')!.revision

describe('update', () => {
  it('merges the patch and answers the new redacted view one revision later', async () => {
    const b = await withSearch({ search: { engine: 'google' } })
    const before = revisionOf(b)
    const view = await b.controller.update('search', { limit: 20 }, before)
    expect(view).toMatchObject({ ns: 'search', registered: true, revision: before + 1, user: { engine: 'google', limit: 20 } })
    expect(view.value).toMatchObject({ engine: 'google', limit: 20 })
    expect(b.provider.document()).toEqual({ search: { engine: 'google', limit: 20 } })
  })

  it('writes unconditionally with a null or absent expectedRevision', async () => {
    const b = await withSearch()
    await b.controller.update('search', { limit: 1 }, null)
    const view = await b.controller.update('search', { limit: 2 })
    expect(view.user).toEqual({ limit: 2 })
  })

  it('stores a written secret but answers only its slot', async () => {
    const b = await withSearch()
    const view = await b.controller.update('search', { apiKey: 'sk-written-WRITTEN' }, null)
    expect(view.secrets).toContainEqual({ path: ['apiKey'], set: true, layer: 'global', source: 'document' })
    expectNoSecrets(view, ['sk-written-WRITTEN'])
    expect(b.provider.document()).toEqual({ search: { apiKey: 'sk-written-WRITTEN' } })
  })

  it('writes a scope’s own section and answers the scoped view', async () => {
    const b = await withSearch()
    await b.register('search', Search, undefined, 'preset/coder')
    const before = revisionOf(b, 'preset/coder')
    const view = await b.controller.update('search', { engine: 'duckduckgo' }, before, 'preset/coder')
    expect(view).toMatchObject({ scope: 'preset/coder', revision: before + 1, user: { engine: 'duckduckgo' }, inherited: { engine: 'bing' } })
    expect(b.provider.document()).toEqual({ scopes: { 'preset/coder': { search: { engine: 'duckduckgo' } } } })
  })

  it('copies the patch: changing the caller’s object afterwards changes nothing stored', async () => {
    const b = await withSearch()
    const patch = { accounts: [{ user: 'a' }] }
    const pending = b.controller.update('search', patch)
    patch.accounts[0]!.user = 'changed'
    await pending
    expect(b.provider.document()).toEqual({ search: { accounts: [{ user: 'a' }] } })
  })
})

describe('replace', () => {
  it('replaces the section wholesale; {} resets it to the lower layers', async () => {
    const b = await withSearch({ search: { engine: 'google', limit: 3 } })
    const view = await b.controller.replace('search', { limit: 4 }, revisionOf(b))
    expect(view.user).toEqual({ limit: 4 })
    expect(view.value).toMatchObject({ engine: 'bing', limit: 4 })
    const reset = await b.controller.replace('search', {}, null)
    expect(reset.user).toEqual({})
    expect(reset.value).toMatchObject({ engine: 'bing', limit: 10 })
  })

  it('would drop the secrets a redacted view never held, which is why mutate exists', async () => {
    const b = await withSearch({ search: { engine: 'google', apiKey: 'sk-kept-KEPT' } })
    const { user } = b.controller.describe().namespaces[0]!
    await b.controller.replace('search', { ...(user as object), engine: 'bing' })
    expect(b.provider.document()).toEqual({ search: { engine: 'bing' } })
  })
})

describe('mutate', () => {
  it('sets one field of a section holding a secret and keeps the secret', async () => {
    const b = await withSearch({ search: { engine: 'google', apiKey: 'sk-kept-KEPT' } })
    const view = await b.controller.mutate('search', [{ op: 'set', path: ['engine'], value: 'duckduckgo' }], revisionOf(b))
    expect(b.provider.document()).toEqual({ search: { engine: 'duckduckgo', apiKey: 'sk-kept-KEPT' } })
    expect(view.user).toEqual({ engine: 'duckduckgo' })
    expect(view.secrets).toContainEqual({ path: ['apiKey'], set: true, layer: 'global', source: 'document' })
    expectNoSecrets(view, ['sk-kept-KEPT'])
  })

  it('unsets a field and leaves its neighbours', async () => {
    const b = await withSearch({ search: { engine: 'google', limit: 5, apiKey: 'sk-kept-KEPT' } })
    await b.controller.mutate('search', [{ op: 'unset', path: ['limit'] }])
    expect(b.provider.document()).toEqual({ search: { engine: 'google', apiKey: 'sk-kept-KEPT' } })
  })

  it('edits, appends and removes array elements while keeping the secrets of elements the caller never saw', async () => {
    const accounts = [
      { user: 'a', password: 'pw-a-A' },
      { user: 'b', password: 'pw-b-B' },
    ]
    const b = await withSearch({ search: { accounts } })
    const seen = b.controller.describe().namespaces[0]!
    expect(seen.user).toEqual({ accounts: [{ user: 'a' }, { user: 'b' }] })

    // Rename the second account: its password, which the page never received, stays.
    await b.controller.mutate('search', [{ op: 'set', path: ['accounts', '1', 'user'], value: 'bee' }], seen.revision)
    expect(b.provider.document().search).toEqual({ accounts: [accounts[0], { user: 'bee', password: 'pw-b-B' }] })

    // Append a third account at the array's length, secret included.
    const appended = await b.controller.mutate('search', [{ op: 'set', path: ['accounts', '2'], value: { user: 'c', password: 'pw-c-C' } }])
    expect(appended.secrets).toContainEqual({ path: ['accounts', '2', 'password'], set: true, layer: 'global', source: 'document' })

    // Remove the first: the others shift down with their secrets.
    const removed = await b.controller.mutate('search', [{ op: 'unset', path: ['accounts', '0'] }])
    expect(b.provider.document().search).toEqual({
      accounts: [
        { user: 'bee', password: 'pw-b-B' },
        { user: 'c', password: 'pw-c-C' },
      ],
    })
    expect(removed.user).toEqual({ accounts: [{ user: 'bee' }, { user: 'c' }] })
    expectNoSecrets([seen, appended, removed], ['pw-a-A', 'pw-b-B', 'pw-c-C'])
  })

  it('applies several ops in order, later ones seeing earlier ones', async () => {
    const b = await withSearch()
    const view = await b.controller.mutate('search', [
      { op: 'set', path: ['engine'], value: 'google' },
      { op: 'set', path: ['limit'], value: 7 },
      { op: 'unset', path: ['engine'] },
    ])
    expect(view.user).toEqual({ limit: 7 })
  })

  it('repairs a malformed stored section with a root-level set', async () => {
    const b = await withSearch()
    await b.provider.edit({ search: 'not an object' })
    const view = await b.controller.mutate('search', [{ op: 'set', path: [], value: { limit: 2 } }])
    expect(view.user).toEqual({ limit: 2 })
  })
})

describe('in-process, without a server', () => {
  it('writes commit and emit the settings events as usual', async () => {
    const b = await withSearch()
    const seen: string[] = []
    b.root.on('settings/document-updated', (ns) => void seen.push(`document ${ns}`))
    b.root.on('settings/updated', (ns, _next, _prev, source) => void seen.push(`updated ${ns} ${source}`))
    await b.controller.update('search', { limit: 3 })
    expect(seen).toEqual(['document search', 'updated search update'])
  })
})
