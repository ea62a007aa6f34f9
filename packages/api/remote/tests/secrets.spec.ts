/**
 * A scan for leaks: a service receives a secret and only ever answers a
 * redacted view of it. Through happy calls, handler refusals, crashes and
 * every kind of refused request (several carrying the secret in their body),
 * the secret must appear in no response body, no event and no log line; the
 * token must appear in no response or event, and in the log only in the one
 * page line.
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRemote, type FetchLike } from '../src/client.ts'
import { RemoteError } from '../src/error.ts'
import type { RemoteEvent } from '../src/types.ts'
import { authorized, raw, startServer, until, type LiveServer } from './harness.ts'

/** The secret value configured for this test; nothing may ever carry it out. */
const SECRET = 'sk-live-5f3a9c1e-TOP-SECRET-d41d8cd98f00'

interface Vault {
  store(key: string, secret: string): Promise<{ key: string; secret: { set: boolean } }>
  describe(): Promise<{ keys: string[]; secrets: Array<{ key: string; set: boolean }> }>
  check(key: string, candidate: string): Promise<true>
  crash(secret: string): Promise<never>
}

let live: LiveServer
const bodies: string[] = []
const events: RemoteEvent[] = []
let rawStreamText = ''
const stop = new AbortController()

beforeAll(async () => {
  live = await startServer()
  const stored = new Map<string, string>()
  await live.expose('vault', {
    store([key, secret]) {
      if (typeof key !== 'string' || typeof secret !== 'string') throw new RemoteError('vault/invalid', 'store takes a key and a secret')
      stored.set(key, secret)
      live.server.broadcast('vault/updated', { key })
      return { key, secret: { set: true } }
    },
    describe: () => ({ keys: [...stored.keys()], secrets: [...stored.keys()].map((key) => ({ key, set: true })) }),
    check([key, candidate]) {
      if (stored.get(key as string) !== candidate) throw new RemoteError('vault/mismatch', 'the secret does not match', { key })
      return true
    },
    crash() {
      // An unexpected failure: its text goes to the log, so it must be written to hold no secret.
      throw new Error('the vault backend is down')
    },
  }, { errors: { 'vault/invalid': 400, 'vault/mismatch': 422 } })
})

afterAll(async () => {
  stop.abort()
  await live.cleanup()
})

/** A fetch that records every answer's body (the open-ended stream is scanned by the raw reader instead). */
const recording: FetchLike = async (input, init) => {
  const response = await fetch(input, init)
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) bodies.push(await response.clone().text())
  return response
}

describe('secret scan', () => {
  it('drives every path with the secret in play', async () => {
    const remote = createRemote<{ vault: Vault }>({ url: live.url, token: live.token, fetch: recording })
    let connected = false
    void remote.events((event) => events.push(event), { signal: stop.signal, connected: () => (connected = true) })
    // A raw reader too, so the scan sees the exact bytes on the wire.
    request({ host: '127.0.0.1', port: live.port, path: '/remote/events', headers: authorized(live.token), agent: false }, (response) => {
      response.setEncoding('utf8').on('data', (chunk: string) => (rawStreamText += chunk))
    })
      .on('error', () => {})
      .end()
    await until(() => connected && live.server.streams === 2, 2000, 'both streams')

    expect(await remote.vault.store('api', SECRET)).toEqual({ key: 'api', secret: { set: true } })
    expect(await remote.vault.describe()).toEqual({ keys: ['api'], secrets: [{ key: 'api', set: true }] })
    expect(await remote.vault.check('api', SECRET)).toBe(true)
    await expect(remote.vault.check('api', `${SECRET}-wrong`)).rejects.toMatchObject({ code: 'vault/mismatch', status: 422, details: { key: 'api' } })
    await expect(remote.vault.crash(SECRET)).rejects.toMatchObject({ code: 'internal', message: 'internal error' })
    await expect((remote.vault.store as (...args: unknown[]) => Promise<unknown>)('api', SECRET, 1n)).rejects.toMatchObject({ code: 'remote/bad-request' })

    const withSecret = JSON.stringify({ args: ['api', SECRET] })
    const refused = [
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token), body: `{"args":["api","${SECRET}" broken` }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token), body: `{"args":[{"__proto__":"${SECRET}"}]}` }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token), body: `{"args":{"secret":"${SECRET}"}}` }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized('wrong'), body: withSecret }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token, { host: 'evil.example' }), body: withSecret }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token, { origin: 'http://evil.example' }), body: withSecret }),
      raw(live, '/remote/vault/missing', { method: 'POST', headers: authorized(live.token), body: withSecret }),
      raw(live, '/remote/vault/store', { method: 'PUT', headers: authorized(live.token), body: withSecret }),
      raw(live, '/remote/vault/store', { method: 'POST', headers: authorized(live.token), body: `{"args":["${SECRET}${'x'.repeat(1024 * 1024)}"]}` }),
      raw(live, `/remote/vault/${encodeURIComponent(SECRET)}`, { method: 'POST', headers: authorized(live.token), body: '{"args":[]}' }),
    ]
    const answers = await Promise.all(refused)
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 401, 403, 403, 404, 405, 413, 404])
    bodies.push(...answers.map((answer) => answer.body), ...answers.map((answer) => JSON.stringify(answer.headers)))

    await until(() => events.length === 1 && rawStreamText.includes('vault/updated'), 2000, 'the event')
  })

  it('finds the secret in no response body, no event and no log line', () => {
    expect(bodies.length).toBeGreaterThan(15)
    for (const body of bodies) expect(body).not.toContain(SECRET)
    expect(events).toEqual([{ id: 1, event: 'vault/updated', data: { key: 'api' } }])
    expect(JSON.stringify(events)).not.toContain(SECRET)
    expect(rawStreamText).not.toContain(SECRET)
    expect(live.logs.length).toBeGreaterThan(1)
    for (const line of live.logs) expect(line.text).not.toContain(SECRET)
    // The crash was logged, without the secret it was called with.
    expect(live.logs.some((line) => line.text.includes('vault.crash failed') && line.text.includes('the vault backend is down'))).toBe(true)
  })

  it('finds the token only in the start line', () => {
    for (const body of bodies) expect(body).not.toContain(live.token)
    expect(JSON.stringify(events)).not.toContain(live.token)
    expect(rawStreamText).not.toContain(live.token)
    expect(live.logs.filter((line) => line.text.includes(live.token))).toEqual([{ type: 'info', text: `API: ${live.url}/#token=${live.token}` }])
  })
})
