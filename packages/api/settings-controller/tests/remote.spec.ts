/**
 * The controller on a real `RemoteServer` (127.0.0.1, port 0, temp home), called through `createRemote`.
 *
 * What these tests prove: a client typed `createRemote<{ settings: SettingsRemote }>` reaches every
 * method over HTTP: `describe` (global and scoped), `update`, `replace`, `mutate`, the two preset
 * methods and `openSettingsDocument`; refusals arrive as `RemoteError`s with the controller's code
 * and `details` (conflict, rejected with a path, invalid, unavailable; a prototype key is refused
 * by the server itself), each with the HTTP status the controller registered for its code, and
 * data nested too deep gets the same code and path as in-process; a write made in-process
 * reaches a subscribed event stream as facts only; the README's curl examples work verbatim; no secret configured in the test appears in any
 * answer, error, event or captured log line.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import type { Fiber } from 'cordis'
import RemoteServer, { createRemote, type Remote, type RemoteEvent } from 'dsh-remote'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { eventually, expectNoSecrets, plugController, plugProvider, registerKind, remoteFailure, rootContext, tempDir, type LogLine } from './harness.ts'
import type { SettingsController, SettingsRemote } from '../src/index.ts'

const SECRETS = ['sk-remote-REMOTE', 'sk-written-WRITTEN', 'pw-remote-PW', 'sk-default-DEFAULT']

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('bing'),
  limit: Schema.natural().default(10),
  apiKey: Schema.string().role('secret').default('sk-default-DEFAULT'),
  accounts: Schema.array(Schema.object({ user: Schema.string(), password: Schema.string().role('secret') })).default([]),
})

let cleanup: () => Promise<void>
let fibers: Fiber[] = []
let logs: LogLine[]
let remote: Remote<{ settings: SettingsRemote }>
let provider: MemorySettingsProvider
let controller: SettingsController
let presets: string
let serverUrl: string
const received: RemoteEvent[] = []
const answers: unknown[] = []
const stream = new AbortController()

beforeAll(async () => {
  const temp = await tempDir()
  cleanup = temp.cleanup
  presets = join(temp.dir, 'presets')
  await mkdir(join(presets, 'coder'), { recursive: true })
  const context = rootContext()
  logs = context.logs
  const { root } = context
  const plugged = await plugProvider(root, MemorySettingsProvider, {
    document: { search: { apiKey: 'sk-remote-REMOTE', accounts: [{ user: 'u', password: 'pw-remote-PW' }] } },
  })
  provider = plugged.provider
  const controllerPlug = await plugController(root, { opener: false, presets: [{ path: presets, writable: true }] })
  controller = controllerPlug.controller
  const serverFiber = root.plugin(RemoteServer, { port: 0, home: temp.dir, token: 'test-token-0123456789' })
  await serverFiber
  let url!: string
  await root.inject(['remoteServer'], (ctx) => {
    url = ctx.remoteServer.url
  })
  serverUrl = url
  fibers = [
    plugged.fiber,
    controllerPlug.fiber,
    serverFiber,
    await registerKind(root, 'search', Search),
    await registerKind(root, 'web-search', Schema.object({ limit: Schema.natural().default(10) })),
  ]
  remote = createRemote<{ settings: SettingsRemote }>({ url, token: 'test-token-0123456789' })
  const connected = new Promise<void>((resolve) => {
    void remote.events((event) => void received.push(event), { signal: stream.signal, connected: resolve })
  })
  await connected
})

afterAll(async () => {
  stream.abort()
  for (const fiber of fibers.reverse()) await fiber.dispose()
  await cleanup()
})

/** Keep every answer for the final secret scan. */
async function kept<T>(promise: Promise<T>): Promise<T> {
  const value = await promise
  answers.push(value)
  return value
}

describe('the controller over a real RemoteServer', () => {
  it('describes, redacted, through the typed client', async () => {
    const answer = await kept(remote.settings.describe())
    expect(answer).toMatchObject({ writable: true, document: false, scopes: [] })
    expect(answer.namespaces[0]).toMatchObject({ ns: 'search', user: { accounts: [{ user: 'u' }] }, secrets: [{ path: ['apiKey'], set: true }, { path: ['accounts', '0', 'password'], set: true }] })
    expect((await kept(remote.settings.describe('preset/coder'))).namespaces[0]).toMatchObject({ scope: 'preset/coder', registered: false })
  })

  it('writes through update, mutate and replace, keeping unseen secrets', async () => {
    const read = (await kept(remote.settings.describe())).namespaces[0]!.revision
    const updated = await kept(remote.settings.update('search', { engine: 'google', apiKey: 'sk-written-WRITTEN' }, read))
    expect(updated).toMatchObject({ revision: read + 1, user: { engine: 'google' } })
    await kept(remote.settings.mutate('search', [{ op: 'set', path: ['accounts', '0', 'user'], value: 'renamed' }], null))
    expect(provider.document().search).toEqual({ engine: 'google', apiKey: 'sk-written-WRITTEN', accounts: [{ user: 'renamed', password: 'pw-remote-PW' }] })
    await kept(remote.settings.update('search', { limit: 3 }, null, 'preset/coder'))
    const reset = await kept(remote.settings.replace('search', { engine: 'bing' }))
    expect(reset.user).toEqual({ engine: 'bing' })
  })

  it('answers refusals as RemoteErrors with the controller’s codes and details', async () => {
    const read = (await kept(remote.settings.describe())).namespaces[0]!.revision
    await kept(remote.settings.update('search', { limit: 4 }, read))
    const conflict = await remoteFailure(() => remote.settings.update('search', { limit: 5 }, read), 'settings/conflict')
    expect(conflict.details).toEqual({ ns: 'search', expected: read, actual: read + 1 })
    const schema = await remoteFailure(() => remote.settings.update('search', { limit: 'lots' as never }), 'settings/rejected')
    expect(schema.details).toMatchObject({ path: ['limit'] })
    // The server refuses a body with a prototype key before any service sees it.
    const proto = await remoteFailure(() => remote.settings.update('search', JSON.parse('{"__proto__": {"polluted": 1}}')), 'remote/bad-request')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    await remoteFailure(() => remote.settings.update('Bad NS', {}), 'settings/invalid')
    await remoteFailure(() => remote.settings.mutate('search', [{ op: 'set', path: ['limit'] } as never]), 'settings/invalid')
    await remoteFailure(() => remote.settings.openSettingsDocument(), 'settings/unavailable')
    answers.push(conflict.toJSON(), schema.toJSON(), proto.toJSON())
  })

  it('answers each settings code with the HTTP status the controller registered', async () => {
    const read = (await kept(remote.settings.describe())).namespaces[0]!.revision
    await kept(remote.settings.update('search', { limit: 6 }, read))
    const post = (method: string, args: unknown[]) =>
      fetch(`${serverUrl}/remote/settings/${method}`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-token-0123456789', 'content-type': 'application/json' },
        body: JSON.stringify({ args }),
      })
    const cases: [string, unknown[], string, number][] = [
      ['update', ['Bad NS', {}], 'settings/invalid', 400],
      ['update', ['search', { limit: 'lots' }], 'settings/rejected', 422],
      ['update', ['search', { limit: 7 }, read], 'settings/conflict', 409],
      ['openSettingsDocument', [], 'settings/unavailable', 503],
    ]
    for (const [method, args, code, status] of cases) {
      const answer = await post(method, args)
      expect(answer.status, code).toBe(status)
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(code)
      const error = await remoteFailure(() => (remote.settings[method as 'update'] as (...a: unknown[]) => Promise<unknown>)(...args), code)
      expect(error.status).toBe(status)
    }
  })

  it('refuses data nested past the seam’s limit with the same code and path as in-process', async () => {
    let deep: Record<string, unknown> = {}
    for (let i = 1; i < 64; i++) deep = { n: deep }
    const overWire = await remoteFailure(() => remote.settings.update('search', { deep }), 'settings/invalid')
    const inProcess = await remoteFailure(() => controller.update('search', { deep }), 'settings/invalid')
    expect(overWire.details).toEqual(inProcess.details)
    expect(overWire.details).toMatchObject({ path: ['deep', ...Array.from({ length: 63 }, () => 'n')], reason: 'too-deep' })
  })

  it('answers the preset methods', async () => {
    expect(await remote.settings.canOpenAgentPresetDirectory()).toBe(false)
    expect(await remote.settings.openAgentPresetDirectory('coder')).toEqual({ opened: false, directory: join(presets, 'coder') })
    await remoteFailure(() => remote.settings.openAgentPresetDirectory('../coder'), 'settings/invalid')
    await remoteFailure(() => remote.settings.openAgentPresetDirectory('missing'), 'settings/rejected')
  })

  it('streams settings events as facts to a subscribed client', async () => {
    const before = received.length
    await controller.update('search', { engine: 'duckduckgo' })
    await eventually(() => expect(received.slice(before).map((event) => event.event)).toEqual(['settings/document-updated', 'settings/updated']))
    const [documentEvent, updatedEvent] = received.slice(before)
    expect(documentEvent!.data).toEqual({ ns: 'search', revision: controller.describe().namespaces[0]!.revision })
    expect(updatedEvent!.data).toEqual({ ns: 'search', source: 'update' })
  })

  it('runs the README’s curl examples verbatim', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    const block = /```sh\n([\s\S]*?)```/.exec(readme)![1]!
    const commands = block.split('\n').filter((line) => line.startsWith('curl '))
    expect(commands).toHaveLength(2)
    for (const command of commands) {
      const { stdout } = await promisify(execFile)('sh', ['-c', command], { env: { ...process.env, DSH_URL: serverUrl, DSH_TOKEN: 'test-token-0123456789' } })
      const body = JSON.parse(stdout) as { value?: unknown }
      expect(body).toHaveProperty('value')
      answers.push(body)
    }
    expect(provider.document()['web-search']).toEqual({ limit: 20 })
  })

  it('never lets a configured secret reach an answer, an error, an event or a log line', () => {
    expect(answers.length).toBeGreaterThan(5)
    expectNoSecrets(answers, SECRETS)
    expectNoSecrets(received, SECRETS)
    expectNoSecrets(logs, SECRETS)
  })
})
