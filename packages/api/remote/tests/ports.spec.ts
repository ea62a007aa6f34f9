/**
 * Taking a port: a server whose port another process holds takes the next
 * free one up to `maxPort` (by default `port + 9`) and prints the URL it
 * bound; with every port of the range held, the plugin fails naming the range.
 */
import { Context } from 'cordis'
import { rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_PORT_SPAN, RemotePortError } from '../src/index.ts'
import { listenInRange } from '../src/ports.ts'
import { RemoteServer } from '../src/server.ts'
import { captureLogs, START_LINE, startServer, tempDir, type LiveServer } from './harness.ts'
import { holdPorts, type HeldPorts } from './held-ports.ts'

const servers: LiveServer[] = []
const held: HeldPorts[] = []
const homes: string[] = []

afterEach(async () => {
  for (const live of servers.splice(0)) await live.cleanup()
  for (const ports of held.splice(0)) await ports.release()
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true })
})

async function hold(count: number, free = 0): Promise<HeldPorts> {
  const ports = await holdPorts(count, free)
  held.push(ports)
  return ports
}

async function serve(config: RemoteServer.Options): Promise<LiveServer> {
  const live = await startServer(config)
  servers.push(live)
  return live
}

/** Plug a server that must fail; resolves with its failure and what it logged. */
async function failing(config: RemoteServer.Options): Promise<{ error: unknown; logs: string[] }> {
  const root = new Context()
  const logs = captureLogs(root)
  const home = await tempDir()
  homes.push(home)
  const fiber = root.plugin(RemoteServer, { home, ...config })
  const error = await fiber.await().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  await fiber.dispose()
  return { error, logs: logs.map((line) => line.text) }
}

describe('a port another process holds', () => {
  it('binds the next free port, says which ports were in use, and prints the URL it bound', async () => {
    const ports = await hold(1, 1)
    const live = await serve({ port: ports.first })
    expect(live.port).toBe(ports.first + 1)
    expect(live.url).toBe(`http://127.0.0.1:${ports.first + 1}`)
    const texts = live.logs.map((line) => line.text)
    expect(texts).toContain(`remote: port ${ports.first} is in use; took the next free one`)
    expect(texts.map((text) => START_LINE.exec(text)?.[2]).filter(Boolean)).toEqual([`http://127.0.0.1:${ports.first + 1}`])
    // It answers there, to its own port's Host.
    const answer = await fetch(`${live.url}/remote/events`, { headers: { authorization: `Bearer ${live.token}` } })
    expect(answer.status).toBe(200)
    await answer.body?.cancel()
  })

  it('goes up to port + 9 by default, takes the last one, and names the ports it skipped', async () => {
    const ports = await hold(DEFAULT_PORT_SPAN, 1)
    const live = await serve({ port: String(ports.first) })
    expect(live.port).toBe(ports.first + DEFAULT_PORT_SPAN)
    expect(live.logs.map((line) => line.text)).toContain(`remote: ports ${ports.first}-${ports.last} are in use; took the next free one`)
  })

  it('fails the plugin naming the range when every port up to port + 9 is held, and prints no start line', async () => {
    const ports = await hold(DEFAULT_PORT_SPAN + 1)
    const { error, logs } = await failing({ port: ports.first })
    expect(error).toBeInstanceOf(RemotePortError)
    expect(error).toMatchObject({ name: 'RemotePortError', code: 'REMOTE_PORTS_BUSY', host: '127.0.0.1', first: ports.first, last: ports.first + DEFAULT_PORT_SPAN })
    expect((error as Error).message).toContain(`every port from ${ports.first} to ${ports.first + DEFAULT_PORT_SPAN} is in use on 127.0.0.1`)
    expect(logs.filter((text) => START_LINE.test(text))).toEqual([])
  })

  it('tries only up to maxPort, given as a digit string', async () => {
    const ports = await hold(3, 1)
    const { error } = await failing({ port: ports.first, maxPort: String(ports.last) })
    expect(error).toMatchObject({ code: 'REMOTE_PORTS_BUSY', first: ports.first, last: ports.last })
    expect((error as Error).message).toContain(`every port from ${ports.first} to ${ports.last} is in use`)
  })

  it('with maxPort equal to port, tries that port alone', async () => {
    const ports = await hold(1, 1)
    const { error } = await failing({ port: ports.first, maxPort: ports.first })
    expect(error).toMatchObject({ code: 'REMOTE_PORTS_BUSY', first: ports.first, last: ports.first })
    expect((error as Error).message).toContain(`port ${ports.first} is in use on 127.0.0.1`)
  })

  it('a failed server holds no port: once the others let go, the next server binds the first of the range', async () => {
    const ports = await hold(2)
    await failing({ port: ports.first, maxPort: ports.last })
    await ports.release()
    const live = await serve({ port: ports.first, maxPort: ports.last })
    expect(live.port).toBe(ports.first)
    expect(live.logs.some((line) => line.text.includes('in use'))).toBe(false)
  })
})

describe('the range as configured', () => {
  it('refuses a maxPort below port before binding anything', async () => {
    const { error } = await failing({ port: 5150, maxPort: 5140 })
    expect(error).toMatchObject({ name: 'RemotePortError', code: 'REMOTE_BAD_PORT_RANGE', first: 5150, last: 5140 })
    expect((error as Error).message).toBe('remote: maxPort 5140 is below port 5150')
  })

  it('port 0 still means any free port, whatever maxPort says', async () => {
    const live = await serve({ port: 0, maxPort: 0 })
    expect(live.port).toBeGreaterThan(0)
    expect(live.logs.some((line) => line.text.includes('in use'))).toBe(false)
  })

  it('fails at once on an error that is not a port in use, without trying the next ports', async () => {
    // 192.0.2.1 (TEST-NET-1) is no address of this machine: binding it fails the same way on every port.
    const { error, logs } = await failing({ host: '192.0.2.1', port: 40_000 })
    expect(error).toMatchObject({ code: 'EADDRNOTAVAIL', port: 40_000 })
    expect(logs.some((text) => text.includes('in use'))).toBe(false)
  })

  it('accepts maxPort in the config schema as a number or a digit string', () => {
    expect(RemoteServer.Config({ port: 5140, maxPort: '5145' }).maxPort).toBe(5145)
    expect(RemoteServer.Config({ port: 5140, maxPort: 5145 }).maxPort).toBe(5145)
    expect(RemoteServer.Config({ port: 5140 }).maxPort).toBeUndefined()
    expect(() => RemoteServer.Config({ maxPort: 'next' })).toThrow()
    expect(() => RemoteServer.Config({ maxPort: 70_000 })).toThrow()
  })
})

describe('listenInRange', () => {
  it('leaves no listener on the server after failed tries, bound or not', async () => {
    const ports = await hold(12)
    const server = createServer()
    // node:http listens to 'listening' itself (connection tracking): only what the tries add counts.
    const counts = () => [server.listenerCount('listening'), server.listenerCount('error')]
    const before = counts()
    await expect(listenInRange(server, '127.0.0.1', { first: ports.first, last: ports.last })).rejects.toMatchObject({ code: 'REMOTE_PORTS_BUSY' })
    expect(counts()).toEqual(before)
    await ports.release()
    const { address, busy } = await listenInRange(server, '127.0.0.1', { first: ports.first, last: ports.last })
    expect([address.port, busy]).toEqual([ports.first, []])
    expect(counts()).toEqual(before)
    await new Promise((resolve) => server.close(resolve))
  })
})
