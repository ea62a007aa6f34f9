import { Context, type Fiber } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { SettingsDocument } from '../src/index.ts'
import { MemorySettingsProvider } from '../src/memory.ts'

/** Plug the provider with `config` as cordis.yml would hand it over, and resolve with the service once it is up. */
async function plug(config?: unknown): Promise<{ fiber: Fiber; provider: MemorySettingsProvider }> {
  const root = new Context()
  const fiber = root.plugin(MemorySettingsProvider, config as MemorySettingsProvider.Config)
  await fiber
  let provider!: MemorySettingsProvider
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as MemorySettingsProvider
  })
  return { fiber, provider }
}

describe('MemorySettingsProvider.Config', () => {
  const { Config } = MemorySettingsProvider

  it('fills in writable: true and nothing else when the config is empty or absent', () => {
    expect(Config({})).toEqual({ writable: true })
    expect(Config(undefined)).toEqual({ writable: true })
    expect(Config({ writable: false })).toEqual({ writable: false })
  })

  it('hands the document over as given, without rebuilding it', () => {
    const document: SettingsDocument = { 'ui-theme': { dark: true }, scopes: { 'preset/coder': { 'ui-theme': { dark: false } } } }
    expect(Config({ document }).document).toBe(document)
    // Shapes a schema rebuilding the object would lose or choke on: an own __proto__ key, a null prototype.
    const withProtoKey = JSON.parse('{"ui-theme": {"__proto__": {"polluted": true}}}') as SettingsDocument
    expect(Config({ document: withProtoKey }).document).toBe(withProtoKey)
    const bare = Object.assign(Object.create(null) as SettingsDocument, { 'ui-theme': { dark: true } })
    expect(Config({ document: bare }).document).toBe(bare)
  })

  it('refuses a writable flag that is not a boolean', () => {
    expect(() => Config({ writable: 'no' } as unknown as MemorySettingsProvider.Config)).toThrow(/writable/)
  })

  it('is what cordis resolves the plugin config with', async () => {
    const readOnly = await plug({ writable: false, document: { 'ui-theme': { dark: true } } })
    expect(readOnly.provider.writable).toBe(false)
    expect(readOnly.provider.document()).toEqual({ 'ui-theme': { dark: true } })
    await readOnly.fiber.dispose()

    const bare = await plug()
    expect(bare.provider.writable).toBe(true)
    expect(bare.provider.document()).toEqual({})
    await bare.fiber.dispose()
  })

  it('keeps the provider from starting on a config the schema refuses', async () => {
    const root = new Context()
    root.logger.exporter({ export: () => {} })
    const fiber = root.plugin(MemorySettingsProvider, { writable: 'no' } as unknown as MemorySettingsProvider.Config)
    await fiber.await().catch(() => {})
    expect(root.get('settings')).toBeUndefined()
    await fiber.dispose()
  })
})
