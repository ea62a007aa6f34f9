import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { boot, bootControlled, deferred, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'
import type { MemorySettingsProvider } from 'dsh-settings/memory'

const schema = () =>
  Schema.object({
    engine: Schema.union(['ddg', 'google']).default('ddg'),
    limit: Schema.natural().default(5),
  })

/** A check that counts its calls by the scope of the value it judges (the scope is read from a marker in `base`). */
function countingCheck() {
  const calls: string[] = []
  const validate = (value: { limit: number; tag?: string }) => {
    calls.push(value.tag ?? 'global')
    if (value.limit > 50) throw new Error('limit too high')
  }
  return { calls, validate }
}

const tagged = () => Schema.object({ engine: Schema.union(['ddg', 'google']).default('ddg'), limit: Schema.natural().default(5), tag: Schema.string() })

describe('the write path resolves and validates each value it feeds once', () => {
  let h: Harness<MemorySettingsProvider> | Harness<ControlledProvider> | undefined
  afterEach(async () => {
    await h?.dispose()
    h = undefined
  })

  async function mountThree(harness: Harness<any>) {
    const check = countingCheck()
    await harness.mount((ctx) => ctx.settings.register('search', tagged(), { validate: check.validate }))
    for (const id of ['a', 'b']) {
      await harness.mountInScope(`preset/${id}`, (ctx) => ctx.settings.register('search', tagged(), { base: { tag: id } }))
    }
    check.calls.length = 0
    return check
  }

  it('runs the check once per instance for a global update, and once for a scoped one', async () => {
    const harness = (h = await boot())
    const check = await mountThree(harness)
    await harness.provider.update('search', { limit: 7 })
    expect(check.calls.sort()).toEqual(['a', 'b', 'global'])
    check.calls.length = 0
    await harness.provider.update('search', { limit: 8 }, undefined, 'preset/a')
    expect(check.calls).toEqual(['a'])
    expect(harness.provider.get('search', 'preset/a')).toMatchObject({ limit: 8, tag: 'a' })
  })

  it('runs the check once per instance per write when writes are grouped into one transaction', async () => {
    const harness = (h = await bootControlled())
    const check = await mountThree(harness)
    const gate = deferred()
    harness.provider.persistGate = gate.promise
    const first = harness.provider.update('search', { limit: 1 })
    await vi.waitFor(() => expect(harness.provider.applyCount).toBe(1))
    expect(check.calls.sort()).toEqual(['a', 'b', 'global'])
    check.calls.length = 0
    // Queued behind the held transaction, these two run together as one group.
    const second = harness.provider.update('search', { limit: 2 })
    const third = harness.provider.update('search', { engine: 'google' }, undefined, 'preset/b')
    harness.provider.persistGate = undefined
    gate.resolve()
    await Promise.all([first, second, third])
    expect(harness.provider.persistCount).toBe(2)
    expect(check.calls.sort()).toEqual(['a', 'b', 'b', 'global'])
    expect(harness.provider.get('search', 'preset/b')).toMatchObject({ engine: 'google', limit: 2 })
  })

  it('runs the check once per affected instance for an outside edit', async () => {
    const harness = (h = await boot())
    const check = await mountThree(harness)
    await harness.provider.edit({ scopes: { 'preset/b': { search: { limit: 9 } } } })
    expect(check.calls).toEqual(['b'])
  })

  it('judges a refused write once per instance and then stops, storing nothing', async () => {
    const harness = (h = await boot())
    const check = await mountThree(harness)
    await expect(harness.provider.update('search', { limit: 60 })).rejects.toThrow(/limit too high/)
    // The first refusal ends the judging; the earlier document is resolved once more to tell the write's fault from an old one.
    expect(check.calls.length).toBeLessThanOrEqual(2)
    expect(harness.provider.document()).toEqual({})
  })
})
