/**
 * The event stream: framing on the wire, broadcast to every open stream, no
 * replay, pings, `remote.events` reconnecting (with `reconnected`) after the
 * server restarts on the same port, and how it ends.
 */
import { Context } from 'cordis'
import { request, type IncomingMessage } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import { RemoteError } from '../src/error.ts'
import type { RemoteEvent } from '../src/types.ts'
import { captureLogs, startServer, until, type LiveServer } from './harness.ts'

const servers: LiveServer[] = []
const controllers: AbortController[] = []

afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.abort()
  for (const live of servers.splice(0)) await live.cleanup()
})

async function serve(config: Parameters<typeof startServer>[0] = {}): Promise<LiveServer> {
  const live = await startServer(config)
  servers.push(live)
  return live
}

function signal(): AbortSignal {
  const controller = new AbortController()
  controllers.push(controller)
  return controller.signal
}

/** Open the stream raw and collect its text. */
function rawStream(live: LiveServer): Promise<{ response: IncomingMessage; text: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port: live.port, path: '/remote/events', headers: { authorization: `Bearer ${live.token}` }, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      const ended = new Promise<void>((done) => response.on('end', () => done()))
      resolve({ response, text: () => text, ended })
    })
    outgoing.on('error', reject)
    outgoing.end()
  })
}

describe('GET /remote/events on the wire', () => {
  it('answers text/event-stream with the common headers and writes id/event/data frames', async () => {
    const live = await serve()
    const stream = await rawStream(live)
    expect(stream.response.statusCode).toBe(200)
    expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(stream.response.headers['cache-control']).toBe('no-store')
    expect(stream.response.headers['x-content-type-options']).toBe('nosniff')
    live.server.broadcast('settings/updated', { ns: 'web-search', source: 'update' })
    live.server.broadcast('demo/multi', { text: 'line one\nline two' })
    live.server.broadcast('demo/nothing', undefined)
    await until(() => stream.text().split('\n\n').length > 3, 2000, 'three frames')
    expect(stream.text()).toBe(
      'id: 1\nevent: settings/updated\ndata: {"ns":"web-search","source":"update"}\n\n' +
        'id: 2\nevent: demo/multi\ndata: {"text":"line one\\nline two"}\n\n' +
        'id: 3\nevent: demo/nothing\ndata: null\n\n',
    )
  })

  it('sends a ": ping" comment every ping interval', async () => {
    const live = await serve({ pingInterval: 30 })
    const stream = await rawStream(live)
    await until(() => stream.text().split(': ping\n\n').length > 2, 2000, 'two pings')
    expect(stream.text()).toMatch(/^(: ping\n\n)+$/)
  })

  it('ends every stream cleanly when the server stops', async () => {
    const live = await serve()
    const stream = await rawStream(live)
    await live.stop()
    await stream.ended
    expect(stream.response.complete).toBe(true)
  })

  it('refuses event names that would break the framing, and payloads that are not JSON', async () => {
    const live = await serve()
    for (const name of ['', 'a\nb', 'a\rb', ':comment', 'x'.repeat(201)]) expect(() => live.server.broadcast(name, {}), JSON.stringify(name)).toThrow(TypeError)
    expect(() => live.server.broadcast('demo/x', { n: 1n })).toThrow(TypeError)
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => live.server.broadcast('demo/x', cycle)).toThrow(TypeError)
  })
})

describe('remote.events', () => {
  it('delivers every broadcast to every subscribed client, in order, without replaying earlier ones', async () => {
    const live = await serve()
    live.server.broadcast('demo/before', { n: 0 })
    const remote = createRemote({ url: live.url, token: live.token })
    const seen: RemoteEvent[][] = [[], []]
    const connected = [false, false]
    const done = seen.map((list, index) =>
      remote.events((event) => list.push(event), { signal: signal(), connected: () => (connected[index] = true) }),
    )
    await until(() => connected.every(Boolean), 2000, 'both clients')
    live.server.broadcast('demo/one', { n: 1 })
    live.server.broadcast('demo/two', { n: 2, text: 'a\nb' })
    await until(() => seen.every((list) => list.length === 2), 2000, 'two events each')
    for (const list of seen) {
      expect(list).toEqual([
        { id: 2, event: 'demo/one', data: { n: 1 } },
        { id: 3, event: 'demo/two', data: { n: 2, text: 'a\nb' } },
      ])
    }
    for (const controller of controllers) controller.abort()
    await Promise.all(done)
  })

  it('resolves when its signal aborts, and the server sees the stream close', async () => {
    const live = await serve()
    const controller = new AbortController()
    let connected = false
    const done = createRemote({ url: live.url, token: live.token }).events(() => {}, { signal: controller.signal, connected: () => (connected = true) })
    await until(() => connected && live.server.streams === 1, 2000, 'the stream')
    controller.abort()
    await expect(done).resolves.toBeUndefined()
    await until(() => live.server.streams === 0, 2000, 'the server to drop the stream')
  })

  it('reconnects after the server restarts on the same port and calls reconnected', async () => {
    const home = (await serve()).home
    const first = servers[0]!
    const port = first.port
    const remote = createRemote({ url: first.url, token: first.token })
    const seen: RemoteEvent[] = []
    const errors: unknown[] = []
    let connections = 0
    let reconnections = 0
    const done = remote.events((event) => seen.push(event), {
      signal: signal(),
      connected: () => connections++,
      reconnected: () => reconnections++,
      error: (error) => errors.push(error),
    })
    await until(() => connections === 1, 2000, 'the first connection')
    first.server.broadcast('demo/first', { n: 1 })
    await until(() => seen.length === 1, 2000, 'the first event')
    expect(reconnections).toBe(0)

    await first.stop()
    await until(() => errors.length > 0, 2000, 'the drop to be reported')
    // Same home, so the same token; same port, so the same URL.
    const root = new Context()
    const second = await startServer({ home, port }, root, captureLogs(root))
    servers.push(second)
    expect(second.token).toBe(first.token)
    await until(() => reconnections === 1, 8000, 'the reconnection')
    expect(connections).toBe(2)
    second.server.broadcast('demo/second', { n: 2 })
    await until(() => seen.length === 2, 2000, 'the second event')
    expect(seen).toEqual([
      { id: 1, event: 'demo/first', data: { n: 1 } },
      { id: 1, event: 'demo/second', data: { n: 2 } },
    ])
    expect(errors.every((error) => error instanceof RemoteError && error.code === 'remote/unavailable')).toBe(true)
    controllers[0]!.abort()
    await done
  })

  it('keeps retrying while the server is not there yet, then connects', async () => {
    const probe = await serve()
    const { port, home } = probe
    await probe.stop()
    const remote = createRemote({ url: probe.url, token: probe.token })
    let connected = false
    const errors: unknown[] = []
    const done = remote.events(() => {}, { signal: signal(), connected: () => (connected = true), error: (error) => errors.push(error) })
    await until(() => errors.length >= 2, 3000, 'two failed attempts')
    const root = new Context()
    servers.push(await startServer({ home, port }, root, captureLogs(root)))
    await until(() => connected, 8000, 'the connection')
    controllers[0]!.abort()
    await done
  })

  it('rejects for good when the server refuses the token', async () => {
    const live = await serve()
    const remote = createRemote({ url: live.url, token: 'wrong' })
    await expect(remote.events(() => {}, { signal: signal() })).rejects.toMatchObject({ name: 'RemoteError', code: 'remote/unauthorized' })
  })

  it('rejects with what a handler threw when no error hook is given, and closes the stream', async () => {
    const live = await serve()
    const remote = createRemote({ url: live.url, token: live.token })
    let connected = false
    const done = remote.events(
      () => {
        throw new Error('handler bug')
      },
      { signal: signal(), connected: () => (connected = true) },
    )
    await until(() => connected, 2000, 'the stream')
    live.server.broadcast('demo/x', {})
    await expect(done).rejects.toThrow('handler bug')
    await until(() => live.server.streams === 0, 2000, 'the stream to close')
  })

  it('reports a handler failure to the error hook and keeps going', async () => {
    const live = await serve()
    const remote = createRemote({ url: live.url, token: live.token })
    const errors: unknown[] = []
    const seen: string[] = []
    let connected = false
    const done = remote.events(
      (event) => {
        if (event.event === 'demo/bad') throw new Error('handler bug')
        seen.push(event.event)
      },
      { signal: signal(), connected: () => (connected = true), error: (error) => errors.push(error) },
    )
    await until(() => connected, 2000, 'the stream')
    live.server.broadcast('demo/bad', {})
    live.server.broadcast('demo/good', {})
    await until(() => seen.length === 1, 2000, 'the good event')
    expect(errors).toMatchObject([{ message: 'handler bug' }])
    controllers[0]!.abort()
    await done
  })
})
