import pg from 'pg'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually, plugWithSettings } from 'dsh-testing'
import { TEST_PASSWORD } from 'dsh-testing/postgres'
import { SettingsDatabaseError } from 'dsh-settings-postgres'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, writeStore, type Host } from './harness.ts'

// Each test stops or restarts this file's own server, so they run one after another on it.
const holder = useServer()
const Limits = Schema.object({ limit: Schema.number().max(100).default(10), name: Schema.string().default('') })
const TIMEOUT_MS = 1500

const hosts: Host[] = []
afterEach(async () => {
  // A test that stopped the server brings it back before it ends; disposal must not hang either way.
  for (const host of hosts.splice(0)) await host.dispose()
})

async function host(table: string, recheckMs = 0): Promise<Host> {
  const booted = await bootHost({ url: holder.server.url(), table, recheckMs, timeoutMs: TIMEOUT_MS })
  hosts.push(booted)
  await plugWithSettings(booted.root, (ctx) => ctx.settings.register('limits', Limits))
  return booted
}

function expectNoPassword(...texts: string[]): void {
  for (const text of texts) expect(text).not.toContain(TEST_PASSWORD)
}

describe.runIf(HAVE_POSTGRES)('PostgreSQL down, restarted, or cutting connections', () => {
  it('fails writes fast and clearly while the server is down, keeps reads, and converges once it is back, on changes made meanwhile too', async () => {
    const table = freshPrefix()
    const [a, b] = [await host(table), await host(table)]
    await a.settings.update('limits', { limit: 20 })
    await eventually(() => expect(b.settings.get('limits')).toEqual({ limit: 20, name: '' }))

    await holder.server.halt()
    try {
      const began = Date.now()
      const failure = await a.settings.update('limits', { limit: 30 }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(SettingsDatabaseError)
      expect(failure).toMatchObject({ code: 'SETTINGS_DATABASE_UNAVAILABLE', refusal: 'unavailable', store: `127.0.0.1:${holder.server.port}/postgres` })
      expect((failure as Error).message).toContain(`127.0.0.1:${holder.server.port}/postgres`)
      expectNoPassword((failure as Error).message, JSON.stringify(failure))
      // Bounded by the configured timeout (with slack for a loaded machine), never left hanging.
      expect(Date.now() - began).toBeLessThan(TIMEOUT_MS + 5_000)
      expect(a.settings.get('limits')).toEqual({ limit: 20, name: '' })
    } finally {
      await holder.server.start()
    }
    // Written while host b's change feed is still reconnecting: it arrives by the reconnect's catch-up alone (no re-check here).
    await writeStore(holder.server.url(), table, { limits: { limit: 40, name: 'meanwhile' } })
    await eventually(() => expect(a.settings.get('limits')).toEqual({ limit: 40, name: 'meanwhile' }))
    await eventually(() => expect(b.settings.get('limits')).toEqual({ limit: 40, name: 'meanwhile' }))
    await a.settings.update('limits', { limit: 50 })
    await eventually(() => expect(b.settings.get('limits')).toEqual({ limit: 50, name: 'meanwhile' }))
    expectNoPassword(...a.logs, ...b.logs)
  }, 60_000)

  it('survives a restart between writes and every backend being terminated, without a manual step', async () => {
    const table = freshPrefix()
    const [a, b] = [await host(table), await host(table)]
    await a.settings.update('limits', { limit: 1 })
    await holder.server.restart()
    await eventually(() => a.settings.update('limits', { limit: 2 }), 20_000)
    await eventually(() => expect(b.settings.get('limits')).toMatchObject({ limit: 2 }))

    const terminated = await holder.server.sql(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'dsh-settings-postgres'`)
    expect(Number(terminated)).toBeGreaterThanOrEqual(2)
    // While both feeds are reconnecting, another program changes the document.
    await writeStore(holder.server.url(), table, { limits: { limit: 3, name: 'after-kill' } })
    await eventually(() => expect(a.settings.get('limits')).toEqual({ limit: 3, name: 'after-kill' }))
    await eventually(() => expect(b.settings.get('limits')).toEqual({ limit: 3, name: 'after-kill' }))
    // Writes work again on both, and each sees the other's.
    await eventually(() => b.settings.update('limits', { limit: 4 }), 20_000)
    await eventually(() => expect(a.settings.get('limits')).toMatchObject({ limit: 4 }))
    expectNoPassword(...a.logs, ...b.logs)
  }, 60_000)

  it('refuses a write whose connection is cut while it waits for the document lock, and the process lives on', async () => {
    const table = freshPrefix()
    const a = await host(table)
    await a.settings.update('limits', { limit: 11 })
    // Another session holds the document row, so the write waits inside its transaction.
    const holder_ = new pg.Client({ connectionString: holder.server.url(), application_name: 'lock-holder' })
    await holder_.connect()
    try {
      await holder_.query('BEGIN')
      await holder_.query(`SELECT version FROM ${table}_documents WHERE id = 'default' FOR UPDATE`)
      const write = a.settings.update('limits', { limit: 12 }).then(
        () => undefined,
        (error: unknown) => error,
      )
      await eventually(async () => expect(Number(await holder.server.sql(`SELECT count(*) FROM pg_stat_activity WHERE application_name = 'dsh-settings-postgres' AND wait_event_type = 'Lock'`))).toBe(1))
      await holder.server.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh-settings-postgres'`)
      expect(await write).toMatchObject({ code: 'SETTINGS_DATABASE_UNAVAILABLE' })
    } finally {
      await holder_.query('ROLLBACK').catch(() => {})
      await holder_.end()
    }
    // Still alive and writing.
    await eventually(() => a.settings.update('limits', { limit: 13 }), 20_000)
    expect(a.settings.get('limits')).toMatchObject({ limit: 13 })
  }, 60_000)

  it('heals a lost notification by the periodic re-check, and only by it', async () => {
    const table = freshPrefix()
    const [checking, notChecking] = [await host(table, 100), await host(table, 0)]
    await writeStore(holder.server.url(), table, { limits: { limit: 9 } }, 'default', { notify: false })
    await eventually(() => expect(checking.settings.get('limits')).toMatchObject({ limit: 9 }))
    // The host without a re-check has heard nothing, and keeps what it had until the next hint.
    expect(notChecking.settings.get('limits')).toMatchObject({ limit: 10 })
    await checking.settings.update('limits', { name: 'notified' })
    await eventually(() => expect(notChecking.settings.get('limits')).toEqual({ limit: 9, name: 'notified' }))
  })

  it('leaves a stored section its schema refuses out of effect: warned, the last good value kept, the problem described', async () => {
    const table = freshPrefix()
    const a = await host(table, 200)
    await a.settings.update('limits', { limit: 7 })
    await writeStore(holder.server.url(), table, { limits: { limit: 1000 } })
    await eventually(() => expect(a.settings.describe({ ns: 'limits', redactSecrets: true })[0]!.problem).toBeDefined())
    const [view] = a.settings.describe({ ns: 'limits', redactSecrets: true })
    expect(view!.problem!.path).toEqual(['limit'])
    expect(view!.value).toEqual({ limit: 7, name: '' })
    expect(a.settings.get('limits')).toEqual({ limit: 7, name: '' })
    expect(a.logs.some((line) => line.includes('keeping last good'))).toBe(true)
  })
})
