import { Context } from 'cordis'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import type { SettingsProvider } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer } from './harness.ts'

const holder = useServer()

describe.runIf(HAVE_POSTGRES)('tables and migrations', () => {
  it('creates its tables in an empty database, and a later boot of this version migrates nothing', async () => {
    const table = freshPrefix()
    const first = await bootHost({ url: holder.server.url(), table, recheckMs: 0 })
    await first.dispose()
    expect(await holder.server.sql(`SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE '${table}%'`)).toBe(
      [`${table}_documents`, `${table}_migrations`, `${table}_sections`].join(','),
    )
    const applied = await holder.server.sql(`SELECT version || '@' || applied_at FROM ${table}_migrations`)
    const second = await bootHost({ url: holder.server.url(), table, recheckMs: 0 })
    await second.dispose()
    expect(await holder.server.sql(`SELECT version || '@' || applied_at FROM ${table}_migrations`)).toBe(applied)
    expect(await holder.server.sql(`SELECT id || ':' || version FROM ${table}_documents`)).toBe('default:0')
  })

  it('runs one migration when several hosts boot at once', async () => {
    const table = freshPrefix()
    const hosts = await Promise.all(Array.from({ length: 4 }, () => bootHost({ url: holder.server.url(), table, recheckMs: 0 })))
    try {
      expect(await holder.server.sql(`SELECT count(*) FROM ${table}_migrations`)).toBe('1')
      expect(await holder.server.sql(`SELECT count(*) FROM ${table}_documents`)).toBe('1')
    } finally {
      for (const host of hosts) await host.dispose()
    }
  })

  it('keeps several documents apart in one database', async () => {
    const table = freshPrefix()
    const a = await bootHost({ url: holder.server.url(), table, document: 'a', recheckMs: 100 })
    const b = await bootHost({ url: holder.server.url(), table, document: 'b', recheckMs: 100 })
    try {
      const Demo = Schema.object({ value: Schema.number().default(0) })
      await plugWithSettings(a.root, (ctx) => ctx.settings.register('demo', Demo))
      await plugWithSettings(b.root, (ctx) => ctx.settings.register('demo', Demo))
      await a.settings.update('demo', { value: 1 })
      await b.settings.update('demo', { value: 2 })
      // Long enough for notifications and several re-checks to have arrived.
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(a.settings.get('demo')).toEqual({ value: 1 })
      expect(b.settings.get('demo')).toEqual({ value: 2 })
      expect(await holder.server.sql(`SELECT string_agg(id || ':' || version, ',' ORDER BY id) FROM ${table}_documents`)).toBe('a:1,b:1')
    } finally {
      await a.dispose()
      await b.dispose()
    }
  })

  it('reports a dropped migrations table instead of migrating over the tables that remain, and creates nothing', async () => {
    const table = freshPrefix()
    const first = await bootHost({ url: holder.server.url(), table, recheckMs: 0 })
    await first.dispose()
    await holder.server.sql(`DROP TABLE ${table}_migrations`)
    const root = new Context()
    root.logger.exporter({ export: () => {} })
    const fiber = root.plugin(PostgresSettingsProvider, { url: holder.server.url(), table, recheckMs: 0 })
    try {
      await eventually(() => {
        const provider = root.reflect.get('settings', false) as SettingsProvider | undefined
        expect(provider?.startFailure).toMatchObject({ code: 'SETTINGS_DATABASE_TABLES_MISSING', missing: [`${table}_migrations`], remaining: [`${table}_documents`, `${table}_sections`] })
      })
      expect(fiber.state).toBe(1 /* LOADING: still trying */)
      expect(await holder.server.sql(`SELECT to_regclass('${table}_migrations') IS NULL`)).toBe('t')
    } finally {
      await fiber.dispose()
    }
  })
})
