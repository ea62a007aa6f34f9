import { Context, ValidationError, type Fiber } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { SettingsDescriptor } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import * as WebSearch from '../src/index.ts'

const { Config } = WebSearch

/** What cordis hands the Config schema: the entry as the loader read it. */
type Entry = Parameters<typeof Config>[0]

/** The default deployment's entries for this plugin (`cordis.yml`, global and `scope:preset/coder`). */
const DEPLOYMENT_ENTRIES = [
  { engine: 'bing', limit: 10 },
  { engine: 'duckduckgo', limit: 20 },
]

interface Deployed {
  /** The plugin's descriptor, when it registered. */
  descriptor: SettingsDescriptor | undefined
  /** Why the plugin did not start, when it did not. */
  failure: unknown
  dispose(): Promise<void>
}

/** Boot a memory provider, plug the plugin module with `entry` as the loader hands it over, and describe `web-search`. */
async function deploy(entry: unknown): Promise<Deployed> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const providerFiber = root.plugin(MemorySettingsProvider, {})
  await providerFiber
  let provider!: MemorySettingsProvider
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as MemorySettingsProvider
  })
  const pluginFiber: Fiber = root.plugin(WebSearch, entry as Entry)
  let failure: unknown
  await pluginFiber.await().catch((error: unknown) => {
    failure = error
  })
  return {
    descriptor: provider.describe().find((d) => d.ns === 'web-search'),
    failure,
    async dispose() {
      await pluginFiber.dispose()
      await providerFiber.dispose()
    },
  }
}

describe('dsh-example-web-search Config', () => {
  it.each(DEPLOYMENT_ENTRIES)('takes the default deployment entry %j as it is', (entry) => {
    expect(Config(structuredClone(entry) as Entry)).toEqual(entry)
  })

  it('fills in no default: an empty or absent entry stays empty', () => {
    expect(Config({})).toEqual({})
    expect(Config(undefined)).toEqual({})
    expect(Config({ safeSearch: {} })).toEqual({ safeSearch: {} })
    expect(Config({ safeSearch: null, mirrors: null })).toEqual({ safeSearch: null, mirrors: null })
  })

  it('takes any part of the settings, null included', () => {
    const entry = {
      safeSearch: { level: 'strict' },
      apiKey: 'k',
      mirrors: [{ url: 'https://m.example', token: 't' }, { url: 'https://n.example' }],
      limit: null,
    }
    expect(Config(structuredClone(entry) as Entry)).toEqual(entry)
  })

  it.each([
    ['an unknown engine', { engine: 'yahoo' }],
    ['a limit above 50', { limit: 51 }],
    ['a fractional limit', { limit: 2.5 }],
    ['an unknown safe-search level', { safeSearch: { level: 'off' } }],
    ['a mirror without its url', { mirrors: [{ token: 't' }] }],
    ['a secret that is not a string', { apiKey: 5 }],
  ])('refuses %s, as the settings schema does', (_, entry) => {
    expect(() => Config(entry as Entry)).toThrow()
  })

  it('hands the entry to the settings seam as the base layer, defaults below it', async () => {
    const deployed = await deploy({ engine: 'bing', limit: 10 })
    try {
      expect(deployed.descriptor?.base).toEqual({ engine: 'bing', limit: 10 })
      expect(deployed.descriptor?.value).toEqual({ engine: 'bing', limit: 10, safeSearch: { enabled: true, level: 'moderate' }, mirrors: [] })
    } finally {
      await deployed.dispose()
    }
  })

  it('lets a null field fall back to its default', async () => {
    const deployed = await deploy({ limit: null, engine: 'google', safeSearch: null, mirrors: null })
    try {
      expect(deployed.descriptor?.value).toEqual({ engine: 'google', limit: 10, safeSearch: { enabled: true, level: 'moderate' }, mirrors: [] })
    } finally {
      await deployed.dispose()
    }
  })

  it('keeps the plugin from registering when cordis refuses the entry', async () => {
    const deployed = await deploy({ engine: 'yahoo' })
    try {
      expect(deployed.descriptor).toBeUndefined()
      // Refused by cordis against Config before apply ran, not by the seam at register.
      expect(deployed.failure).toBeInstanceOf(ValidationError)
    } finally {
      await deployed.dispose()
    }
  })
})
