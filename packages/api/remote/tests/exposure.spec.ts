/**
 * `expose` is an effect on the caller's fiber: the service is on the wire
 * while the exposing plugin lives, withdrawn when it is disposed (its running
 * calls aborted), and a name has at most one live exposure. The error codes a
 * service registers give its errors their HTTP statuses, for that service's
 * calls only.
 */
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRemote } from '../src/client.ts'
import { RemoteError, RemoteExposureError } from '../src/error.ts'
import type { RemoteHandlers } from '../src/types.ts'
import { authorized, deferred, raw, startServer, until, type LiveServer } from './harness.ts'

let live: LiveServer

beforeEach(async () => {
  live = await startServer()
})

afterEach(async () => live.cleanup())

const call = (service: string, method: string, args: unknown[] = []) =>
  raw(live, `/remote/${service}/${method}`, { method: 'POST', headers: authorized(live.token), body: JSON.stringify({ args }) })

describe('expose', () => {
  it('withdraws the service when the exposing plugin is disposed', async () => {
    const fiber = await live.expose('clock', { now: () => 42 })
    expect(JSON.parse((await call('clock', 'now')).body)).toEqual({ value: 42 })
    await fiber.dispose()
    const answer = await call('clock', 'now')
    expect(answer.status).toBe(404)
    expect(JSON.parse(answer.body).error.code).toBe('remote/not-found')
  })

  it('lets the name be exposed again once the first exposure is gone', async () => {
    const first = await live.expose('clock', { now: () => 1 })
    await first.dispose()
    await live.expose('clock', { now: () => 2 })
    expect(JSON.parse((await call('clock', 'now')).body)).toEqual({ value: 2 })
  })

  it('refuses a second exposure of a live name, failing the second plugin only', async () => {
    await live.expose('clock', { now: () => 1 })
    let thrown: unknown
    const second = live.root.plugin({
      inject: ['remoteServer'],
      apply(ctx: Context) {
        try {
          ctx.remoteServer.expose('clock', { now: () => 2 })
        } catch (error) {
          thrown = error
          throw error
        }
      },
    })
    await second.await().catch(() => {})
    expect(thrown).toBeInstanceOf(RemoteExposureError)
    expect(thrown).toMatchObject({ code: 'REMOTE_DUPLICATE' })
    expect(JSON.parse((await call('clock', 'now')).body)).toEqual({ value: 1 })
  })

  it('returns a function that withdraws the service early', async () => {
    let withdraw!: () => void
    live.root.plugin({
      inject: ['remoteServer'],
      apply(ctx: Context) {
        withdraw = ctx.remoteServer.expose('clock', { now: () => 1 })
      },
    })
    await until(() => withdraw !== undefined, 2000, 'the plugin')
    expect((await call('clock', 'now')).status).toBe(200)
    withdraw()
    expect((await call('clock', 'now')).status).toBe(404)
  })

  it('refuses malformed or reserved names and handlers that are not functions', async () => {
    const attempt = (service: string, handlers: unknown) => {
      try {
        live.server.expose(service, handlers as RemoteHandlers)
      } catch (error) {
        return error
      }
      return undefined
    }
    for (const service of ['', 'events', 'then', 'constructor', '__proto__', 'a/b', 'a.b', '1abc', 'a b', 'x'.repeat(65)]) {
      expect(attempt(service, {}), service).toMatchObject({ name: 'RemoteExposureError', code: 'REMOTE_BAD_NAME' })
    }
    expect(attempt('ok', { 'a/b': () => 1 })).toMatchObject({ code: 'REMOTE_BAD_NAME' })
    expect(attempt('ok', { then: () => 1 })).toMatchObject({ code: 'REMOTE_BAD_NAME' })
    expect(attempt('ok', { method: 'not a function' })).toMatchObject({ code: 'REMOTE_BAD_HANDLER' })
    expect(attempt('ok', null)).toMatchObject({ code: 'REMOTE_BAD_HANDLER' })
    // Nothing half-registered: the name is still free.
    const fiber = await live.expose('ok', { fine: () => 'yes' })
    expect(JSON.parse((await call('ok', 'fine')).body)).toEqual({ value: 'yes' })
    await fiber.dispose()
  })

  it('refuses malformed error codes, leaving the name free', async () => {
    const attempt = (errors: unknown) => {
      try {
        live.server.expose('coded', { run: () => 1 }, { errors: errors as Record<string, number> })
      } catch (error) {
        return error
      }
      return undefined
    }
    for (const errors of [{ 'coded/x': 200 }, { 'coded/x': 600 }, { 'coded/x': 400.5 }, { 'coded/x': '400' }, { '': 400 }, { 'remote/not-found': 410 }, { internal: 503 }, ['coded/x'], null]) {
      expect(attempt(errors), JSON.stringify(errors)).toMatchObject({ name: 'RemoteExposureError', code: 'REMOTE_BAD_ERRORS' })
    }
    await live.expose('coded', { run: () => 1 }, { errors: { 'coded/x': 409 } })
    expect((await call('coded', 'run')).status).toBe(200)
  })

  it('applies a service’s registered codes to its own calls only', async () => {
    const refuse = (code: string) => () => {
      throw new RemoteError(code, 'no')
    }
    await live.expose('first', { fail: refuse('shared/code') }, { errors: { 'shared/code': 409 } })
    await live.expose('second', { fail: refuse('shared/code') })
    expect((await call('first', 'fail')).status).toBe(409)
    expect((await call('second', 'fail')).status).toBe(500)
  })

  it('forgets the codes with the exposure', async () => {
    const fiber = await live.expose('coded', { fail: () => Promise.reject(new RemoteError('coded/x', 'no')) }, { errors: { 'coded/x': 409 } })
    expect((await call('coded', 'fail')).status).toBe(409)
    await fiber.dispose()
    await live.expose('coded', { fail: () => Promise.reject(new RemoteError('coded/x', 'no')) })
    expect((await call('coded', 'fail')).status).toBe(500)
  })

  it('reaches only the own methods listed at exposure time, never inherited ones', async () => {
    const handlers: RemoteHandlers = { listed: () => 'listed' }
    await live.expose('svc', handlers)
    handlers.later = () => 'later'
    expect((await call('svc', 'listed')).status).toBe(200)
    for (const method of ['later', 'toString', 'hasOwnProperty', 'valueOf', 'constructor', '__proto__']) {
      expect((await call('svc', method)).status, method).toBe(404)
    }
  })

  it('aborts the running calls of a withdrawn service and answers them 503', async () => {
    const started = deferred()
    let reason: unknown
    const fiber = await live.expose('slow', {
      wait: (_args, { signal }) =>
        new Promise((_resolve, reject) => {
          started.resolve()
          signal.addEventListener('abort', () => {
            reason = signal.reason
            reject(new Error('aborted'))
          })
        }),
    })
    const remote = createRemote<{ slow: { wait(): Promise<void> } }>({ url: live.url, token: live.token })
    const pending = remote.slow.wait().catch((error: unknown) => error)
    await started.promise
    await fiber.dispose()
    expect(await pending).toMatchObject({ code: 'remote/unavailable', message: 'the service slow was withdrawn' })
    expect(reason).toMatchObject({ code: 'remote/unavailable' })
    // An abort the server asked for is not the handler's fault: no warning.
    expect(live.logs.filter((line) => line.type === 'warn')).toEqual([])
  })
})
