/**
 * A call body nested deeper than MAX_BODY_DEPTH is refused 400 before it is
 * parsed, with a message naming the limit: a 100,000-deep body used to reach
 * `JSON.parse` and its reviver, which recursed once per level.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { decodeArgs, MAX_BODY_DEPTH, nestsDeeperThan } from '../src/body.ts'
import { RemoteError } from '../src/error.ts'
import { authorized, raw, startServer, type LiveServer } from './harness.ts'

/** `{"args":[X]}` where X is `depth` nested arrays: the body nests `depth + 2` deep. */
const nestedArgs = (depth: number) => `{"args":[${'['.repeat(depth)}${']'.repeat(depth)}]}`

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, one level each', () => {
    expect(nestsDeeperThan('[]', 1)).toBe(false)
    expect(nestsDeeperThan('[[]]', 1)).toBe(true)
    expect(nestsDeeperThan('{"a":{"b":[1,{}]}}', 4)).toBe(false)
    expect(nestsDeeperThan('{"a":{"b":[1,{}]}}', 3)).toBe(true)
    expect(nestsDeeperThan('[[],[],[[]]]', 3)).toBe(false)
  })

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`["${'['.repeat(1000)}"]`, 1)).toBe(false)
    expect(nestsDeeperThan(`["\\"${'{'.repeat(1000)}\\\\"]`, 1)).toBe(false)
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).toBe(true)
  })

  it('reads a 100,000-deep text without recursing', () => {
    expect(nestsDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), MAX_BODY_DEPTH)).toBe(true)
  })
})

describe('decodeArgs', () => {
  it('takes a body exactly MAX_BODY_DEPTH deep and refuses one a level deeper, naming the limit', () => {
    expect(MAX_BODY_DEPTH).toBe(256)
    expect(decodeArgs(Buffer.from(nestedArgs(MAX_BODY_DEPTH - 2)))).toHaveLength(1)
    let caught: unknown
    try {
      decodeArgs(Buffer.from(nestedArgs(MAX_BODY_DEPTH - 1)))
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(RemoteError)
    expect(caught).toMatchObject({ code: 'remote/bad-request', message: 'the request body nests arrays and objects deeper than 256 levels' })
  })
})

describe('the server', () => {
  let live: LiveServer
  let calls: unknown[][]

  beforeAll(async () => {
    live = await startServer()
    await live.expose('echo', {
      say(args) {
        calls.push(args)
        return 'called'
      },
    })
  })
  beforeEach(() => {
    calls = []
  })
  afterAll(async () => live.cleanup())

  const post = (body: string) => raw(live, '/remote/echo/say', { method: 'POST', headers: authorized(live.token), body })

  it.each([MAX_BODY_DEPTH - 1, 10_000, 100_000])('refuses a body of %i nested arrays with 400, naming the depth limit, before the handler runs', async (depth) => {
    const answer = await post(nestedArgs(depth))
    expect(answer.status, answer.body).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'remote/bad-request', message: 'the request body nests arrays and objects deeper than 256 levels' } })
    expect(calls).toEqual([])
    expect(live.logs.filter((line) => line.type === 'warn' || line.type === 'error')).toEqual([])
  })

  it('refuses deeply nested objects the same way', async () => {
    const depth = 100_000
    const answer = await post(`{"args":[${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}]}`)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body).error.message).toContain('deeper than 256 levels')
    expect(calls).toEqual([])
  })

  it('answers a body at the limit, and one whose strings hold many brackets', async () => {
    expect((await post(nestedArgs(MAX_BODY_DEPTH - 2))).status).toBe(200)
    const brackets = '['.repeat(100_000)
    const answer = await post(`{"args":["${brackets}"]}`)
    expect(answer.status).toBe(200)
    expect(calls).toEqual([[nestedValue(MAX_BODY_DEPTH - 2)], [brackets]])
  })
})

/** `depth` nested empty arrays as a value. */
function nestedValue(depth: number): unknown {
  let value: unknown[] = []
  for (let level = 1; level < depth; level++) value = [value]
  return value
}
