/**
 * The sections table dropped under a running host, then a restart. The
 * provider does not recreate a dropped table by itself (the settings in it
 * would silently start over empty): the running host refuses writes naming
 * the missing table, and a restarted host keeps retrying while the page hears
 * the real cause and remedy over the wire (never "add a provider"). Once the
 * remedy is applied the host starts without another restart.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import RemoteServer, { createRemote, RemoteError, type Remote } from 'dsh-remote'
import SettingsController, { type SettingsRemote } from 'dsh-settings-controller'
import { eventually } from 'dsh-testing'
import { TEST_PASSWORD } from 'dsh-testing/postgres'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { freshPrefix, HAVE_POSTGRES, useServer } from './harness.ts'

const holder = useServer()
const TOKEN = 'test-token-dropped-table-0123'
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A whole host as a deployment runs it: the provider (not awaited), the controller and the wire, with a plugin registering `demo`. */
async function startHost(table: string): Promise<{ remote: Remote<{ settings: SettingsRemote }>; stop(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'dsh-pg-dropped-'))
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const fibers = [
    root.plugin(PostgresSettingsProvider, { url: holder.server.url(), table, recheckMs: 0, timeoutMs: 1500 }),
    root.plugin(SettingsController, { home, opener: false }),
    root.plugin(RemoteServer, { port: 0, home, token: TOKEN }),
    root.inject(['settings'], (ctx) => void ctx.settings.register('demo', Schema.object({ size: Schema.number().default(1) }))),
  ]
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    for (const fiber of fibers.reverse()) await fiber.dispose()
    await rm(home, { recursive: true, force: true })
  }
  cleanups.push(stop)
  await fibers[2]
  let url!: string
  await root.inject(['remoteServer'], (ctx) => {
    url = ctx.remoteServer.url
  })
  return { remote: createRemote<{ settings: SettingsRemote }>({ url, token: TOKEN }), stop }
}

async function wireFailure(call: () => Promise<unknown>): Promise<RemoteError> {
  const error = await call().then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(RemoteError)
  return error as RemoteError
}

describe.runIf(HAVE_POSTGRES)('a table dropped under a running host', () => {
  it('is named, with its remedy, on the wire: before and after a restart; and the host starts once the remedy is applied', async () => {
    const table = freshPrefix()
    const database = `127.0.0.1:${holder.server.port}/postgres`
    const first = await startHost(table)
    await eventually(async () => expect((await first.remote.settings.describe()).namespaces.map((view) => view.ns)).toEqual(['demo']))
    await first.remote.settings.update('demo', { size: 2 })

    await holder.server.sql(`DROP TABLE ${table}_sections`)
    // The running host: a write is refused as unavailable, naming the table and the database.
    const refused = await wireFailure(() => first.remote.settings.update('demo', { size: 3 }))
    expect(refused).toMatchObject({ code: 'settings/unavailable', status: 503, details: { ns: 'demo', reason: 'SETTINGS_DATABASE_TABLES_MISSING' } })
    expect(refused.message).toContain(`the table ${table}_sections of the settings provider is missing in database ${database}`)

    // Restarted: the provider keeps trying, and the page hears why instead of "add the dsh-settings-file plugin".
    await first.stop()
    const second = await startHost(table)
    let starting!: RemoteError
    await eventually(async () => {
      starting = await wireFailure(() => second.remote.settings.describe())
      expect(starting.details).toMatchObject({ reason: 'SETTINGS_DATABASE_TABLES_MISSING' })
    }, 20_000)
    expect(starting).toMatchObject({ code: 'settings/unavailable', status: 503 })
    expect(starting.message).toContain(`the settings provider has not started yet, and keeps trying: the table ${table}_sections of the settings provider is missing in database ${database}`)
    expect(starting.message).toContain(`restore it from a backup, or start over with an empty settings document with DROP TABLE ${table}_documents, ${table}_migrations`)
    expect(starting.message).not.toContain('dsh-settings-file')
    expect(JSON.stringify(starting.toJSON())).not.toContain(TEST_PASSWORD)
    // Nothing was recreated behind the operator's back.
    expect(await holder.server.sql(`SELECT to_regclass('${table}_sections') IS NULL`)).toBe('t')

    // The remedy, applied while the host runs: it starts on its own, on an empty document.
    await holder.server.sql(`DROP TABLE ${table}_documents, ${table}_migrations`)
    await eventually(async () => expect((await second.remote.settings.describe()).namespaces.map((view) => view.ns)).toEqual(['demo']), 60_000)
    await second.remote.settings.update('demo', { size: 4 })
    expect(await holder.server.sql(`SELECT data::text FROM ${table}_sections WHERE ns = 'demo'`)).toBe('{"size": 4}')
  }, 120_000)

  it('with every table dropped, tells the running host to restart, and a restart creates them afresh', async () => {
    const table = freshPrefix()
    const host = await startHost(table)
    await eventually(async () => expect((await host.remote.settings.describe()).namespaces.map((view) => view.ns)).toEqual(['demo']))
    await host.remote.settings.update('demo', { size: 2 })
    await holder.server.sql(`DROP TABLE ${table}_sections, ${table}_documents, ${table}_migrations`)
    const refused = await wireFailure(() => host.remote.settings.update('demo', { size: 3 }))
    expect(refused).toMatchObject({ code: 'settings/unavailable', status: 503, details: { reason: 'SETTINGS_DATABASE_TABLES_MISSING' } })
    expect(refused.message).toBe(
      `the tables ${table}_documents, ${table}_sections and ${table}_migrations of the settings provider are missing in database 127.0.0.1:${holder.server.port}/postgres: restart the host to create them again (its settings then start over empty)`,
    )
    await host.stop()
    const restarted = await startHost(table)
    await eventually(async () => expect((await restarted.remote.settings.describe()).namespaces[0]?.value).toEqual({ size: 1 }), 30_000)
    await restarted.remote.settings.update('demo', { size: 5 })
    expect(await holder.server.sql(`SELECT data::text FROM ${table}_sections WHERE ns = 'demo'`)).toBe('{"size": 5}')
  }, 60_000)
})
