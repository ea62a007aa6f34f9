/**
 * Secrets held outside the document, on the wire: a view's secret slots carry
 * where each set secret comes from (`source`, `reference`), never a value; a
 * store's refusal of a write to a read-only reference (`SETTINGS_SECRET_READ_ONLY`)
 * reaches the caller as `settings/rejected` with its code and message. Through
 * the wire handlers, with answers and errors round-tripped through JSON.
 */
import type { Fiber } from 'cordis'
import Schema from 'schemastery'
import { RemoteError } from 'dsh-remote/client'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsStoreError, type JsonObject, type SectionKey, type SettingsNamespaceView, type SettingsSecretOrigin } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { settingsHandlers } from '../src/index.ts'
import { expectNoSecrets, plugController, plugProvider, registerKind, rootContext } from './harness.ts'

const ENV_VALUE = 'sk-ENV-VALUE-9876'

/** Takes `apiKey` from the environment variable SEARCH_API_KEY and `token` from the secret store, as a file provider would. */
class ReferencingStore extends MemorySettingsProvider {
  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    if (key.ns !== 'search' || key.scope !== undefined) return undefined
    if (path.join('.') === 'apiKey') return { source: 'env', reference: 'SEARCH_API_KEY' }
    if (path.join('.') === 'token') return { source: 'store', reference: 'search.token' }
    return undefined
  }

  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    if (section.apiKey === ENV_VALUE) return undefined
    return new SettingsStoreError('SETTINGS_SECRET_READ_ONLY', `settings "${key.ns}": $.apiKey comes from the environment variable SEARCH_API_KEY (!env); set it there`, 'memory')
  }
}

const Search = Schema.object({
  engine: Schema.string().default('bing'),
  apiKey: Schema.string().role('secret'),
  token: Schema.string().role('secret'),
  note: Schema.string().role('secret'),
})

const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

async function wire() {
  const { root } = rootContext()
  const document = { search: { apiKey: ENV_VALUE, token: 'sk-STORED-TOKEN' } }
  const { fiber: providerFiber } = await plugProvider(root, ReferencingStore, { document })
  const { controller, fiber } = await plugController(root, { opener: false })
  fibers.push(providerFiber, fiber)
  fibers.push(await registerKind(root, 'search', Search))
  const handlers = settingsHandlers(controller)
  const signal = new AbortController().signal
  /** Call one handler as the wire does: arguments and answer through JSON, a refusal as the client rebuilds it. */
  const call = async (method: keyof typeof handlers, args: unknown[]): Promise<unknown> => {
    try {
      return JSON.parse(JSON.stringify(await handlers[method](JSON.parse(JSON.stringify(args)), { signal })))
    } catch (error) {
      throw error instanceof RemoteError ? RemoteError.from(JSON.parse(JSON.stringify(error.toJSON()))) : error
    }
  }
  return { call }
}

describe('secret references on the wire', () => {
  it('a view names each set secret’s source and reference, and no value', async () => {
    const { call } = await wire()
    const answer = (await call('describe', [])) as { namespaces: SettingsNamespaceView[] }
    expect(answer.namespaces[0]!.secrets).toEqual([
      { path: ['apiKey'], set: true, layer: 'global', source: 'env', reference: 'SEARCH_API_KEY' },
      { path: ['token'], set: true, layer: 'global', source: 'store', reference: 'search.token' },
      { path: ['note'], set: false },
    ])
    expectNoSecrets(answer, [ENV_VALUE, 'sk-STORED-TOKEN'])
  })

  it('a write to a read-only reference is settings/rejected with the store’s code and message, never the value', async () => {
    const { call } = await wire()
    const error = await call('mutate', ['search', [{ op: 'set', path: ['apiKey'], value: 'sk-TYPED-VALUE' }]]).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(RemoteError)
    expect(error).toMatchObject({ code: 'settings/rejected', details: { ns: 'search', reason: 'SETTINGS_SECRET_READ_ONLY' } })
    expect((error as RemoteError).message).toBe('settings "search": $.apiKey comes from the environment variable SEARCH_API_KEY (!env); set it there')
    expect(JSON.stringify((error as RemoteError).toJSON())).not.toContain('sk-TYPED-VALUE')
  })

  it('a write that leaves the reference alone is answered with the new view', async () => {
    const { call } = await wire()
    const view = (await call('mutate', ['search', [{ op: 'set', path: ['engine'], value: 'google' }]])) as SettingsNamespaceView
    expect(view.value).toEqual({ engine: 'google' })
    expect(view.secrets[0]).toEqual({ path: ['apiKey'], set: true, layer: 'global', source: 'env', reference: 'SEARCH_API_KEY' })
  })
})
