/**
 * Keys the schema does not declare (a secret field a plugin upgrade renamed, `apikey:` typed by
 * hand) never ride a controller answer: describe and every write answer carry their paths in
 * `undeclared` and no value; compare says `undeclared: true` with no value; history and restore
 * carry none; forwarded events carry no values at all. A page removes one with `mutate` `unset`.
 */
import type { Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import type { SettingsSchema } from 'dsh-settings'
import { expectNoSecrets, plugController, plugProvider, plugServer, registerKind, rootContext } from './harness.ts'
import { KeepingMemoryProvider } from './keeping-provider.ts'

const OLD_KEY = 'sk-renamed-OLDKEY'
const TYPED = 'sk-typed-TYPED'
const NEWER = 'sk-newer-NEWER'
const LEFTOVERS = [OLD_KEY, TYPED, NEWER]

/** After the upgrade: `apiKey` became `token`. */
const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  token: Schema.string().role('secret'),
  mirrors: Schema.array(Schema.object({ url: Schema.string().required() })).default([]),
})

const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

/** The memory provider with a history, the controller, and the recording remote server. */
async function bootKeeping(document: Record<string, unknown>) {
  const { root, logs } = rootContext()
  const { provider, fiber } = await plugProvider(root, KeepingMemoryProvider, { document })
  fibers.push(fiber)
  const { controller, fiber: controllerFiber } = await plugController(root, { opener: false })
  fibers.push(controllerFiber)
  const { server } = await plugServer({ root }, fibers)
  const register = async (ns: string, schema: SettingsSchema<unknown>, scope?: string) => void fibers.push(await registerKind(root, ns, schema, undefined, scope))
  return { logs, provider, controller, server, register }
}

describe('undeclared keys behind the controller', () => {
  it('describe passes their paths through, per layer, with no value; a mutate unset of a path removes it', async () => {
    const b = await bootKeeping({
      search: { engine: 'google', apiKey: OLD_KEY },
      scopes: { 'preset/coder': { search: { mirrors: [{ url: 'https://m', tokn: TYPED }] } } },
    })
    await b.register('search', Search)
    await b.register('search', Search, 'preset/coder')
    const global = b.controller.describe().namespaces[0]!
    expect(global.undeclared).toEqual([{ path: ['apiKey'], layer: 'global' }])
    expect(global.value).toEqual({ engine: 'google', mirrors: [] })
    const scoped = b.controller.describe('preset/coder').namespaces[0]!
    expect(scoped.undeclared).toEqual([
      { path: ['apiKey'], layer: 'global' },
      { path: ['mirrors', '0', 'tokn'], layer: 'scope' },
    ])
    expectNoSecrets([b.controller.describe(), b.controller.describe('preset/coder')], LEFTOVERS)

    // Removing what the page would list as "not used by this plugin".
    const own = scoped.undeclared.filter((key) => key.layer === 'scope')
    const answer = await b.controller.mutate('search', own.map(({ path }) => ({ op: 'unset', path })), scoped.revision, 'preset/coder')
    expect(answer.undeclared).toEqual([{ path: ['apiKey'], layer: 'global' }])
    expect(b.provider.document().scopes).toEqual({ 'preset/coder': { search: { mirrors: [{ url: 'https://m' }] } } })
    expectNoSecrets(answer, LEFTOVERS)
  })

  it('no write answer carries an undeclared value, whichever verb wrote it', async () => {
    const b = await bootKeeping({})
    await b.register('search', Search)
    const answers = [
      await b.controller.update('search', { apiKey: OLD_KEY }),
      await b.controller.mutate('search', [{ op: 'set', path: ['legacy', 'key'], value: TYPED }]),
      await b.controller.replace('search', { engine: 'google', apikey: NEWER, apiKey: OLD_KEY }),
    ]
    expect(answers.map((view) => view.undeclared.map(({ path }) => path.join('.')))).toEqual([['apiKey'], ['apiKey', 'legacy'], ['apikey', 'apiKey']])
    expectNoSecrets(answers, LEFTOVERS)
    // They are stored, and the owner sees them: only the wire withholds them.
    expect(b.provider.get('search')).toMatchObject({ apikey: NEWER, apiKey: OLD_KEY })
  })

  it('compare, history and restore name changed undeclared fields without their values', async () => {
    const b = await bootKeeping({ search: { apiKey: OLD_KEY } })
    await b.register('search', Search)
    await b.controller.replace('search', { engine: 'google', apikey: TYPED })
    await b.controller.update('search', { apikey: NEWER })
    const { versions } = await b.controller.history()
    const oldest = versions.at(-1)!.id
    const compared = await b.controller.compare(oldest)
    expect(compared.sections).toEqual([
      {
        ns: 'search',
        fields: [
          { path: ['apikey'], change: 'set', undeclared: true },
          { path: ['apiKey'], change: 'unset', undeclared: true },
          { path: ['engine'], change: 'set', after: 'google' },
        ],
      },
    ])
    const restored = await b.controller.restore(oldest)
    expect(restored).toEqual({ restored: [{ ns: 'search' }], skipped: [] })
    expect(b.provider.document().search).toEqual({ apiKey: OLD_KEY })
    const one = await b.controller.restore(versions[0]!.id, { ns: 'search' })
    expectNoSecrets([versions, compared, restored, one, await b.controller.history(), await b.controller.compare(versions[0]!.id)], LEFTOVERS)
  })

  it('forwards no value in events, and logs none', async () => {
    const b = await bootKeeping({ search: { apiKey: OLD_KEY } })
    await b.register('search', Search)
    await b.controller.update('search', { apikey: TYPED })
    await b.provider.edit({ search: { apikey: NEWER, engine: 'google' } })
    expect(b.server.events.map(({ event }) => event)).toEqual(expect.arrayContaining(['settings/document-updated', 'settings/updated']))
    for (const { payload } of b.server.events) expect(Object.keys(payload as object).sort()).toEqual(expect.arrayContaining(['ns']))
    expectNoSecrets(b.server.events, LEFTOVERS)
    expectNoSecrets(b.logs, LEFTOVERS)
  })
})
