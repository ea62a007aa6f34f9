import { randomBytes } from 'node:crypto'
import { Context, type Fiber } from 'cordis'
import pg from 'pg'
import type { SettingsDocument, SettingsProvider } from 'dsh-settings'
import { changedSections, getSection } from 'dsh-settings'
import { afterAll, beforeAll } from 'vitest'
import { postgresAvailable, startPostgres, type PostgresServer } from 'dsh-testing/postgres'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { rowsFor } from '../src/rows.ts'
import { statements, tablesFor } from '../src/sql.ts'

/** Whether this machine can run the tests (one loud line when it cannot; a failure under DSH_REQUIRE_POSTGRES=1). */
export const HAVE_POSTGRES = postgresAvailable()

/** One throwaway server for the calling test file, started before its tests and removed after. */
export function useServer(): { readonly server: PostgresServer } {
  const holder = {} as { server: PostgresServer }
  beforeAll(async () => {
    if (HAVE_POSTGRES) holder.server = await startPostgres()
  }, 120_000)
  afterAll(async () => {
    await holder.server?.stop()
  }, 60_000)
  return holder
}

/** A fresh table prefix, so every test has its own tables on the shared server. */
export function freshPrefix(): string {
  return `t_${randomBytes(6).toString('hex')}`
}

/** One host: a cordis root with the provider plugged. */
export interface Host {
  root: Context
  fiber: Fiber
  settings: SettingsProvider
  logs: string[]
  dispose(): Promise<void>
}

/** The provider of a host whose environment is `env` instead of this process's (hosts in one process, each its own). */
function providerWithEnvironment(env: Readonly<Record<string, string | undefined>>): typeof PostgresSettingsProvider {
  return class extends PostgresSettingsProvider {
    protected override get environment() {
      return env
    }
  }
}

/** Boot a provider on `url` under a fresh root (with `env` as its host's environment when given); the caller disposes it. */
export async function bootHost(config: PostgresSettingsProvider.Config, env?: Readonly<Record<string, string | undefined>>): Promise<Host> {
  const root = new Context()
  const logs: string[] = []
  root.logger.exporter({ export: (message) => void logs.push(message.args.map(String).join(' ')) })
  const fiber = root.plugin(env ? providerWithEnvironment(env) : PostgresSettingsProvider, config)
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, fiber, settings, logs, dispose: () => fiber.dispose().then(() => {}) }
}

/**
 * Put `document` into the store as another program would: the tables are
 * made by a provider that boots and leaves, then the rows written directly
 * with the next store version, and the change announced (unless
 * `notify: false`: a notification lost on its way).
 */
export async function writeStore(url: string, table: string, document: SettingsDocument, id = 'default', options: { notify?: boolean } = {}): Promise<void> {
  const tables = tablesFor(table)
  const sql = statements(tables)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const present = (await client.query<{ present: boolean }>(sql.migrationsExist, [tables.migrations])).rows[0]?.present
    if (!present) {
      const host = await bootHost({ url, table, document: id, recheckMs: 0 })
      await host.dispose()
    }
    await client.query('BEGIN')
    await client.query(sql.ensureDocument, [id])
    const version = Number((await client.query<{ version: string }>(sql.lockDocument, [id])).rows[0]!.version) + 1
    const stored = await client.query<{ scope: string; ns: string; data: unknown }>(`SELECT scope, ns, data FROM ${tables.sections} WHERE document = $1 AND data IS NOT NULL`, [id])
    const before: SettingsDocument = {}
    for (const row of stored.rows) {
      if (row.scope === '') before[row.ns] = row.data
      else ((((before.scopes ??= {}) as Record<string, Record<string, unknown>>)[row.scope] ??= {})[row.ns] = row.data)
    }
    const rows = rowsFor(changedSections(before, document).map((key) => ({ ...key, section: getSection(document, key.ns, key.scope) })), version)
    await client.query(sql.upsertSections, [id, rows.map((r) => r.scope), rows.map((r) => r.ns), rows.map((r) => (r.data === null ? null : JSON.stringify(r.data))), version])
    await client.query(sql.advanceDocument, [id, version])
    if (options.notify !== false) await client.query(sql.notify, [tables.channel, JSON.stringify({ document: id, version })])
    await client.query('COMMIT')
  } finally {
    await client.end()
  }
}
