/**
 * A refusal names the field inside the union branch the data means (its
 * constant, or the only branch it fits), through `intersect([base, union])`
 * (every adapter's shape) and unions nested at any depth; when no branch is
 * meant it stays at the union. No message quotes the refused value.
 */
import Schema from 'schemastery'
import { corpusEntries, corpusSchema } from 'dsh-testing/corpus'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsValidationError } from 'dsh-settings'
import { applySchema } from '../src/resolve.ts'
import { boot, type Harness } from './harness.ts'

const key = { ns: 'chat-bridge' }

/** The adapter pattern: a secret token beside a union of protocols told apart by a constant. */
const Adapter = Schema.intersect([
  Schema.object({ token: Schema.string().role('secret').required() }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required() }),
    Schema.object({ protocol: Schema.const('ws').required(), heartbeat: Schema.natural().default(30) }),
  ]),
])

function refusal(schema: Schema, data: unknown): SettingsValidationError {
  try {
    applySchema(schema, data, key)
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsValidationError)
    return error as SettingsValidationError
  }
  throw new Error('expected a refusal')
}

describe('a refusal inside a union branch', () => {
  it('names the field of the branch its constant picks, with that field\'s expectation', () => {
    const error = refusal(Adapter, { token: 'tok-secret-31', protocol: 'ws', heartbeat: 'fast' })
    expect(error.path).toEqual(['heartbeat'])
    expect(error.message).toBe('settings "chat-bridge" is invalid at $.heartbeat: expected number')
    expect(error.message).not.toMatch(/fast|tok-secret/)
  })

  it('names a required field the picked branch lacks', () => {
    const error = refusal(Adapter, { token: 't', protocol: 'http' })
    expect(error.path).toEqual(['endpoint'])
    expect(error.message).toContain('$.endpoint: missing required value')
  })

  it('names the constant field when no branch takes its value, listing the values there are', () => {
    const error = refusal(Adapter, { token: 't', protocol: 'htp' })
    expect(error.path).toEqual(['protocol'])
    expect(error.message).toBe('settings "chat-bridge" is invalid at $.protocol: expected "http" | "ws"')
  })

  it('enters the only branch whose kind the data fits', () => {
    const schema = Schema.object({ proxy: Schema.union([Schema.const(false), Schema.object({ port: Schema.natural() })]) })
    const error = refusal(schema, { proxy: { port: 'eighty' } })
    expect(error.path).toEqual(['proxy', 'port'])
    expect(error.message).toContain('$.proxy.port: expected number')
  })

  it('enters unions nested at any depth, inside objects, lists and intersections', () => {
    const level = Schema.union([
      Schema.object({ mode: Schema.const('fixed').required(), rate: Schema.natural().required() }),
      Schema.object({ mode: Schema.const('auto').required() }),
    ])
    const transport = Schema.union([
      Schema.object({ kind: Schema.const('a').required() }),
      Schema.union([
        Schema.intersect([Schema.object({ kind: Schema.const('b').required() }), Schema.object({ limits: Schema.array(level).default([]) })]),
        Schema.object({ kind: Schema.const('c').required() }),
      ]),
    ])
    const schema = Schema.object({ relay: Schema.intersect([Schema.object({ name: Schema.string() }), transport]) })
    const error = refusal(schema, { relay: { name: 'r', kind: 'b', limits: [{ mode: 'auto' }, { mode: 'fixed', rate: 'SLOW-7' }] } })
    expect(error.path).toEqual(['relay', 'limits', '1', 'rate'])
    expect(error.message).toContain('$.relay.limits[1].rate: expected number')
    expect(error.message).not.toContain('SLOW-7')
  })

  it('stays at the union, with the union\'s expectation, when no branch is meant', () => {
    const error = refusal(Adapter, { token: 't' })
    expect(error.path).toEqual([])
    expect(error.message).toContain('is invalid at $: expected { protocol: "http", endpoint: string } | { protocol: "ws", heartbeat?: number }')
  })

  it('keeps a refusal outside any union where schemastery puts it', () => {
    const error = refusal(Schema.object({ limit: Schema.natural().max(50) }), { limit: 99 })
    expect(error.path).toEqual(['limit'])
    expect(error.message).toContain('$.limit: expected number <= 50')
  })
})

describe('a refusal inside a published adapter\'s protocol branch', () => {
  const schemaOf = (pkg: string) => corpusSchema(corpusEntries().find((entry) => entry.package === pkg && entry.export === 'default.Config')!)

  it('OneBot: a ws-only field of the wrong type, and a reverse-ws field picked by the protocol\'s default', () => {
    const onebot = schemaOf('koishi-plugin-adapter-onebot')
    const ws = refusal(onebot, { selfId: '10001', token: 'ob-token-77', protocol: 'ws', endpoint: 'ws://127.0.0.1:6700', responseTimeout: 'SOON-9' })
    expect(ws.path).toEqual(['responseTimeout'])
    expect(ws.message).toContain('$.responseTimeout: expected number')
    expect(ws.message).not.toMatch(/SOON-9|ob-token-77/)
    // No protocol stored: only the reverse-ws branch does not require one.
    const reverse = refusal(onebot, { selfId: '10001', path: 8080 })
    expect(reverse.path).toEqual(['path'])
    expect(reverse.message).toContain('$.path: expected string')
  })

  it('Telegram: a polling-only field of the wrong type', () => {
    const telegram = schemaOf('@koishijs/plugin-adapter-telegram')
    const error = refusal(telegram, { token: 'tg-token-1', protocol: 'polling', pollingTimeout: 'LATER-3' })
    expect(error.path).toEqual(['pollingTimeout'])
    expect(error.message).toContain('$.pollingTimeout: expected number')
    expect(error.message).not.toMatch(/LATER-3|tg-token-1/)
  })
})

describe('the field reaches registration and describe', () => {
  let h: Harness | undefined
  afterEach(() => h?.dispose())

  it('register throws it', async () => {
    h = await boot({ document: { 'chat-bridge': { token: 'tok-99', protocol: 'ws', heartbeat: 'fast' } } })
    const thrown = await h.mount((ctx) => ctx.settings.register('chat-bridge', Adapter)).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(thrown).toBeInstanceOf(SettingsValidationError)
    expect((thrown as SettingsValidationError).path).toEqual(['heartbeat'])
  })

  it('describe\'s problem names it', async () => {
    h = await boot({ document: { 'chat-bridge': { token: 'tok-99', protocol: 'ws' } } })
    await h.mount((ctx) => ctx.settings.register('chat-bridge', Adapter))
    await h.provider.edit({ 'chat-bridge': { token: 'tok-99', protocol: 'ws', heartbeat: 'fast' } })
    const [descriptor] = h.provider.describe({ redactSecrets: true })
    expect(descriptor!.problem).toEqual({ path: ['heartbeat'], message: 'settings "chat-bridge" is invalid at $.heartbeat: expected number' })
    expect(JSON.stringify(descriptor)).not.toMatch(/fast|tok-99/)
  })

  it('a write into the branch is refused at the field', async () => {
    h = await boot({ document: { 'chat-bridge': { token: 'tok-99', protocol: 'ws' } } })
    await h.mount((ctx) => ctx.settings.register('chat-bridge', Adapter))
    const refused = await h.provider.mutate('chat-bridge', [{ op: 'set', path: ['heartbeat'], value: 'abc' }]).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(SettingsValidationError)
    expect((refused as SettingsValidationError).path).toEqual(['heartbeat'])
    expect((refused as SettingsValidationError).message).not.toContain('abc')
  })
})
