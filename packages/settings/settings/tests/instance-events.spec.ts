import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { boot, type Harness } from './harness.ts'

const Settings = Schema.object({ token: Schema.string().role('secret').required(), limit: Schema.natural().default(3) })

let harness: Harness | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

/** Every `settings/registered` and `settings/unregistered` the root hears, with what `describe` listed at that moment. */
function listen(h: Harness) {
  const heard: { event: string; ns: string; scope?: string; listed: boolean }[] = []
  const listed = (ns: string, scope?: string) => h.provider.describe({ ns, ...(scope === undefined ? {} : { scope }) })[0]?.registered === true
  h.root.on('settings/registered', (ns, scope) => void heard.push({ event: 'registered', ns, ...(scope === undefined ? {} : { scope }), listed: listed(ns, scope) }))
  h.root.on('settings/unregistered', (ns, scope) => void heard.push({ event: 'unregistered', ns, ...(scope === undefined ? {} : { scope }), listed: listed(ns, scope) }))
  return heard
}

describe('settings/registered and settings/unregistered', () => {
  it('announce each instance as it is listed and once it is not, with its scope, a registration waiting for setup included', async () => {
    harness = await boot({ document: { bot: { token: 't-1' } } })
    const heard = listen(harness)
    const global = await harness.mount((ctx) => ctx.settings.register('bot', Settings))
    // No token in this scope's layers but the global one: it resolves too.
    const scoped = await harness.mountInScope('preset/coder', (ctx) => ctx.settings.register('bot', Settings))
    // A kind whose required token no layer gives waits for setup: listed, and announced.
    await harness.mount((ctx) => ctx.settings.register('adapter', Settings)).catch(() => {})
    expect(heard).toEqual([
      { event: 'registered', ns: 'bot', listed: true },
      { event: 'registered', ns: 'bot', scope: 'preset/coder', listed: true },
      { event: 'registered', ns: 'adapter', listed: true },
    ])
    heard.length = 0
    await scoped.fiber.dispose()
    await global.fiber.dispose()
    expect(heard).toEqual([
      { event: 'unregistered', ns: 'bot', scope: 'preset/coder', listed: false },
      { event: 'unregistered', ns: 'bot', listed: false },
    ])
  })

  it('keep registering when a listener throws: the failure is logged', async () => {
    harness = await boot()
    harness.root.on('settings/registered', () => {
      throw Object.assign(new Error('listener broke'), { code: 'INVARIANT' })
    })
    const { value } = await harness.mount((ctx) => ctx.settings.register('demo', Settings.set('token', Schema.string().role('secret'))))
    expect(value.get().limit).toBe(3)
    expect(harness.logs.some((line) => line.type === 'warn' && line.text.includes('settings/registered listener for "demo" failed'))).toBe(true)
  })
})

describe("the origin 'command'", () => {
  it('is taken by every write call, and refused when misspelt', async () => {
    harness = await boot()
    await harness.mount((ctx) => ctx.settings.register('demo', Settings.set('token', Schema.string().role('secret'))))
    await harness.provider.update('demo', { limit: 4 }, undefined, undefined, 'command')
    await harness.provider.mutate('demo', [{ op: 'set', path: ['limit'], value: 5 }], undefined, undefined, 'command')
    expect(harness.provider.get('demo')).toMatchObject({ limit: 5 })
    await expect(harness.provider.replace('demo', {}, undefined, undefined, 'commands' as never)).rejects.toThrow(/origin must be one of plugin, wire, host, command/)
  })
})
