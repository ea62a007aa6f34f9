/**
 * The server's life: config as `cordis.yml` writes it, binding (a taken range
 * fails the plugin; ports.spec.ts has the rest), handler signals aborted when the client goes away, and
 * a stop that answers running calls, ends streams and frees the port quickly.
 */
import { Context } from 'cordis'
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import { RemoteServer } from '../src/server.ts'
import { authorized, captureLogs, deferred, startServer, tempDir, until, type LiveServer } from './harness.ts'

const servers: LiveServer[] = []
afterEach(async () => {
  for (const live of servers.splice(0)) await live.cleanup()
})

async function serve(config: RemoteServer.Options = {}): Promise<LiveServer> {
  const live = await startServer(config)
  servers.push(live)
  return live
}

describe('config', () => {
  it('fills the defaults and takes a port as the digit string an interpolation produces', () => {
    const resolve = (input: RemoteServer.Options) => RemoteServer.Config(input)
    expect(resolve({})).toMatchObject({ host: '127.0.0.1', port: 5140, allowedHosts: [], pingInterval: 15_000 })
    expect(resolve({ port: '5141' }).port).toBe(5141)
    expect(resolve({ port: 0 }).port).toBe(0)
    expect(() => resolve({ port: 'http' })).toThrow()
    expect(() => resolve({ port: 70_000 })).toThrow()
  })

  it('binds a port given as a string through cordis', async () => {
    const live = await serve({ port: '0' })
    expect(live.port).toBeGreaterThan(0)
  })
})

describe('binding', () => {
  it('fails the plugin when its only port is taken, and the first server keeps serving', async () => {
    const first = await serve()
    const root = new Context()
    captureLogs(root)
    const home = await tempDir()
    const fiber = root.plugin(RemoteServer, { port: first.port, maxPort: first.port, home })
    await expect(fiber.await()).rejects.toMatchObject({ code: 'REMOTE_PORTS_BUSY' })
    await fiber.dispose()
    expect(first.server.url).toBe(`http://127.0.0.1:${first.port}`)
    const { rm } = await import('node:fs/promises')
    await rm(home, { recursive: true, force: true })
  })
})

describe('handler signals', () => {
  it('aborts the signal when the client goes away mid-call', async () => {
    const live = await serve()
    const started = deferred()
    const aborted = deferred<unknown>()
    await live.expose('slow', {
      wait: (_args, { signal }) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted.resolve(signal.reason)
            resolve('too late')
          })
          started.resolve()
        }),
    })
    const outgoing = request({ host: '127.0.0.1', port: live.port, path: '/remote/slow/wait', method: 'POST', headers: authorized(live.token), agent: false })
    outgoing.on('error', () => {})
    outgoing.end('{"args":[]}')
    await started.promise
    outgoing.destroy()
    expect(await aborted.promise).toMatchObject({ code: 'remote/unavailable', message: 'the client went away' })
  })

  it('drops a call whose client goes away mid-body: no handler call, no warning', async () => {
    const live = await serve()
    const calls: unknown[] = []
    await live.expose('sink', { take: (args) => calls.push(args) })
    const outgoing = request({ host: '127.0.0.1', port: live.port, path: '/remote/sink/take', method: 'POST', headers: { ...authorized(live.token), 'content-length': '1000' }, agent: false })
    outgoing.on('error', () => {})
    outgoing.write('{"args":["half')
    await new Promise((resolve) => setTimeout(resolve, 50))
    outgoing.destroy()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(calls).toEqual([])
    expect(live.logs.filter((line) => line.type !== 'info')).toEqual([])
  })

  it('leaves the signal alone for a call that completes', async () => {
    const live = await serve()
    let signal: AbortSignal | undefined
    await live.expose('fast', {
      go: (_args, request) => {
        signal = request.signal
        return 'done'
      },
    })
    expect(await createRemote<{ fast: { go(): Promise<string> } }>({ url: live.url, token: live.token }).fast.go()).toBe('done')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(signal?.aborted).toBe(false)
  })
})

describe('stopping', () => {
  it('answers running calls 503, aborts their signals, ends streams and frees the port at once', async () => {
    const live = await serve()
    const started = deferred()
    let reason: unknown
    await live.expose('slow', {
      wait: (_args, { signal }) =>
        new Promise(() => {
          signal.addEventListener('abort', () => (reason = signal.reason))
          started.resolve()
        }),
    })
    const remote = createRemote<{ slow: { wait(): Promise<void> } }>({ url: live.url, token: live.token })
    const call = remote.slow.wait().catch((error: unknown) => error)
    const controller = new AbortController()
    let connected = false
    const errors: unknown[] = []
    const stream = remote.events(() => {}, { signal: controller.signal, connected: () => (connected = true), error: (error) => errors.push(error) })
    await started.promise
    await until(() => connected, 2000, 'the stream')
    // A client that went quiet without closing (a spare connection, a stalled stream) must not hold the stop.
    const quiet = request({ host: '127.0.0.1', port: live.port, path: '/remote/events', headers: authorized(live.token), agent: false })
    quiet.on('error', () => {})
    quiet.end()
    await until(() => live.server.streams === 2, 2000, 'the second stream')

    const before = Date.now()
    await live.stop()
    expect(Date.now() - before).toBeLessThan(500)
    expect(await call).toMatchObject({ code: 'remote/unavailable', message: 'the server is stopping' })
    expect(reason).toMatchObject({ code: 'remote/unavailable' })
    await until(() => errors.length > 0, 2000, 'the stream to notice')
    controller.abort()
    await stream
    quiet.destroy()

    // The port is free again right away.
    const root = new Context()
    const again = await startServer({ port: live.port, home: live.home }, root, captureLogs(root))
    servers.push(again)
    expect(again.port).toBe(live.port)
  })

  it('disposes cleanly when nothing is connected, and a second stop is a no-op', async () => {
    const live = await serve()
    await live.stop()
    await live.stop()
    await expect(fetch(`${live.url}/`).then(() => 'answered', () => 'refused')).resolves.toBe('refused')
  })
})
