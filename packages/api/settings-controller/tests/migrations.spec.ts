/**
 * Versioned sections on the wire: `describe` says where a section stands
 * against its plugin's version, `compare` shows a migration as a version
 * change with its steps and no secret, and `restore` of the version before a
 * migration writes the old text back (at its own version), to be migrated at
 * the next registration.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SECTION_VERSION_KEY } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import { plugController, plugProvider, rootContext } from './harness.ts'
import { KeepingMemoryProvider } from './keeping-provider.ts'

const SECRET = 'sk-wire-secret-2d7be0'
const Search = Schema.object({ token: Schema.string().role('secret'), limit: Schema.natural().default(10) })
const options = { version: 1, migrations: [{ op: 'move' as const, from: 'apiKey', to: 'token' }] }

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function boot() {
  const { root, logs } = rootContext()
  const { provider, fiber } = await plugProvider(root, KeepingMemoryProvider, { document: { search: { apiKey: SECRET, limit: 5 } } })
  cleanups.push(() => fiber.dispose())
  const { controller, fiber: controllerFiber } = await plugController(root, { opener: false })
  cleanups.push(() => controllerFiber.dispose())
  const register = () => plugWithSettings(root, (ctx) => ctx.settings.register('search', Search, options))
  return { root, logs, provider, controller, register }
}

describe('versioned sections on the wire', () => {
  it('describes the migration, compares it without the secret, and restores the text before it', async () => {
    const { logs, provider, controller, register } = await boot()
    const { fiber } = await register()
    await eventually(() => expect(provider.document().search).toEqual({ [SECTION_VERSION_KEY]: 1, token: SECRET, limit: 5 }))
    const [view] = controller.describe().namespaces
    expect(view!.migration).toEqual({ version: 1, stored: 1, state: 'migrated', from: 0, steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }]] })
    expect(view!.secrets).toEqual([{ path: ['token'], set: true, layer: 'global', source: 'document' }])

    const [migration] = (await controller.history()).versions
    const compared = await controller.compare(migration!.id)
    expect(compared.sections).toEqual([
      {
        ns: 'search',
        fields: [
          { path: ['apiKey'], change: 'unset', undeclared: true },
          { path: ['token'], change: 'set', secret: true },
        ],
        version: { before: 0, after: 1, steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }]] },
      },
    ])

    await controller.restore(migration!.id, { ns: 'search' })
    expect(provider.document().search).toEqual({ apiKey: SECRET, limit: 5 })
    const [restored] = controller.describe().namespaces
    expect(restored!.migration).toMatchObject({ stored: 0, state: 'pending' })
    expect(restored!.secrets).toEqual([{ path: ['token'], set: true, layer: 'global', source: 'document' }])
    await fiber.dispose()
    await register()
    await eventually(() => expect(provider.document().search).toEqual({ [SECTION_VERSION_KEY]: 1, token: SECRET, limit: 5 }))
    expect(JSON.stringify([view, compared, restored, logs])).not.toContain(SECRET)
  })

  it('restores the whole document the same way', async () => {
    const { provider, controller, register } = await boot()
    await register()
    await eventually(() => expect(provider.document().search).toMatchObject({ [SECTION_VERSION_KEY]: 1 }))
    const [migration] = (await controller.history()).versions
    await controller.restore(migration!.id)
    expect(provider.document().search).toEqual({ apiKey: SECRET, limit: 5 })
  })
})
