/**
 * PostgreSQL unreachable when the host starts. The provider retries with
 * backoff, one warning line per attempt naming the database and user (never
 * the password); plugins that inject `settings` start once the first load
 * succeeds, without a restart; and a provider disposed while it retries stops
 * at once, leaving no wait behind.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RemoteError } from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import { deferred, drainMicrotasks, eventually, logText } from 'dsh-testing'
import { TEST_PASSWORD } from 'dsh-testing/postgres'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { freshPrefix, HAVE_POSTGRES, useServer, writeStore } from './harness.ts'

/** Every wait between start attempts, as the provider took it. */
const waits = vi.hoisted(() => [] as { ms: number; state: 'waiting' | 'elapsed' | 'aborted' }[])

vi.mock('../src/pause.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/pause.ts')>()
  return {
    pause: (ms: number, signal: AbortSignal) => {
      const wait = { ms, state: 'waiting' as 'waiting' | 'elapsed' | 'aborted' }
      waits.push(wait)
      return actual.pause(ms, signal).then(() => {
        wait.state = signal.aborted ? 'aborted' : 'elapsed'
      })
    },
  }
})

// Each test halts and starts this file's own server, so they run one after another on it.
const holder = useServer()
const Demo = Schema.object({ size: Schema.number().default(1) })
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  waits.splice(0)
})

/** A host whose provider is plugged but not awaited: it may be retrying. */
function startHost(table: string): { root: Context; fiber: Fiber; logs: string[]; errors: string[]; attempts: () => string[] } {
  const root = new Context()
  const [logs, errors] = [[] as string[], [] as string[]]
  root.logger.exporter({
    export: (message) => {
      const text = message.args.map(logText).join(' ')
      logs.push(text)
      if (message.type === 'error') errors.push(text)
    },
  })
  const fiber = root.plugin(PostgresSettingsProvider, { url: holder.server.url(), table, recheckMs: 0, timeoutMs: 1500 })
  cleanups.push(() => fiber.dispose())
  return { root, fiber, logs, errors, attempts: () => logs.filter((line) => /\(user postgres; attempt \d+, next in/.test(line)) }
}

describe.runIf(HAVE_POSTGRES)('PostgreSQL unreachable at start', () => {
  it('retries with backoff, one line per attempt, then starts the plugins that inject settings once it answers', async () => {
    const table = freshPrefix()
    await writeStore(holder.server.url(), table, { demo: { size: 7 } })
    await holder.server.halt()
    let restarted = false
    try {
      const host = startHost(table)
      const home = await mkdtemp(join(tmpdir(), 'dsh-pg-start-'))
      cleanups.push(() => rm(home, { recursive: true, force: true }))
      host.root.plugin(SettingsController, { home, opener: false })
      let controller!: SettingsController
      await host.root.inject(['settingsController'], (ctx) => {
        controller = ctx.settingsController
      })
      const read = deferred<unknown>()
      let bodyRuns = 0
      host.root.inject(['settings'], (ctx) => {
        bodyRuns++
        read.resolve(ctx.settings.register('demo', Demo).get())
      })

      await eventually(() => expect(host.attempts().length).toBeGreaterThanOrEqual(3), 30_000)
      const lines = host.attempts().slice(0, 3)
      lines.forEach((line, index) => {
        expect(line).toMatch(
          new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${holder.server.port}/postgres could not be reached to create or migrate its tables: ECONNREFUSED \\(user postgres; attempt ${index + 1}, next in \\d+\\.\\d s\\)$`),
        )
      })
      for (const line of host.logs) {
        expect(line).not.toContain(TEST_PASSWORD)
        expect(line).not.toContain('postgres://')
        expect(line).not.toContain('\n')
      }
      // 0.5 s doubling, each less up to a quarter at random.
      waits.slice(0, 3).forEach((wait, index) => {
        expect(wait.ms).toBeGreaterThanOrEqual(375 * 2 ** index)
        expect(wait.ms).toBeLessThanOrEqual(500 * 2 ** index)
      })
      // Still starting: the service is not available, the injecting plugin has not run.
      expect(host.fiber.state).toBe(1 /* LOADING */)
      expect(bodyRuns).toBe(0)
      // And the configuration page hears why, not "add a provider".
      const answer = await Promise.resolve()
        .then(() => controller.describe())
        .catch((error: unknown) => error)
      expect(answer).toBeInstanceOf(RemoteError)
      expect(answer).toMatchObject({ code: 'settings/unavailable', details: { reason: 'SETTINGS_DATABASE_UNAVAILABLE' } })
      expect((answer as Error).message).toContain(`PostgreSQL at 127.0.0.1:${holder.server.port}/postgres could not be reached`)
      expect((answer as Error).message).not.toContain('dsh-settings-file')
      expect(JSON.stringify((answer as RemoteError).toJSON())).not.toContain(TEST_PASSWORD)

      await holder.server.start()
      restarted = true
      // The host recovers by itself: the plugin runs and reads the stored value.
      expect(await read.promise).toEqual({ size: 7 })
      expect(bodyRuns).toBe(1)
      expect(host.fiber.state).toBe(2 /* ACTIVE */)
      expect(host.errors).toEqual([])
      expect(host.logs.some((line) => /answered after \d+ failed attempts: the settings document is loaded/.test(line))).toBe(true)
      expect(controller.describe().namespaces.find((view) => view.ns === 'demo')?.value).toEqual({ size: 7 })
      await controller.update('demo', { size: 8 })
      expect(await holder.server.sql(`SELECT data::text FROM ${table}_sections WHERE ns = 'demo'`)).toBe('{"size": 8}')
    } finally {
      if (!restarted) await holder.server.start()
    }
  }, 90_000)

  it('stops retrying at once when disposed, leaving no wait behind and never starting the plugins', async () => {
    await holder.server.halt()
    try {
      const host = startHost(freshPrefix())
      let bodyRuns = 0
      host.root.inject(['settings'], () => {
        bodyRuns++
      })
      await eventually(() => expect(host.attempts().length).toBeGreaterThanOrEqual(2), 30_000)
      expect(waits.at(-1)?.state).toBe('waiting')

      await host.fiber.dispose()
      expect(host.fiber.state).toBe(4 /* DISPOSED */)
      expect(waits.length).toBeGreaterThanOrEqual(2)
      expect(waits.every((wait) => wait.state !== 'waiting')).toBe(true)
      expect(waits.at(-1)?.state).toBe('aborted')
      const [attempts, taken] = [host.attempts().length, waits.length]
      await drainMicrotasks()
      expect(host.attempts().length).toBe(attempts)
      expect(waits.length).toBe(taken)
      expect(bodyRuns).toBe(0)
      // Disposal is quiet: no error line (a start that threw would have logged its stack here).
      expect(host.errors).toEqual([])
    } finally {
      await holder.server.start()
    }
  }, 60_000)
})
