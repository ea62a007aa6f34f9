/**
 * `RemoteClient` provides `ctx.remote` for client-side cordis apps: the same
 * proxy `createRemote` builds, reachable through cordis's service tracing.
 */
import { Context } from 'cordis'
import { afterEach, expect, it } from 'vitest'
import { RemoteClient } from '../src/client-plugin.ts'
import type { Remote, RemoteEvent } from '../src/types.ts'
import { exposeEcho } from './echo.ts'
import { startServer, until, type LiveServer } from './harness.ts'

type Echo = Remote<{ echo: { say(text: string): Promise<string> } }>

let live: LiveServer | undefined
afterEach(async () => live?.cleanup())

it('provides ctx.remote, which calls the server and reads its stream, and goes away with the plugin', async () => {
  live = await startServer()
  await live.root.plugin({ inject: ['remoteServer'], apply: exposeEcho })

  const app = new Context()
  const fiber = app.plugin(RemoteClient, { url: live.url, token: live.token })
  await fiber
  let remote!: Echo
  await app.inject(['remote'], (ctx) => {
    remote = ctx.remote as unknown as Echo
  })
  expect(await remote.echo.say('through cordis')).toBe('through cordis')

  const controller = new AbortController()
  const seen: RemoteEvent[] = []
  let connected = false
  const done = remote.events((event) => seen.push(event), { signal: controller.signal, connected: () => (connected = true) })
  await until(() => connected, 2000, 'the stream')
  await remote.echo.say('heard')
  await until(() => seen.length === 1, 2000, 'the event')
  expect(seen).toEqual([{ id: 2, event: 'echo/said', data: { text: 'heard' } }])
  controller.abort()
  await done

  await fiber.dispose()
  expect(app.get('remote')).toBeUndefined()
})

it('refuses a config without url or token', async () => {
  const app = new Context()
  const fiber = app.plugin(RemoteClient, { url: 'http://127.0.0.1:1' } as RemoteClient.Config)
  await expect(fiber.await()).rejects.toThrow()
})
