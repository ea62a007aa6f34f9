/**
 * A provider's `cannotHold(key, section)`: the store refuses one write whose
 * section it cannot hold, and the other writes of its group are stored.
 */
import { Context } from 'cordis'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { SettingsStoreError, type JsonObject, type SectionKey } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { plugWithSettings } from 'dsh-testing'

/** Holds anything but the string "forbidden", and records what it was asked. */
class PickyProvider extends MemorySettingsProvider {
  readonly asked: { key: SectionKey; section: JsonObject }[] = []
  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    this.asked.push({ key, section })
    if (!JSON.stringify(section).includes('"forbidden"')) return undefined
    return new SettingsStoreError('PICKY_CANNOT_HOLD', `picky store cannot hold a value of ${key.ns}`, 'picky', { refusal: 'rejected' })
  }
}

const Open = Schema.dict(Schema.any())

async function boot(): Promise<{ provider: PickyProvider; mount(apply: (ctx: Context) => void): Promise<unknown>; dispose(): Promise<void> }> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const fiber = root.plugin(PickyProvider)
  await fiber
  let provider!: PickyProvider
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as PickyProvider
  })
  return { provider, mount: (apply) => plugWithSettings(root, apply), dispose: () => fiber.dispose() }
}
const Limited = Schema.object({ n: Schema.number().max(5).default(0) })

describe('a provider that cannot hold a section', () => {
  it('refuses that write alone: the writes queued with it are stored in the same transaction', async () => {
    const { provider, mount, dispose } = await boot()
    await mount((ctx) => ['a', 'b', 'c'].forEach((ns) => ctx.settings.register(ns, Open)))
    const group = [provider.update('a', { v: 0 }), provider.update('a', { v: 1 }), provider.update('b', { v: 'forbidden' }), provider.update('c', { v: 3 }), provider.update('b', { w: 4 })]
    const outcomes = await Promise.allSettled(group)
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'PICKY_CANNOT_HOLD', refusal: 'rejected' })
    // The refused write left no trace: the later write of `b` derived from the stored section.
    expect(provider.document()).toEqual({ a: { v: 1 }, b: { w: 4 }, c: { v: 3 } })
    // Queued together, they were one transaction.
    expect(provider.persistCount).toBe(1)
    await dispose()
  })

  it('is asked only about changed sections that passed their schema', async () => {
    const { provider, mount, dispose } = await boot()
    await mount((ctx) => ctx.settings.register('limited', Limited))
    await provider.update('limited', { n: 1 })
    await provider.update('limited', { n: 1 })
    await expect(provider.update('limited', { n: 9 })).rejects.toMatchObject({ name: 'SettingsValidationError' })
    expect(provider.asked).toEqual([{ key: { ns: 'limited', scope: undefined }, section: { n: 1 } }])
    await dispose()
  })
})
