/**
 * The token compare is constant-time: every candidate, whatever its length
 * or how much of the token it matches, and a missing header too, goes
 * through one `crypto.timingSafeEqual` of two equal-length (32-byte)
 * digests; a plain `===` never decides.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { bearerCheck, bearerMatches } from '../src/auth.ts'
import { authorized, raw, startServer, type LiveServer } from './harness.ts'

/** Every `timingSafeEqual` call's buffer lengths, and how many digests were started. */
const compares = vi.hoisted(() => ({ calls: [] as Array<[number, number]>, hashes: 0 }))

vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>()
  return {
    ...crypto,
    createHash: ((...args: Parameters<typeof crypto.createHash>) => {
      compares.hashes++
      return crypto.createHash(...args)
    }) as typeof crypto.createHash,
    timingSafeEqual: ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compares.calls.push([a.byteLength, b.byteLength])
      return crypto.timingSafeEqual(a, b)
    }) as typeof crypto.timingSafeEqual,
  }
})

const TOKEN = 'the-configured-token-0123456789abcdef'

beforeEach(() => {
  compares.calls.length = 0
  compares.hashes = 0
})

describe('bearerMatches', () => {
  const candidates: Array<[string, string | undefined, boolean]> = [
    ['the token', `Bearer ${TOKEN}`, true],
    ['the token, scheme in lower case', `bearer ${TOKEN}`, true],
    ['no header', undefined, false],
    ['an empty header', '', false],
    ['a short guess', 'Bearer x', false],
    ['a long guess', `Bearer ${TOKEN}${TOKEN}`, false],
    ['an equal-length guess differing in the last character', `Bearer ${TOKEN.slice(0, -1)}X`, false],
    ['a prefix', `Bearer ${TOKEN.slice(0, 8)}`, false],
    ['another scheme carrying the token', `Basic ${TOKEN}`, false],
  ]

  it.each(candidates)('decides %s through one timingSafeEqual of two 32-byte digests', (_what, header, expected) => {
    expect(bearerMatches(header, TOKEN)).toBe(expected)
    expect(compares.calls).toEqual([[32, 32]])
  })
})

describe('bearerCheck', () => {
  it('digests the token once, then one candidate per check, and decides as bearerMatches does', () => {
    const check = bearerCheck(TOKEN)
    expect(compares.hashes).toBe(1)
    const headers = [`Bearer ${TOKEN}`, undefined, 'Bearer x', `Bearer ${TOKEN.slice(0, -1)}X`, `Basic ${TOKEN}`, `bearer ${TOKEN}  `]
    const verdicts = headers.map((header) => check(header))
    expect(compares.hashes).toBe(1 + headers.length)
    expect(compares.calls).toEqual(headers.map(() => [32, 32]))
    expect(verdicts).toEqual([true, false, false, false, false, true])
    expect(verdicts).toEqual(headers.map((header) => bearerMatches(header, TOKEN)))
  })
})

describe('the server', () => {
  let live: LiveServer

  beforeAll(async () => {
    live = await startServer({ token: TOKEN })
    await live.expose('echo', { say: (args) => args[0] })
  })

  afterAll(async () => live.cleanup())

  it('compares every presented token in constant time, digesting only the candidate per request', async () => {
    for (const token of [TOKEN, 'x', `${TOKEN}x`, TOKEN.replace(/.$/, 'X')]) {
      compares.calls.length = 0
      compares.hashes = 0
      const answer = await raw(live, '/remote/echo/say', { method: 'POST', headers: authorized(token), body: '{"args":[1]}' })
      expect(answer.status).toBe(token === TOKEN ? 200 : 401)
      expect(compares.calls).toEqual([[32, 32]])
      expect(compares.hashes).toBe(1)
    }
  })
})
