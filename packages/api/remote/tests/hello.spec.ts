/**
 * The hello (`POST /remote/hello`): without a token, a server answers a
 * client's nonce with what it is (URL, process, deployment file) and an HMAC
 * of all of it under its token; `verifyHost` and `greetHost` accept that
 * answer only with the right token, for the URL greeted and the deployment
 * asked about. A body that is not one nonce is refused; the Host and Origin
 * checks apply as everywhere; the answer holds nothing of the token.
 */
import { Context } from 'cordis'
import { createHmac } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { greetHost, HostProofError } from '../src/greet.ts'
import { HELLO_PURPOSE, helloKey, helloProof, isNonce, newNonce, verifyHost, type HelloAnswer } from '../src/hello.ts'
import { HOST_FILE } from '../src/host-record.ts'
import { raw, startServer, type LiveServer } from './harness.ts'

const DEPLOYMENT = '/srv/app/cordis.yml'

let live: LiveServer
let bare: LiveServer

beforeAll(async () => {
  // A root as the loader leaves it: the deployment's facts on it before the server starts.
  const root = new Context()
  root.provide('deployment')
  root.set('deployment', { file: DEPLOYMENT, packages: {} })
  live = await startServer({}, root)
  bare = await startServer()
})

afterAll(async () => {
  await live.cleanup()
  await bare.cleanup()
})

const hello = (server: LiveServer, body: string | Buffer, headers: Record<string, string> = {}) =>
  raw(server, '/remote/hello', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

/** Every 8-character slice of `secret`. */
const slices = (secret: string) => Array.from({ length: secret.length - 7 }, (_, index) => secret.slice(index, index + 8))

describe('POST /remote/hello', () => {
  it('answers a nonce without a token: the host it is, and a proof that verifies with the token', async () => {
    const nonce = newNonce()
    const answer = await hello(live, JSON.stringify({ nonce }))
    expect(answer.status).toBe(200)
    const { value } = JSON.parse(answer.body) as { value: HelloAnswer }
    expect(value.host).toEqual({ url: live.url, pid: process.pid, deployment: DEPLOYMENT })
    expect(await verifyHost(live.token, nonce, value, { url: live.url, deployment: DEPLOYMENT })).toEqual({ ok: true, host: value.host })
    for (const slice of slices(live.token)) expect(answer.body + JSON.stringify(answer.headers)).not.toContain(slice)
  })

  it('names the deployment in the host record too, and no deployment for a host no loader started', async () => {
    expect(JSON.parse(await readFile(join(live.home, HOST_FILE), 'utf8'))).toEqual({ url: live.url, pid: process.pid, deployment: DEPLOYMENT })
    expect(JSON.parse(await readFile(join(bare.home, HOST_FILE), 'utf8'))).toEqual({ url: bare.url, pid: process.pid })
    const nonce = newNonce()
    const { value } = JSON.parse((await hello(bare, JSON.stringify({ nonce }))).body) as { value: HelloAnswer }
    expect(value.host).toEqual({ url: bare.url, pid: process.pid })
    // A command always asks about a deployment: a host that names none is never taken for it.
    expect(await verifyHost(bare.token, nonce, value, { url: bare.url, deployment: DEPLOYMENT })).toEqual({ ok: false, reason: 'deployment' })
  })

  it('proves a fresh answer per nonce, under a purpose label: not a bare HMAC of the nonce', async () => {
    const [first, second] = [newNonce(), newNonce()]
    const proofOf = async (nonce: string) => (JSON.parse((await hello(live, JSON.stringify({ nonce }))).body) as { value: HelloAnswer }).value.proof
    const proof = await proofOf(first)
    expect(await proofOf(second)).not.toBe(proof)
    expect(proof).not.toBe(createHmac('sha256', live.token).update(first).digest('base64url'))
    const covered = JSON.stringify([HELLO_PURPOSE, first, live.url, DEPLOYMENT, process.pid])
    expect(proof).toBe(createHmac('sha256', live.token).update(covered).digest('base64url'))
  })

  it.each([
    ['an empty body', ''],
    ['malformed JSON', '{"nonce":'],
    ['an array', JSON.stringify([newNonce()])],
    ['no nonce', '{}'],
    ['a nonce that is not a string', '{"nonce":12345}'],
    ['a short nonce', JSON.stringify({ nonce: newNonce().slice(1) })],
    ['a long nonce', JSON.stringify({ nonce: `${newNonce()}A` })],
    ['a nonce outside base64url', JSON.stringify({ nonce: `${newNonce().slice(0, 42)}=` })],
    ['a nonce with stray low bits', JSON.stringify({ nonce: `${newNonce().slice(0, 42)}B` })],
    ['a key besides the nonce', JSON.stringify({ nonce: newNonce(), token: 'x' })],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
  ])('refuses %s with 400 remote/bad-request, quoting nothing of it', async (_what, body) => {
    const answer = await hello(live, body)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'remote/bad-request', message: 'the hello takes { "nonce": <32 random bytes, base64url> }' } })
  })

  it('takes POST only, checks Host and Origin as every route does, and opens nothing else without the token', async () => {
    const get = await raw(live, '/remote/hello')
    expect([get.status, get.headers.allow]).toEqual([405, 'POST'])
    const body = JSON.stringify({ nonce: newNonce() })
    expect((await hello(live, body, { host: 'evil.example' })).status).toBe(403)
    expect((await hello(live, body, { origin: 'http://evil.example' })).status).toBe(403)
    expect((await hello(live, body, { origin: live.url })).status).toBe(200)
    expect((await raw(live, '/remote/hello/x', { method: 'POST', body })).status).toBe(401)
    expect((await raw(live, '/remote/hello?x', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200)
  })

  it('answers a body over 4 KiB 413 without reading it', async () => {
    const answer = await hello(live, JSON.stringify({ nonce: newNonce(), pad: 'x'.repeat(5000) }))
    expect(answer.status).toBe(413)
  })
})

describe('verifyHost', () => {
  it('refuses a proof made with another token, for another URL or deployment, or of another shape', async () => {
    const nonce = newNonce()
    const host = { url: 'http://127.0.0.1:5140', pid: 42, deployment: DEPLOYMENT }
    const proof = await helloProof(await helloKey('the-token'), nonce, host)
    const expected = { url: host.url, deployment: DEPLOYMENT }
    expect(await verifyHost('the-token', nonce, { host, proof }, expected)).toMatchObject({ ok: true })
    expect(await verifyHost('another-token', nonce, { host, proof }, expected)).toEqual({ ok: false, reason: 'proof' })
    expect(await verifyHost('the-token', newNonce(), { host, proof }, expected)).toEqual({ ok: false, reason: 'proof' })
    // Any field changed after the proof was made breaks it.
    for (const changed of [{ ...host, url: 'http://127.0.0.1:5141' }, { ...host, pid: 43 }, { ...host, deployment: '/other/cordis.yml' }, { url: host.url, pid: host.pid }]) {
      expect(await verifyHost('the-token', nonce, { host: changed, proof }, expected)).toEqual({ ok: false, reason: 'proof' })
    }
    // Proven, but not for what the client asked about.
    expect(await verifyHost('the-token', nonce, { host, proof }, { ...expected, url: 'http://127.0.0.1:9999' })).toEqual({ ok: false, reason: 'url' })
    expect(await verifyHost('the-token', nonce, { host, proof }, { ...expected, deployment: '/other/cordis.yml' })).toEqual({ ok: false, reason: 'deployment' })
    for (const malformed of [undefined, null, 'x', { host }, { proof }, { host: { ...host, pid: '42' }, proof }, { host: { ...host, deployment: 1 }, proof }]) {
      expect(await verifyHost('the-token', nonce, malformed, expected)).toEqual({ ok: false, reason: 'malformed' })
    }
    expect(await verifyHost('the-token', nonce, { host, proof: `${proof}A` }, expected)).toEqual({ ok: false, reason: 'proof' })
  })

  it('makes nonces of 32 random bytes that isNonce takes', () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce))
    expect(nonces.size).toBe(100)
    for (const nonce of nonces) expect(isNonce(nonce) && Buffer.from(nonce, 'base64url').length === 32).toBe(true)
  })
})

/** A listener that passes every request on to `target`, its Host rewritten so the target takes it. */
async function relay(target: LiveServer): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((incoming, outgoing) => {
    const forward = httpRequest(
      { host: '127.0.0.1', port: target.port, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: `127.0.0.1:${target.port}` } },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(outgoing)
      },
    )
    incoming.pipe(forward)
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  }
}

describe('greetHost', () => {
  it('takes the server greeted with its token and deployment, and nothing else', async () => {
    expect(await greetHost({ url: live.url, token: live.token, deployment: DEPLOYMENT })).toEqual({ url: live.url, pid: process.pid, deployment: DEPLOYMENT })
    const refusal = (options: Parameters<typeof greetHost>[0]) => greetHost(options).then(() => undefined, (error: HostProofError) => [error.name, error.code])
    expect(await refusal({ url: live.url, token: bare.token, deployment: DEPLOYMENT })).toEqual(['HostProofError', 'proof'])
    expect(await refusal({ url: live.url, token: live.token, deployment: '/other/cordis.yml' })).toEqual(['HostProofError', 'deployment'])
    // Another kind of listener: the page route answers 404.
    const page = await startServer()
    const pageUrl = page.url
    await page.cleanup()
    const gone = await greetHost({ url: pageUrl, token: live.token, deployment: DEPLOYMENT }).catch((error: HostProofError) => error)
    expect([(gone as HostProofError).code, (gone as HostProofError).detail]).toEqual(['unreachable', 'ECONNREFUSED'])
  })

  it('refuses a relay that passes the hello on to the real server: the proof names the real address', async () => {
    const passing = await relay(live)
    try {
      // The relay does carry calls through (so it could have taken the token).
      expect((await raw({ port: Number(new URL(passing.url).port) }, '/remote/hello', { method: 'POST', body: JSON.stringify({ nonce: newNonce() }) })).status).toBe(200)
      const error = await greetHost({ url: passing.url, token: live.token, deployment: DEPLOYMENT }).catch((caught: HostProofError) => caught)
      expect(error).toBeInstanceOf(HostProofError)
      expect((error as HostProofError).code).toBe('url')
      expect((error as HostProofError).message).not.toContain(live.token)
    } finally {
      await passing.close()
    }
  })

  it('says a listener that is not a server answers no hello, and gives up on one that never answers', async () => {
    const hung = createServer(() => {})
    const other = createServer((_incoming, outgoing) => outgoing.end('<html>not a host</html>'))
    await Promise.all([hung, other].map((server) => new Promise<void>((done) => server.listen(0, '127.0.0.1', done))))
    try {
      const at = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const code = (url: string) => greetHost({ url, token: live.token, deployment: DEPLOYMENT, timeoutMs: 300 }).catch((error: HostProofError) => error.code)
      expect(await code(at(other))).toBe('not-a-hello')
      expect(await code(at(hung))).toBe('timeout')
    } finally {
      hung.closeAllConnections()
      await Promise.all([hung, other].map((server) => new Promise((done) => server.close(done))))
    }
  })
})
