import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { SettingsConflictError } from 'dsh-settings'
import { boot, bootControlled, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

const schema = () => Schema.object({ theme: Schema.string().default('light'), size: Schema.number().default(1) })

let h: Harness<any>
afterEach(async () => {
  vi.useRealTimers()
  await h?.dispose()
})

const revisionOf = (ns = 'ui', scope?: string) => h.provider.describe(scope ? { scope } : {}).find((d: { ns: string }) => d.ns === ns)!.revision as number

describe('revisions and conflicts', () => {
  it('moves the revision once per raw change and not for a write that stores an identical section', async () => {
    h = await boot({ document: { ui: { theme: 'dark' } } })
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const start = revisionOf()
    await h.provider.update('ui', { theme: 'dark' })
    expect(revisionOf()).toBe(start)
    await h.provider.update('ui', { size: 2 })
    await h.provider.update('ui', { size: 3 })
    expect(revisionOf()).toBe(start + 2)
  })

  it('announces a raw change whose resolved value stays the same', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const documentUpdated = vi.fn()
    const updated = vi.fn()
    h.root.on('settings/document-updated', documentUpdated)
    h.root.on('settings/updated', updated)
    const start = revisionOf()
    await h.provider.update('ui', { theme: 'light' })
    expect(documentUpdated).toHaveBeenCalledWith('ui', start + 1)
    expect(documentUpdated.mock.calls[0]).toHaveLength(2)
    expect(updated).not.toHaveBeenCalled()
  })

  it('refuses a write whose expected revision is stale, leaving the winner in place', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const read = revisionOf()
    const [first, second] = await Promise.allSettled([
      h.provider.update('ui', { theme: 'first' }, read),
      h.provider.update('ui', { theme: 'second' }, read),
    ])
    expect(first.status).toBe('fulfilled')
    expect(second.status).toBe('rejected')
    const error = (second as PromiseRejectedResult).reason
    expect(error).toBeInstanceOf(SettingsConflictError)
    expect(error).toMatchObject({ name: 'SettingsConflictError', code: 'SETTINGS_CONFLICT', ns: 'ui', expected: read, actual: read + 1 })
    expect(error.message).toBe(`settings namespace "ui" changed since it was read (expected revision ${read}, now ${read + 1})`)
    expect(h.provider.document()).toEqual({ ui: { theme: 'first' } })
  })

  it('accepts a write carrying the current revision, and one carrying none at all', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    await h.provider.replace('ui', { size: 5 }, revisionOf())
    await h.provider.mutate('ui', [{ op: 'set', path: ['size'], value: 6 }], revisionOf())
    await h.provider.update('ui', { size: 7 })
    expect(h.provider.document()).toEqual({ ui: { size: 7 } })
  })

  it('moves the revision for an external edit, so a writer holding the old one is refused', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const read = revisionOf()
    await h.provider.edit({ ui: { theme: 'external' } })
    expect(revisionOf()).toBe(read + 1)
    await expect(h.provider.update('ui', { size: 2 }, read)).rejects.toThrow(SettingsConflictError)
  })

  it('catches a stale revision when storage changed behind the seam (another process), folding that change in first', async () => {
    h = await bootControlled({ document: { ui: { theme: 'a' } } })
    const provider = h.provider as ControlledProvider
    const { value: scope } = await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const seen: string[] = []
    h.root.on('settings/updated', (_ns, next, _prev, source) => void seen.push(`${source}:${(next as { theme: string }).theme}`))
    const read = revisionOf()
    provider.silentlyStore({ ui: { theme: 'other-process' } })
    await expect(provider.update('ui', { theme: 'mine' }, read)).rejects.toMatchObject({ code: 'SETTINGS_CONFLICT', expected: read, actual: read + 1 })
    expect(scope.get()).toMatchObject({ theme: 'other-process' })
    expect(seen).toEqual(['provider:other-process'])
    expect(provider.stored).toEqual({ ui: { theme: 'other-process' } })
  })

  it('merges an unconditional write over another process change instead of losing it', async () => {
    h = await bootControlled({ document: { ui: { theme: 'a' } } })
    const provider = h.provider as ControlledProvider
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    provider.silentlyStore({ ui: { theme: 'b' }, other: { kept: true } })
    await provider.update('ui', { size: 4 })
    expect(provider.stored).toEqual({ ui: { theme: 'b', size: 4 }, other: { kept: true } })
  })

  it('keeps revisions per section, global and scoped, and checks the section being written', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    await h.mountInScope('preset/a', (ctx) => ctx.settings.register('ui', schema()))
    const global = revisionOf()
    const scoped = revisionOf('ui', 'preset/a')
    await h.provider.update('ui', { size: 2 }, scoped, 'preset/a')
    expect(revisionOf()).toBe(global)
    expect(revisionOf('ui', 'preset/a')).toBe(scoped + 1)
    const failure = h.provider.update('ui', { size: 3 }, scoped, 'preset/a')
    await expect(failure).rejects.toMatchObject({ scope: 'preset/a' })
    await expect(failure).rejects.toThrow(/"ui" in scope preset\/a changed since it was read/)
  })

  it('never resets a revision when the owner re-registers, so an old editor cannot pass the check', async () => {
    h = await boot()
    const first = await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const read = revisionOf()
    await h.provider.update('ui', { size: 2 })
    await first.fiber.dispose()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    expect(revisionOf()).toBe(read + 1)
    await expect(h.provider.update('ui', { size: 3 }, read)).rejects.toThrow(SettingsConflictError)
  })

  it('bumps the revision for a published raw change even when it does not resolve', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const read = revisionOf()
    await h.provider.edit({ ui: 'not an object' })
    expect(revisionOf()).toBe(read + 1)
    await h.provider.edit({ ui: { size: 2 } })
    expect(revisionOf()).toBe(read + 2)
  })

  it('issues revisions that a later service of the same document never reuses', async () => {
    // Revisions start from the service's start time: the clock is the test's, and moves 5 ms between the two.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 0, 1) })
    h = await boot({ document: { ui: {} } })
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    const earlier = revisionOf()
    await h.dispose()
    vi.setSystemTime(Date.UTC(2026, 0, 1) + 5)
    h = await boot({ document: { ui: {} } })
    await h.mount((ctx) => ctx.settings.register('ui', schema()))
    expect(revisionOf()).toBeGreaterThan(earlier)
    await expect(h.provider.update('ui', { size: 2 }, earlier)).rejects.toThrow(SettingsConflictError)
  })
})
