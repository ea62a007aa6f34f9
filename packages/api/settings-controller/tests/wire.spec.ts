/**
 * Exposure on a `remoteServer`, against a stand-in with the server's two-method contract.
 *
 * What these tests prove: the controller exposes `settings` with exactly the seven methods of
 * `settingsRemoteMethods` and registers its four codes' HTTP statuses; the handlers decode the argument array (refusing extra arguments as
 * `settings/invalid`), reach the controller's boundary checks, and pass the request's signal to
 * the two `open…` methods; settings events are forwarded as `settings/document-updated`
 * `{ ns, revision, scope? }` and `settings/updated` `{ ns, scope?, source }` with no values;
 * exposure and forwarding follow the server's lifetime (a server plugged after the controller gets
 * them, a disposed server loses them, a new one gets them again) and the controller's (disposing
 * it withdraws `settings`); a failing broadcast never fails the write that emitted the event.
 */
import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import type { Fiber } from 'cordis'
import { boot, expectNoSecrets, FakeRemoteServer, plugServer, remoteFailure, type Booted } from './harness.ts'
import { SETTINGS_ERROR_STATUS, settingsRemoteMethods } from '../src/index.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  apiKey: Schema.string().role('secret'),
})

let booted: Booted | undefined
const fibers: Fiber[] = []

afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  await booted?.controllerFiber.dispose()
  await booted?.providerFiber.dispose()
  booted = undefined
})


async function setup(): Promise<{ b: Booted; server: FakeRemoteServer; serverFiber: Fiber }> {
  const b = (booted = await boot({}, { opener: false }))
  await b.register('search', Search)
  const { server, fiber } = await plugServer(b, fibers)
  return { b, server, serverFiber: fiber }
}

const request = () => ({ signal: new AbortController().signal })

describe('exposure', () => {
  it('exposes settings with exactly the listed methods', async () => {
    const { server } = await setup()
    expect(Object.keys(server.exposed.get('settings')!).sort()).toEqual([...settingsRemoteMethods].sort())
  })

  it('registers its own error codes and their HTTP statuses with the server', async () => {
    const { server } = await setup()
    expect(server.options.get('settings')).toEqual({ errors: SETTINGS_ERROR_STATUS })
    expect(SETTINGS_ERROR_STATUS).toEqual({ 'settings/invalid': 400, 'settings/rejected': 422, 'settings/conflict': 409, 'settings/unavailable': 503 })
  })

  it('handlers decode the argument array and answer what the controller answers', async () => {
    const { b, server } = await setup()
    const handlers = server.exposed.get('settings')!
    const described = (await handlers.describe!([], request())) as ReturnType<typeof b.controller.describe>
    expect(described.namespaces.map((view) => view.ns)).toEqual(['search'])
    const view = (await handlers.update!(['search', { engine: 'google', apiKey: 'sk-wire-WIRE' }, described.namespaces[0]!.revision], request())) as { user: unknown }
    expect(view.user).toEqual({ engine: 'google' })
    await handlers.mutate!(['search', [{ op: 'set', path: ['engine'], value: 'bing' }], null, 'preset/coder'], request())
    await handlers.replace!(['search', {}], request())
    expect(b.provider.document()).toEqual({ search: {}, scopes: { 'preset/coder': { search: { engine: 'bing' } } } })
    expect(await handlers.canOpenAgentPresetDirectory!([], request())).toBe(false)
    expectNoSecrets([described, view], ['sk-wire-WIRE'])
  })

  it('refuses extra arguments and malformed ones as settings/invalid', async () => {
    const { server } = await setup()
    const handlers = server.exposed.get('settings')!
    await remoteFailure(() => handlers.describe!([undefined, null, 'extra'], request()), 'settings/invalid')
    await remoteFailure(() => handlers.canOpenAgentPresetDirectory!([1], request()), 'settings/invalid')
    await remoteFailure(() => handlers.openSettingsDocument!([{ path: '/etc/passwd' }], request()), 'settings/invalid')
    await remoteFailure(() => handlers.openAgentPresetDirectory!(['coder', '/etc'], request()), 'settings/invalid')
    await remoteFailure(() => handlers.update!(['search', {}, null, undefined, 'x'], request()), 'settings/invalid')
    await remoteFailure(() => handlers.update!([], request()), 'settings/invalid')
    await remoteFailure(() => handlers.mutate!(['search', [{ op: 'set', path: ['engine'] }]], request()), 'settings/invalid')
  })

  it('passes the request’s signal to the open methods', async () => {
    const { server } = await setup()
    const handlers = server.exposed.get('settings')!
    const abort = new AbortController()
    abort.abort()
    // Aborted before the call: the handler's own signal is what cancels it.
    await remoteFailure(() => handlers.openAgentPresetDirectory!(['coder'], { signal: abort.signal }), 'cancelled')
    await remoteFailure(() => handlers.openSettingsDocument!([], { signal: abort.signal }), 'cancelled')
  })
})

describe('events', () => {
  it('forwards both settings events with facts only, never values', async () => {
    const { b, server } = await setup()
    await b.controller.update('search', { engine: 'google', apiKey: 'sk-event-EVENT' })
    await b.controller.update('search', { engine: 'bing' }, null, 'preset/coder')
    const revision = b.controller.describe().namespaces[0]!.revision
    const scoped = b.controller.describe('preset/coder').namespaces[0]!.revision
    expect(server.events).toEqual([
      { event: 'settings/document-updated', payload: { ns: 'search', revision } },
      { event: 'settings/updated', payload: { ns: 'search', source: 'update' } },
      { event: 'settings/document-updated', payload: { ns: 'search', revision: scoped, scope: 'preset/coder' } },
    ])
    expectNoSecrets(server.events, ['sk-event-EVENT', 'google'])
  })

  it('forwards provider-observed changes with source provider', async () => {
    const { b, server } = await setup()
    await b.provider.edit({ search: { engine: 'google' } })
    expect(server.events.map((entry) => entry.payload)).toContainEqual({ ns: 'search', source: 'provider' })
  })

  it('keeps a write whose broadcast fails', async () => {
    const { b, server } = await setup()
    server.failure = new TypeError('stream is broken')
    await expect(b.controller.update('search', { engine: 'google' })).resolves.toMatchObject({ user: { engine: 'google' } })
    expect(b.logs.some((line) => line.text.includes('stream is broken'))).toBe(true)
  })
})

class RefusingServer extends FakeRemoteServer {
  override expose(): () => void {
    throw new Error('service "settings" is exposed already')
  }
}

describe('lifetime', () => {
  it('logs a refused exposure and keeps working in-process', async () => {
    const b = (booted = await boot({}, { opener: false }))
    await b.register('search', Search)
    const fiber = b.root.plugin(RefusingServer)
    await fiber
    fibers.push(fiber)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(b.logs.some((line) => line.type === 'error' && line.text.includes('exposed already'))).toBe(true)
    await expect(b.controller.update('search', { engine: 'google' })).resolves.toMatchObject({ user: { engine: 'google' } })
  })

  it('follows the server: withdrawn when it goes, exposed again on a new one', async () => {
    const { b, server, serverFiber } = await setup()
    expect(server.exposed.has('settings')).toBe(true)
    await serverFiber.dispose()
    expect(server.exposed.has('settings')).toBe(false)
    await b.controller.update('search', { engine: 'google' })
    expect(server.events).toEqual([])

    const { server: next } = await plugServer(b, fibers)
    expect(next.exposed.has('settings')).toBe(true)
    await b.controller.update('search', { engine: 'bing' })
    expect(next.events.map((entry) => entry.event)).toEqual(['settings/document-updated', 'settings/updated'])
    expect(server.events).toEqual([])
  })

  it('withdraws settings when the controller is disposed', async () => {
    const { b, server } = await setup()
    await b.controllerFiber.dispose()
    expect(server.exposed.has('settings')).toBe(false)
    await b.provider.edit({ search: { engine: 'google' } })
    expect(server.events).toEqual([])
  })
})
