/**
 * Every refusal of the protocol, sent raw through `node:http` (which, unlike
 * `fetch`, can send any Host, Origin and unnormalized path): status, error
 * code, the common headers, and that nothing of a refused request reached
 * the exposed service.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES } from '../src/body.ts'
import { authorized, raw, startServer, type LiveServer, type RawResponse } from './harness.ts'

let live: LiveServer
let calls: unknown[][]

beforeAll(async () => {
  live = await startServer({ allowedHosts: ['dsh.example', 'proxy.example:8443'] })
  await live.expose('echo', {
    say(args) {
      calls.push(args)
      return args[0]
    },
  })
})

beforeEach(() => {
  calls = []
})

afterAll(async () => live.cleanup())

const host = () => `127.0.0.1:${live.port}`
const post = (body: string | Buffer, headers: Record<string, string> = {}, path = '/remote/echo/say') =>
  raw(live, path, { method: 'POST', headers: { ...authorized(live.token), ...headers }, body })

/** Assert a refusal: status, code, common headers, and no call reached the service. */
function expectRefused(answer: RawResponse, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status)
  expect(JSON.parse(answer.body)).toMatchObject({ error: { code, message: expect.any(String) } })
  expect(answer.headers['cache-control']).toBe('no-store')
  expect(answer.headers['x-content-type-options']).toBe('nosniff')
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
  expect(calls).toEqual([])
}

describe('the happy path these refusals deviate from', () => {
  it('answers a well-formed call 200 with the common headers', async () => {
    const answer = await post('{"args":["hi"]}')
    expect(answer.status).toBe(200)
    expect(JSON.parse(answer.body)).toEqual({ value: 'hi' })
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect(calls).toEqual([['hi']])
  })
})

describe('400 remote/bad-request', () => {
  it.each([
    ['malformed JSON', '{"args":['],
    ['an empty body', ''],
    ['a body that is an array', '["hi"]'],
    ['a body that is a string', '"hi"'],
    ['a body that is null', 'null'],
    ['a body without args', '{}'],
    ['args that is an object', '{"args":{"0":"hi"}}'],
    ['args that is a string', '{"args":"hi"}'],
    ['args that is null', '{"args":null}'],
  ])('for %s', async (_what, body) => {
    expectRefused(await post(body), 400, 'remote/bad-request')
  })

  it('for a body that is not UTF-8', async () => {
    expectRefused(await post(Buffer.from([0x7b, 0x22, 0x61, 0x72, 0x67, 0x73, 0x22, 0x3a, 0x5b, 0x22, 0xff, 0xfe, 0x22, 0x5d, 0x7d])), 400, 'remote/bad-request')
  })

  it('without repeating any of the body in its message', async () => {
    const answer = await post('{"args":["needle-in-the-body" oops]}')
    expectRefused(answer, 400, 'remote/bad-request')
    expect(answer.body).not.toContain('needle')
  })
})

describe('400 for prototype keys anywhere in the body', () => {
  it.each([
    ['__proto__ in an argument', '{"args":[{"__proto__":{"polluted":true}}]}'],
    ['constructor in an argument', '{"args":[{"constructor":{"prototype":{"polluted":true}}}]}'],
    ['prototype deep inside', '{"args":[{"a":[{"b":{"prototype":1}}]}]}'],
    ['__proto__ beside args', '{"args":[],"__proto__":{"polluted":true}}'],
    ['constructor beside args', '{"constructor":1,"args":[]}'],
    ['__proto__ spelled with an escape', '{"args":[{"\\u005f_proto__":{"polluted":true}}]}'],
    ['prototype inside an array inside an array', '{"args":[[[1,{"ok":[{"prototype":2}]}]]]}'],
  ])('refuses %s before the handler runs', async (_what, body) => {
    const answer = await post(body)
    expectRefused(answer, 400, 'remote/bad-request')
    expect(JSON.parse(answer.body).error.message).toContain('reserved key')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('accepts those words as values', async () => {
    const answer = await post('{"args":["__proto__",["constructor"],{"key":"prototype"}]}')
    expect(answer.status).toBe(200)
    expect(calls).toEqual([['__proto__', ['constructor'], { key: 'prototype' }]])
  })
})

describe('404 remote/not-found', () => {
  it.each([
    ['an unknown service', '/remote/nope/say'],
    ['an unknown method', '/remote/echo/shout'],
    ['an inherited method', '/remote/echo/toString'],
    ['a prototype key as method', '/remote/echo/__proto__'],
    ['a route with one segment', '/remote/echo'],
    ['a route with three segments', '/remote/echo/say/more'],
    ['the bare prefix', '/remote'],
    ['the prefix with a slash', '/remote/'],
    ['a segment that does not decode', '/remote/echo/%E0%A4%A'],
    ['an encoded slash', '/remote/echo%2Fsay/x'],
  ])('for %s', async (_what, path) => {
    expectRefused(await post('{"args":["hi"]}', {}, path), 404, 'remote/not-found')
  })

  it('for any page when no static directory is configured', async () => {
    expectRefused(await raw(live, '/'), 404, 'remote/not-found')
    expectRefused(await raw(live, '/index.html'), 404, 'remote/not-found')
  })
})

describe('405 remote/method-not-allowed', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('for %s on a call route, with Allow: POST', async (method) => {
    const answer = await raw(live, '/remote/echo/say', { method, headers: authorized(live.token), body: method === 'GET' ? undefined : '{"args":["hi"]}' })
    expectRefused(answer, 405, 'remote/method-not-allowed')
    expect(answer.headers.allow).toBe('POST')
  })

  it('for POST on the event stream, with Allow: GET', async () => {
    const answer = await post('{"args":[]}', {}, '/remote/events')
    expectRefused(answer, 405, 'remote/method-not-allowed')
    expect(answer.headers.allow).toBe('GET')
  })
})

describe('413 remote/too-large', () => {
  it('for a declared length over 1 MiB, without reading it', async () => {
    const body = Buffer.alloc(MAX_BODY_BYTES + 1, 0x20)
    expectRefused(await post(body), 413, 'remote/too-large')
  })

  it('for a chunked body that grows past 1 MiB', async () => {
    const answer = await new Promise<RawResponse>((resolve, reject) => {
      const outgoing = request({ host: '127.0.0.1', port: live.port, path: '/remote/echo/say', method: 'POST', headers: authorized(live.token), agent: false }, (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body += chunk.toString()))
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
      })
      // The server may close before all is sent: that is the point.
      outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)))
      outgoing.write('{"args":["')
      const chunk = Buffer.alloc(64 * 1024, 0x61)
      let sent = 0
      const pump = () => {
        while (sent <= MAX_BODY_BYTES + chunk.length) {
          sent += chunk.length
          if (!outgoing.write(chunk)) return void outgoing.once('drain', pump)
        }
        outgoing.end('"]}')
      }
      pump()
    })
    expectRefused(answer, 413, 'remote/too-large')
  })

  it('accepts a body just under the limit', async () => {
    const text = 'a'.repeat(MAX_BODY_BYTES - '{"args":[""]}'.length)
    const answer = await post(`{"args":["${text}"]}`)
    expect(answer.status).toBe(200)
    expect(calls).toEqual([[text]])
  })
})

describe('401 remote/unauthorized', () => {
  it.each([
    ['no Authorization header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a bare token', 'TOKEN'],
    ['a wrong token', 'Bearer wrong'],
    ['the token with a suffix', 'Bearer TOKENx'],
    ['a prefix of the token', 'Bearer TOKEN-PREFIX'],
    ['the token twice', 'Bearer TOKEN TOKEN'],
  ])('for %s, with WWW-Authenticate: Bearer', async (_what, header) => {
    const value = header?.replace('TOKEN-PREFIX', live.token.slice(0, 10)).replaceAll('TOKEN', live.token)
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(value === undefined ? {} : { authorization: value }) }
    const answer = await raw(live, '/remote/echo/say', { method: 'POST', headers, body: '{"args":["hi"]}' })
    expectRefused(answer, 401, 'remote/unauthorized')
    expect(answer.headers['www-authenticate']).toBe('Bearer')
  })

  it('on every /remote/ route, the stream and unknown routes included', async () => {
    for (const [method, path] of [
      ['GET', '/remote/events'],
      ['POST', '/remote/nope/nope'],
      ['GET', '/remote/echo/say'],
      ['GET', '/remote'],
    ] as const) {
      expectRefused(await raw(live, path, { method }), 401, 'remote/unauthorized')
    }
  })

  it('accepts the scheme in any case', async () => {
    const answer = await raw(live, '/remote/echo/say', { method: 'POST', headers: { authorization: `bearer ${live.token}` }, body: '{"args":["hi"]}' })
    expect(answer.status).toBe(200)
  })
})

describe('403 remote/forbidden for a foreign Host', () => {
  const refusedHosts = () => ['evil.example', `evil.example:${live.port}`, '127.0.0.1', `127.0.0.1:${live.port + 1}`, `localhost.evil.example:${live.port}`, `dsh.example:${live.port}x`, 'proxy.example']

  it('refuses each, before looking at the token', async () => {
    for (const value of refusedHosts()) {
      expectRefused(await post('{"args":["hi"]}', { host: value }), 403, 'remote/forbidden')
      // Without a token too: a foreign host learns nothing, not even that a token is needed.
      expectRefused(await raw(live, '/remote/echo/say', { method: 'POST', headers: { host: value }, body: '{"args":["hi"]}' }), 403, 'remote/forbidden')
    }
  })

  it('refuses a request without Host', async () => {
    expectRefused(await raw(live, '/remote/echo/say', { method: 'POST', headers: authorized(live.token), body: '{"args":["hi"]}', noHost: true }), 403, 'remote/forbidden')
  })

  it('accepts the loopback names with the port, and allowedHosts entries', async () => {
    for (const value of [`127.0.0.1:${live.port}`, `localhost:${live.port}`, `LOCALHOST:${live.port}`, `[::1]:${live.port}`, 'dsh.example', `dsh.example:${live.port}`, 'proxy.example:8443']) {
      const answer = await post('{"args":["hi"]}', { host: value })
      expect(answer.status, value).toBe(200)
    }
  })
})

describe('403 remote/forbidden for a foreign Origin', () => {
  it('refuses origins that are not http:// plus an allowed host', async () => {
    for (const origin of ['http://evil.example', `http://evil.example:${live.port}`, `https://127.0.0.1:${live.port}`, `http://127.0.0.1:${live.port + 1}`, 'null', `http://127.0.0.1:${live.port}/`, `file://`]) {
      expectRefused(await post('{"args":["hi"]}', { origin }), 403, 'remote/forbidden')
    }
  })

  it('refuses a foreign Origin on the stream and on pages too', async () => {
    expectRefused(await raw(live, '/remote/events', { headers: { ...authorized(live.token), origin: 'http://evil.example' } }), 403, 'remote/forbidden')
    expectRefused(await raw(live, '/', { headers: { origin: 'http://evil.example' } }), 403, 'remote/forbidden')
  })

  it('accepts a missing Origin and http:// plus any allowed host', async () => {
    for (const origin of [`http://${host()}`, `http://localhost:${live.port}`, `http://[::1]:${live.port}`, 'http://dsh.example', 'http://proxy.example:8443']) {
      expect((await post('{"args":["hi"]}', { origin })).status, origin).toBe(200)
    }
  })
})

describe('requests Node cannot parse', () => {
  it('answer 400 with the common headers', async () => {
    const { connect } = await import('node:net')
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(live.port, '127.0.0.1', () => socket.write('GARBAGE\r\n\r\n'))
      let data = ''
      socket.on('data', (chunk) => (data += chunk.toString()))
      socket.on('end', () => resolve(data))
      socket.on('error', reject)
    })
    expect(text).toMatch(/^HTTP\/1\.1 400 /)
    expect(text).toContain('Cache-Control: no-store')
    expect(text).toContain('X-Content-Type-Options: nosniff')
  })
})
