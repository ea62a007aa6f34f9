import fc from 'fast-check'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsNeedsSetupError } from 'dsh-settings'
import { boot, drainMicrotasks, type Harness } from './harness.ts'

const Adapter = Schema.intersect([
  Schema.object({ selfId: Schema.string().required(), token: Schema.string().role('secret').required() }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().role('link').required() }),
    Schema.object({ protocol: Schema.const('ws'), port: Schema.natural().default(8080) }),
  ]),
])

let harness: Harness | undefined
afterEach(async () => {
  await harness?.dispose()
  harness = undefined
})

/** A plugin as authors write it: register, read, nothing about setup. Counts its starts and what it read. */
function adapterPlugin(starts: unknown[]) {
  return (ctx: import('cordis').Context) => {
    const settings = ctx.settings.register('adapter', Adapter)
    starts.push(settings.get())
  }
}

describe('a plugin whose section needs setup', () => {
  it('is listed with each missing path, takes writes, and starts once the values are given', async () => {
    harness = await boot()
    const starts: unknown[] = []
    const fiber = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin(starts) })
    await expect(fiber.await()).rejects.toThrow(SettingsNeedsSetupError)
    const failure = await fiber.await().catch((error: unknown) => error as SettingsNeedsSetupError)
    expect(failure).toMatchObject({ code: 'SETTINGS_NEEDS_SETUP', ns: 'adapter', missing: [['selfId'], ['token']] })
    expect(starts).toEqual([])

    const [view] = harness.provider.describe({ ns: 'adapter', redactSecrets: true })
    expect(view).toMatchObject({ ns: 'adapter', registered: true, needsSetup: true, problem: { path: [], missing: [['selfId'], ['token']] } })
    expect(view!.problem!.message).toContain('$.selfId')

    // One field at a time, as a page sends them: each write is kept while the section is still incomplete.
    await harness.provider.mutate('adapter', [{ op: 'set', path: ['selfId'], value: '1234' }])
    const [partial] = harness.provider.describe({ ns: 'adapter', redactSecrets: true })
    expect(partial).toMatchObject({ needsSetup: true, user: { selfId: '1234' }, problem: { missing: [['token']] } })
    expect(starts).toEqual([])

    await harness.provider.mutate('adapter', [{ op: 'set', path: ['token'], value: 'typed-token-9f2' }])
    await fiber.await().catch(() => {})
    await expect.poll(() => starts.length).toBe(1)
    expect(starts[0]).toEqual({ selfId: '1234', token: 'typed-token-9f2', port: 8080 })
    const [ready] = harness.provider.describe({ ns: 'adapter', redactSecrets: true })
    expect(ready!.needsSetup).toBeUndefined()
    expect(ready!.problem).toBeUndefined()
    expect(JSON.stringify(ready)).not.toContain('typed-token-9f2')
  })

  it('names the missing values of the chosen union branch', async () => {
    harness = await boot({ document: { adapter: { selfId: 'a', token: 't', protocol: 'http' } } })
    const fiber = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin([]) })
    const failure = await fiber.await().then(() => undefined, (error: unknown) => error as SettingsNeedsSetupError)
    expect(failure?.missing).toEqual([['endpoint']])
  })

  it('names a required value whose default is null, and one inside a group left out that is an intersection of objects', async () => {
    // OneBot 5.8's `endpoint` is `required()` with `default(null)`; the mail adapter's `imap` is
    // `intersect([object({ host: required }), union([...])])`, left out entirely: schemastery still asks for both.
    const Shaped = Schema.object({
      endpoint: Schema.string().required().default(null as never),
      imap: Schema.intersect([
        Schema.object({ host: Schema.string().required(), tls: Schema.boolean().default(true) }),
        Schema.union([Schema.object({ tls: Schema.const(true), port: Schema.natural().default(993) }), Schema.object({ tls: Schema.const(false), port: Schema.natural().default(143) })]),
      ]),
      optional: Schema.object({ inner: Schema.string().required() }).default(undefined as never),
    })
    harness = await boot()
    const fiber = harness.root.plugin({ inject: ['settings'], apply: (ctx: import('cordis').Context) => void ctx.settings.register('shaped', Shaped) })
    const failure = await fiber.await().then(() => undefined, (error: unknown) => error as SettingsNeedsSetupError)
    expect(failure?.missing).toEqual([['endpoint'], ['imap', 'host']])
    expect(() => Shaped({ endpoint: 'http://e', imap: { host: 'h' } })).not.toThrow()
  })

  it('goes away with its plugin, and a plugin starting again takes its place', async () => {
    harness = await boot()
    const fiber = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin([]) })
    await fiber.await().catch(() => {})
    expect(harness.provider.describe().map((d) => d.ns)).toEqual(['adapter'])
    await fiber.dispose()
    expect(harness.provider.describe()).toEqual([])
    // The namespace is free again: an unrelated write is refused as unknown, a new registration waits afresh.
    await expect(harness.provider.mutate('adapter', [{ op: 'set', path: ['selfId'], value: 'x' }])).rejects.toMatchObject({ code: 'SETTINGS_UNKNOWN_NAMESPACE' })
    const again = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin([]) })
    await expect(again.await()).rejects.toMatchObject({ code: 'SETTINGS_NEEDS_SETUP' })
    expect(harness.provider.describe({ ns: 'adapter' })[0]?.needsSetup).toBe(true)
  })

  it('never puts a typed secret into the error, the logs or the descriptor', async () => {
    harness = await boot({ document: { adapter: { token: 'stored-secret-77', protocol: 'http' } } })
    const fiber = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin([]) })
    const failure = await fiber.await().then(() => undefined, (error: unknown) => error as Error)
    expect(failure?.message).not.toContain('stored-secret-77')
    expect(JSON.stringify(harness.provider.describe({ redactSecrets: true }))).not.toContain('stored-secret-77')
    expect(harness.logs.map((line) => line.text).join('\n')).not.toContain('stored-secret-77')
  })

  it('does not start a plugin disposed between the write that completes it and its start', async () => {
    harness = await boot()
    const starts: unknown[] = []
    const fiber = harness.root.plugin({ inject: ['settings'], apply: adapterPlugin(starts) })
    await fiber.await().catch(() => {})
    const write = harness.provider.mutate('adapter', [
      { op: 'set', path: ['selfId'], value: 'a' },
      { op: 'set', path: ['token'], value: 't' },
    ])
    await fiber.dispose()
    // The write runs after the disposal began: it finds the namespace gone, or completes a registration nobody will start.
    await write.catch((error: unknown) => expect(error).toMatchObject({ code: 'SETTINGS_UNKNOWN_NAMESPACE' }))
    await drainMicrotasks()
    expect(starts).toEqual([])
    expect(harness.provider.describe()).toEqual([])
  })

  it('waits per scope: a scope’s own section completes the plugin mounted there, the global one stays waiting', async () => {
    harness = await boot()
    const global: unknown[] = []
    const scoped: unknown[] = []
    await harness.root.plugin({ inject: ['settings'], apply: adapterPlugin(global) }).await().catch(() => {})
    const { scope } = await harness.mountInScope('preset/ops', () => undefined)
    await scope.ctx.plugin({ inject: ['settings'], apply: adapterPlugin(scoped) }).await().catch(() => {})
    expect(harness.provider.describe({ scope: 'preset/ops' })[0]).toMatchObject({ needsSetup: true, problem: { missing: [['selfId'], ['token']] } })
    await harness.provider.replace('adapter', { selfId: 'ops', token: 'scoped-token', protocol: 'ws' }, undefined, 'preset/ops')
    await expect.poll(() => scoped.length).toBe(1)
    expect(scoped[0]).toMatchObject({ selfId: 'ops', protocol: 'ws' })
    expect(global).toEqual([])
    expect(harness.provider.describe({ ns: 'adapter' })[0]!.needsSetup).toBe(true)
  })
})

describe('a waiting registration under random writes (fast-check)', () => {
  const Bot = Schema.object({
    token: Schema.string().role('secret').required(),
    server: Schema.object({ host: Schema.string().required(), port: Schema.natural().default(80) }).default({} as never),
    name: Schema.string().default('bot'),
  })
  const op = fc.oneof(
    fc.record({ op: fc.constant('set' as const), path: fc.constantFrom(['token'], ['server', 'host'], ['name'], ['server', 'port']), value: fc.string({ minLength: 1, maxLength: 6 }) }),
    fc.record({ op: fc.constant('unset' as const), path: fc.constantFrom(['token'], ['server', 'host'], ['name']) }),
  )

  it('starts the plugin exactly once, at the first write that completes the section, and lists what is missing until then', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const local = await boot()
        try {
          const starts: unknown[] = []
          const fiber = local.root.plugin({ inject: ['settings'], apply: (ctx) => void starts.push(ctx.settings.register('bot', Bot).get()) })
          await fiber.await().catch(() => {})
          let started = false
          for (const raw of ops) {
            // A number where the port goes; text elsewhere.
            const write = raw.op === 'set' && raw.path[1] === 'port' ? { ...raw, value: raw.value.length } : raw
            await local.provider.mutate('bot', [write]).catch(() => {})
            await drainMicrotasks()
            await new Promise((done) => setImmediate(done))
            const view = local.provider.describe({ ns: 'bot', redactSecrets: true })[0]
            if (started) continue
            const user = (local.provider.describe({ ns: 'bot' })[0]?.user ?? {}) as { token?: string; server?: { host?: string } }
            const complete = user.token !== undefined && user.server?.host !== undefined
            if (complete) {
              await fiber.await().catch(() => {})
              expect(starts).toHaveLength(1)
              started = true
            } else {
              expect(starts).toHaveLength(0)
              const missing = [...(user.token === undefined ? [['token']] : []), ...(user.server?.host === undefined ? [['server', 'host']] : [])]
              expect(view).toMatchObject({ needsSetup: true, problem: { missing } })
            }
          }
          // Once started, later writes (an unset of the token) go through the running plugin's checks, never start it again.
          expect(starts.length).toBe(started ? 1 : 0)
        } finally {
          await local.dispose()
        }
      }),
      { numRuns: 40 },
    )
  })
})
