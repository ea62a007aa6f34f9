/**
 * The happy paths through `createRemote` against a real server on 127.0.0.1:
 * values round-trip, errors come back as the `RemoteError` the handler threw
 * with the HTTP status of its code (registered by the service, or its own),
 * anything else becomes a generic `internal` (logged, never sent), and a
 * server that cannot be reached is `remote/unavailable`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import { RemoteError, REMOTE_STATUS } from '../src/error.ts'
import { authorized, raw, startServer, type LiveServer } from './harness.ts'

interface Demo {
  echo(...args: unknown[]): Promise<unknown[]>
  sum(a: number, b: number): Promise<number>
  nothing(): Promise<null>
  refuse(code: string, status?: number): Promise<never>
  crash(): Promise<never>
  bigint(): Promise<never>
  self(): Promise<boolean>
}

let live: LiveServer
let received: unknown[][]

/** The demo service's own codes, registered when it is exposed. */
const DEMO_ERRORS = { 'demo/conflict': 409, 'demo/rejected': 422, 'demo/down': 503 }

beforeAll(async () => {
  live = await startServer()
  received = []
  const handlers = {
    echo(args: unknown[]) {
      received.push(args)
      return args
    },
    sum: ([a, b]: unknown[]) => (a as number) + (b as number),
    nothing: () => undefined,
    async refuse([code, status]: unknown[]) {
      throw new RemoteError(code as string, `refused with ${code as string}`, { why: 'because', path: ['a', 0] }, status === undefined ? {} : { status: status as number })
    },
    crash() {
      throw new Error('the disk is on fire at /var/lib/private')
    },
    bigint: () => 10n,
    self(this: unknown) {
      return this === handlers
    },
  }
  await live.expose('demo', handlers, { errors: DEMO_ERRORS })
})

afterAll(async () => live.cleanup())

const client = () => createRemote<{ demo: Demo }>({ url: live.url, token: live.token })

describe('createRemote: calls', () => {
  it('resolves with the value the handler returned', async () => {
    const remote = client()
    expect(await remote.demo.sum(2, 3)).toBe(5)
    expect(await remote.demo.echo('a', 1, true, null, { nested: [1, { deep: 'x' }] })).toEqual(['a', 1, true, null, { nested: [1, { deep: 'x' }] }])
  })

  it('answers a handler that returns nothing with null', async () => {
    expect(await client().demo.nothing()).toBeNull()
  })

  it('leaves trailing undefined arguments off and sends inner ones as null', async () => {
    received.length = 0
    await client().demo.echo('a', undefined, 'b', undefined, undefined)
    await client().demo.echo(undefined)
    expect(received).toEqual([['a', null, 'b'], []])
  })

  it('calls the handler with its handler object as this', async () => {
    expect(await client().demo.self()).toBe(true)
  })

  it('accepts a base URL with a trailing slash', async () => {
    const remote = createRemote<{ demo: Demo }>({ url: `${live.url}/`, token: live.token })
    expect(await remote.demo.sum(1, 1)).toBe(2)
  })

  it('goes through the fetch it is given', async () => {
    const seen: string[] = []
    const remote = createRemote<{ demo: Demo }>({
      url: live.url,
      token: live.token,
      fetch: (input, init) => {
        seen.push(`${init.method} ${input}`)
        return fetch(input, init)
      },
    })
    expect(await remote.demo.sum(4, 5)).toBe(9)
    expect(seen).toEqual([`POST ${live.url}/remote/demo/sum`])
  })

  it('is not mistaken for a promise, nor are its services', async () => {
    const remote = client()
    expect((remote as unknown as { then?: unknown }).then).toBeUndefined()
    expect((remote.demo as unknown as { then?: unknown }).then).toBeUndefined()
    await expect(Promise.resolve(remote.demo)).resolves.toBe(remote.demo)
  })
})

describe('createRemote: errors', () => {
  it('rebuilds the RemoteError a handler threw: code, message, details, and the status its service registered', async () => {
    for (const [code, status] of Object.entries(DEMO_ERRORS)) {
      const error = await client().demo.refuse(code).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(RemoteError)
      expect(error).toMatchObject({ code, status, message: `refused with ${code}`, details: { why: 'because', path: ['a', 0] } })
      const answer = await raw(live, '/remote/demo/refuse', { method: 'POST', headers: authorized(live.token), body: JSON.stringify({ args: [code] }) })
      expect(answer.status).toBe(status)
      expect(JSON.parse(answer.body)).toEqual({ error: { code, message: `refused with ${code}`, details: { why: 'because', path: ['a', 0] } } })
    }
  })

  it('answers dsh-remote’s own codes with their own statuses when a service throws them', async () => {
    for (const code of ['remote/bad-request', 'remote/unavailable', 'internal']) {
      const error = await client().demo.refuse(code).catch((caught: unknown) => caught)
      expect(error).toMatchObject({ code, status: REMOTE_STATUS[code] })
    }
    expect(REMOTE_STATUS).toMatchObject({ 'remote/bad-request': 400, 'remote/unavailable': 503, internal: 500 })
    // dsh-remote knows no service's codes of its own.
    expect(Object.keys(REMOTE_STATUS).every((code) => code === 'internal' || code.startsWith('remote/'))).toBe(true)
  })

  it('answers with the status an error carries itself, over the registered one', async () => {
    const own = await client().demo.refuse('demo/odd', 418).catch((caught: unknown) => caught)
    expect(own).toMatchObject({ code: 'demo/odd', status: 418 })
    const overridden = await client().demo.refuse('demo/conflict', 423).catch((caught: unknown) => caught)
    expect(overridden).toMatchObject({ code: 'demo/conflict', status: 423 })
  })

  it('answers an unregistered code with 500, keeps the code, and says so in the log', async () => {
    const answer = await raw(live, '/remote/demo/refuse', { method: 'POST', headers: authorized(live.token), body: '{"args":["demo/odd"]}' })
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.body).error.code).toBe('demo/odd')
    expect(live.logs.some((line) => line.type === 'warn' && line.text.includes('demo.refuse') && line.text.includes('demo/odd') && line.text.includes('did not register'))).toBe(true)
  })

  it('refuses a status outside 400 to 599 when the error is made', () => {
    for (const status of [200, 302, 600, 404.5]) expect(() => new RemoteError('demo/odd', 'x', undefined, { status })).toThrow(RangeError)
    expect(new RemoteError('demo/odd', 'x').status).toBeUndefined()
  })

  it('turns any other exception into a generic internal error and logs the original', async () => {
    const error = await client().demo.crash().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RemoteError)
    expect(error).toMatchObject({ code: 'internal', message: 'internal error' })
    expect((error as RemoteError).details).toBeUndefined()
    const answer = await raw(live, '/remote/demo/crash', { method: 'POST', headers: authorized(live.token), body: '{"args":[]}' })
    expect(answer.status).toBe(500)
    expect(answer.body).toBe('{"error":{"code":"internal","message":"internal error"}}')
    expect(live.logs.some((line) => line.type === 'warn' && line.text.includes('demo.crash failed') && line.text.includes('the disk is on fire'))).toBe(true)
  })

  it('answers a value that is not JSON with internal and logs why', async () => {
    await expect(client().demo.bigint()).rejects.toMatchObject({ code: 'internal', message: 'internal error' })
    expect(live.logs.some((line) => line.text.includes('demo.bigint returned a value that is not JSON'))).toBe(true)
  })

  it('rejects arguments that are not JSON before sending anything', async () => {
    const seen: string[] = []
    const remote = createRemote<{ demo: Demo }>({ url: live.url, token: live.token, fetch: (input, init) => (seen.push(input), fetch(input, init)) })
    await expect(remote.demo.echo(1n)).rejects.toMatchObject({ code: 'remote/bad-request' })
    expect(seen).toEqual([])
  })

  it('rejects with remote/not-found for a service or method that is not exposed', async () => {
    const remote = createRemote<{ demo: Demo; ghost: { boo(): Promise<void> } }>({ url: live.url, token: live.token })
    await expect(remote.ghost.boo()).rejects.toMatchObject({ code: 'remote/not-found' })
    await expect((remote.demo as unknown as { missing(): Promise<void> }).missing()).rejects.toMatchObject({ code: 'remote/not-found' })
  })

  it('rejects with remote/unauthorized for a wrong token', async () => {
    const remote = createRemote<{ demo: Demo }>({ url: live.url, token: 'not-the-token' })
    await expect(remote.demo.sum(1, 2)).rejects.toMatchObject({ name: 'RemoteError', code: 'remote/unauthorized' })
  })

  it('rejects with remote/unavailable when the server cannot be reached', async () => {
    const gone = await startServer()
    const url = gone.url
    await gone.cleanup()
    const remote = createRemote<{ demo: Demo }>({ url, token: 'whatever' })
    const error = await remote.demo.sum(1, 2).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RemoteError)
    expect(error).toMatchObject({ code: 'remote/unavailable' })
    expect((error as Error).message).toContain(url)
  })

  it('rejects with a generic error for an answer without an envelope', async () => {
    const remote = createRemote<{ demo: Demo }>({
      url: live.url,
      token: live.token,
      fetch: async () => new Response('<html>bad gateway</html>', { status: 502 }),
    })
    await expect(remote.demo.sum(1, 2)).rejects.toMatchObject({ code: 'remote/unavailable', status: 502, message: expect.stringContaining('HTTP 502') })
  })
})
