import { Context, ValidationError, type Fiber } from 'cordis'
import { describe, expect, it } from 'vitest'
import type { SettingsDescriptor } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import * as Assistant from '../src/index.ts'

const { Config } = Assistant

/** What cordis hands the Config schema: the entry as the loader read it. */
type Entry = Parameters<typeof Config>[0]

interface Deployed {
  /** The plugin's descriptor, when it registered. */
  descriptor: SettingsDescriptor | undefined
  /** Why the plugin did not start, when it did not. */
  failure: unknown
  dispose(): Promise<void>
}

/** Boot a memory provider holding `document`, plug the plugin module with `entry` as the loader hands it over, and describe `assistant`. */
async function deploy(entry: unknown, document: Record<string, unknown> = {}): Promise<Deployed> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const providerFiber = root.plugin(MemorySettingsProvider, { document })
  await providerFiber
  let provider!: MemorySettingsProvider
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as MemorySettingsProvider
  })
  const pluginFiber: Fiber = root.plugin(Assistant, entry as Entry)
  let failure: unknown
  await pluginFiber.await().catch((error: unknown) => {
    failure = error
  })
  return {
    descriptor: provider.describe().find((d) => d.ns === 'assistant'),
    failure,
    async dispose() {
      await pluginFiber.dispose()
      await providerFiber.dispose()
    },
  }
}

describe('dsh-example-assistant Config', () => {
  it('takes the default deployment entry as it is', () => {
    expect(Config({ model: 'small' })).toEqual({ model: 'small' })
  })

  it('fills in no default: an empty or absent entry stays empty', () => {
    expect(Config({})).toEqual({})
    expect(Config(undefined)).toEqual({})
  })

  it('takes any part of a provider, since the user section may supply the rest', () => {
    const entry = { temperature: 0, providers: { local: { baseUrl: 'http://127.0.0.1:8080' }, remote: { apiKey: 'k' } }, model: null }
    expect(Config(structuredClone(entry) as Entry)).toEqual(entry)
  })

  it.each([
    ['a temperature above 2', { temperature: 3 }],
    ['a negative temperature', { temperature: -0.5 }],
    ['a model id that is not a string', { model: 7 }],
    ['providers that are not a dict', { providers: ['a'] }],
    ['a base URL that is not a string', { providers: { local: { baseUrl: 5 } } }],
  ])('refuses %s, as the settings schema does', (_, entry) => {
    expect(() => Config(entry as Entry)).toThrow()
  })

  it('hands the entry to the settings seam as the base layer, under the user section', async () => {
    const deployed = await deploy(
      { model: 'large', providers: { local: { baseUrl: 'http://127.0.0.1:8080' } } },
      { assistant: { providers: { local: { apiKey: 'user-key' } } } },
    )
    try {
      expect(deployed.failure).toBeUndefined()
      expect(deployed.descriptor?.base).toEqual({ model: 'large', providers: { local: { baseUrl: 'http://127.0.0.1:8080' } } })
      expect(deployed.descriptor?.value).toEqual({
        model: 'large',
        temperature: 0.7,
        providers: { local: { baseUrl: 'http://127.0.0.1:8080', apiKey: 'user-key' } },
      })
    } finally {
      await deployed.dispose()
    }
  })

  it('keeps the plugin from registering when cordis refuses the entry', async () => {
    const deployed = await deploy({ temperature: 3 })
    try {
      expect(deployed.descriptor).toBeUndefined()
      // Refused by cordis against Config before apply ran, not by the seam at register.
      expect(deployed.failure).toBeInstanceOf(ValidationError)
    } finally {
      await deployed.dispose()
    }
  })
})
