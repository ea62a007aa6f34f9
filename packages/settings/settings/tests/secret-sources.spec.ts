/**
 * Secrets held outside the document, as the seam sees them: a redacted
 * descriptor's secret slot says where a set secret comes from (`source`,
 * `reference`), asking the provider's `secretSource` about the section the
 * value comes from; `secretPaths` names a section's set secrets for a provider
 * to move; a read-only reference refuses a write with `SETTINGS_SECRET_READ_ONLY`.
 */
import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsStoreError, type JsonObject, type SectionKey, type SettingsSecretOrigin } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { logText, plugWithSettings } from 'dsh-testing'
import { createScope } from 'dsh-scope'

const ENV_VALUE = 'sk-FROM-ENV-1234'

/** A memory store whose document names references by section and path, as a file provider's `!env`/`!secret` would. */
class ReferencingProvider extends MemorySettingsProvider {
  /** `<scope>|<ns>|<path joined by .>` to the reference the document holds there. */
  readonly references = new Map<string, SettingsSecretOrigin>()
  readonly asked: { key: SectionKey; path: string[] }[] = []
  answer: 'references' | 'throw' | 'garbage' = 'references'

  static at(key: SectionKey, path: readonly string[]): string {
    return `${key.scope ?? ''}|${key.ns}|${path.join('.')}`
  }

  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    this.asked.push({ key: { ...key }, path: [...path] })
    if (this.answer === 'throw') throw new Error(`broken: ${ENV_VALUE}`)
    if (this.answer === 'garbage') return { source: 'vault', reference: 1 } as unknown as SettingsSecretOrigin
    return this.references.get(ReferencingProvider.at(key, path))
  }

  /** A field an `!env` reference holds is read-only: a write that changes it is refused, naming the variable. */
  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    const origin = this.references.get(ReferencingProvider.at(key, ['apiKey']))
    const stored = (key.scope === undefined ? this.document()[key.ns] : undefined) as JsonObject | undefined
    if (origin?.source !== 'env' || section.apiKey === stored?.apiKey) return undefined
    return new SettingsStoreError('SETTINGS_SECRET_READ_ONLY', `settings "${key.ns}" takes $.apiKey from the environment variable ${origin.reference}: change it there`, 'memory')
  }

  /** The protected `secretPaths`, for the test. */
  paths(ns: string, section: unknown): string[][] {
    return this.secretPaths(ns, section)
  }
}

const Search = Schema.object({
  engine: Schema.string().default('bing'),
  apiKey: Schema.string().role('secret'),
  backupKey: Schema.string().role('secret'),
  baseKey: Schema.string().role('secret'),
  defaultKey: Schema.string().role('secret').default('sk-DEFAULT'),
  accounts: Schema.array(Schema.object({ user: Schema.string(), password: Schema.string().role('secret') })).default([]),
})

const document = {
  search: { apiKey: ENV_VALUE, backupKey: 'sk-INLINE', accounts: [{ user: 'a', password: 'pw-FROM-FILE' }, { user: 'b' }] },
  scopes: { 'preset/coder': { search: { apiKey: 'sk-SCOPED-STORE' } } },
}

const fibers: Fiber[] = []
let logs: string[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  logs = []
})

async function boot(): Promise<{ provider: ReferencingProvider; root: Context }> {
  const root = new Context()
  root.logger.exporter({ export: (message) => void logs.push(message.args.map(logText).join(' ')) })
  const fiber = root.plugin(ReferencingProvider, { document })
  await fiber
  fibers.push(fiber)
  let provider!: ReferencingProvider
  await root.inject(['settings'], (ctx) => void (provider = ctx.settings as unknown as ReferencingProvider))
  provider.references.set(ReferencingProvider.at({ ns: 'search' }, ['apiKey']), { source: 'env', reference: 'SEARCH_API_KEY' })
  provider.references.set(ReferencingProvider.at({ ns: 'search' }, ['accounts', '0', 'password']), { source: 'file', reference: '/run/secrets/a' })
  provider.references.set(ReferencingProvider.at({ ns: 'search', scope: 'preset/coder' }, ['apiKey']), { source: 'store', reference: 'preset/coder/search.apiKey' })
  const base = { baseKey: 'sk-BASE' }
  fibers.push((await plugWithSettings(root, (ctx) => ctx.settings.register('search', Search, { base }))).fiber)
  fibers.push((await plugWithSettings(createScope(root, { name: 'preset/coder' }).ctx, (ctx) => ctx.settings.register('search', Search, { base }))).fiber)
  return { provider, root }
}

describe('where a set secret comes from', () => {
  it('a global view: the provider’s reference, the document for an inline value, nothing for base, default or unset', async () => {
    const { provider } = await boot()
    const [view] = provider.describe({ redactSecrets: true, ns: 'search' })
    expect(view!.secrets).toEqual([
      { path: ['apiKey'], set: true, layer: 'global', source: 'env', reference: 'SEARCH_API_KEY' },
      { path: ['backupKey'], set: true, layer: 'global', source: 'document' },
      { path: ['baseKey'], set: true, layer: 'base' },
      { path: ['defaultKey'], set: true },
      { path: ['accounts', '0', 'password'], set: true, layer: 'global', source: 'file', reference: '/run/secrets/a' },
      { path: ['accounts', '1', 'password'], set: false },
    ])
    expect(JSON.stringify(view)).not.toContain(ENV_VALUE)
  })

  it('a scoped view asks about the section each value comes from: the scope’s own, or the global one', async () => {
    const { provider } = await boot()
    provider.asked.length = 0
    const [view] = provider.describe({ redactSecrets: true, ns: 'search', scope: 'preset/coder' })
    expect(view!.secrets!.slice(0, 2)).toEqual([
      { path: ['apiKey'], set: true, layer: 'scope', source: 'store', reference: 'preset/coder/search.apiKey' },
      { path: ['backupKey'], set: true, layer: 'global', source: 'document' },
    ])
    expect(provider.asked).toContainEqual({ key: { ns: 'search', scope: 'preset/coder' }, path: ['apiKey'] })
    expect(provider.asked).toContainEqual({ key: { ns: 'search', scope: undefined }, path: ['backupKey'] })
    expect(provider.asked).toContainEqual({ key: { ns: 'search', scope: undefined }, path: ['accounts', '0', 'password'] })
  })

  it('is not asked without redaction: the descriptor has no slots then', async () => {
    const { provider } = await boot()
    provider.asked.length = 0
    expect(provider.describe({ ns: 'search' })[0]).not.toHaveProperty('secrets')
    expect(provider.asked).toEqual([])
  })

  it('a hook that throws or answers no known source leaves the source out, and the log without its text', async () => {
    const { provider } = await boot()
    for (const answer of ['throw', 'garbage'] as const) {
      provider.answer = answer
      const [view] = provider.describe({ redactSecrets: true, ns: 'search' })
      expect(view!.secrets![0]).toEqual({ path: ['apiKey'], set: true, layer: 'global' })
    }
    expect(logs.some((line) => line.includes('could not say where a secret of "search" comes from'))).toBe(true)
    expect(logs.some((line) => line.includes('no known source for a secret of "search"'))).toBe(true)
    expect(logs.join('\n')).not.toContain(ENV_VALUE)
  })
})

describe('secretPaths', () => {
  it('names the set secrets of a section by the registered schema, array items included', async () => {
    const { provider } = await boot()
    expect(provider.paths('search', { engine: 'x', apiKey: 'a', backupKey: null, accounts: [{ user: 'u' }, { user: 'v', password: 'p' }] })).toEqual([['apiKey'], ['accounts', '1', 'password']])
  })

  it('counts a reference in place of a secret as a set secret', async () => {
    const { provider } = await boot()
    expect(provider.paths('search', { apiKey: { $env: 'SEARCH_API_KEY' } })).toEqual([['apiKey']])
  })

  it('answers nothing for a namespace no plugin registered, a section without secrets, or no section', async () => {
    const { provider, root } = await boot()
    fibers.push((await plugWithSettings(root, (ctx) => ctx.settings.register('plain', Schema.object({ a: Schema.string() })))).fiber)
    expect(provider.paths('unknown', { apiKey: 'a' })).toEqual([])
    expect(provider.paths('plain', { a: 'x' })).toEqual([])
    expect(provider.paths('search', null)).toEqual([])
    expect(provider.paths('search', { engine: 'x' })).toEqual([])
  })

  it('fails closed: a value of the wrong shape around a secret is one secret as a whole', async () => {
    const { provider } = await boot()
    expect(provider.paths('search', { accounts: 'not a list' })).toEqual([['accounts']])
  })
})

describe('a secret held by a read-only reference', () => {
  it('refuses the write that changes it with SETTINGS_SECRET_READ_ONLY, naming the variable and never a value', async () => {
    const { provider } = await boot()
    const refused = await provider.update('search', { apiKey: 'sk-NEW-VALUE' }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(SettingsStoreError)
    expect(refused).toMatchObject({ code: 'SETTINGS_SECRET_READ_ONLY', refusal: 'rejected' })
    expect((refused as Error).message).toContain('SEARCH_API_KEY')
    expect((refused as Error).message).not.toContain('sk-NEW-VALUE')
    expect(provider.document().search).toMatchObject({ apiKey: ENV_VALUE })
    // Another field of the same section is written as usual.
    await provider.update('search', { engine: 'google' })
    expect(provider.get('search')).toMatchObject({ engine: 'google', apiKey: ENV_VALUE })
  })
})
