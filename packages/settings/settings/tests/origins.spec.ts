import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsInputError, type SettingsStoreResult, type SettingsTransaction, type SettingsChangeOrigin } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { plugWithSettings } from 'dsh-testing'

/** The memory provider, recording who made each stored transaction's changes. */
class Recording extends MemorySettingsProvider {
  static seen: SettingsChangeOrigin[][] = []
  protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    Recording.seen.push([...transaction.origins].sort())
    return super.store(transaction)
  }
}

let providerFiber: Fiber | undefined
afterEach(async () => {
  await providerFiber?.dispose()
  providerFiber = undefined
})

async function boot() {
  Recording.seen = []
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  providerFiber = root.plugin(Recording)
  await providerFiber
  const { value: handle } = await plugWithSettings(root, (ctx) => ctx.settings.register('demo', Schema.object({ a: Schema.number().default(0), b: Schema.number().default(0) })))
  let settings!: MemorySettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings as MemorySettingsProvider
  })
  return { handle, settings }
}

describe('write origins', () => {
  it('tell a provider who made the changes it stores: the owner plugin, a wire surface, or other host code', async () => {
    const { handle, settings } = await boot()
    await handle.update({ a: 1 })
    await settings.update('demo', { a: 2 }, undefined, undefined, 'wire')
    await settings.update('demo', { a: 3 })
    expect(Recording.seen).toEqual([['plugin'], ['wire'], ['host']])
  })

  it('name every origin of a group, and none of a write that changed nothing', async () => {
    const { handle, settings } = await boot()
    await handle.update({ a: 1 })
    Recording.seen = []
    await Promise.all([handle.update({ b: 1 }), settings.update('demo', { a: 1 }, undefined, undefined, 'wire'), settings.replace('demo', { a: 5, b: 1 })])
    expect(Recording.seen).toEqual([['host', 'plugin']])
  })

  it('refuses an origin that is not one of the three', async () => {
    const { settings } = await boot()
    await expect(settings.update('demo', { a: 1 }, undefined, undefined, 'root' as never)).rejects.toBeInstanceOf(SettingsInputError)
  })
})
