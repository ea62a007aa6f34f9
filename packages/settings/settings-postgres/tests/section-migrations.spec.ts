/**
 * Versioned sections on PostgreSQL: two hosts registering the new version of
 * a plugin at once write each stored section's migration back once (the
 * second host's write finds the store moved, derives again and finds nothing
 * left to do), and a user's edit arriving at the same moment is kept.
 */
import { randomBytes } from 'node:crypto'
import Schema from 'schemastery'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { SECTION_VERSION_KEY, type SettingsMigration, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, writeStore, type Host } from './harness.ts'
import { tablesFor } from '../src/sql.ts'

const holder = useServer()
const started: Host[] = []
afterEach(async () => {
  for (const host of started.splice(0)) await host.dispose()
})

const SECRET = 'sk-pg-secret-1f0a93'
const SCOPED = 'sk-pg-scoped-66b2e1'
const Search = Schema.object({ token: Schema.string().role('secret'), limit: Schema.natural().default(10), engine: Schema.string().default('bing') })
const RENAME: SettingsMigration[] = [{ op: 'move', from: 'apiKey', to: 'token' }]

/** Every transaction a host's provider stored (not the ones that found the store moved). */
function recordStores(host: Host): { handed: SettingsTransaction[]; stored: SettingsTransaction[] } {
  const record = { handed: [] as SettingsTransaction[], stored: [] as SettingsTransaction[] }
  const provider = host.settings as unknown as { store(transaction: SettingsTransaction): Promise<SettingsStoreResult> }
  const store = provider.store.bind(provider)
  Object.assign(provider, {
    store: async (transaction: SettingsTransaction) => {
      record.handed.push(transaction)
      const result = await store(transaction)
      if (!(result && result.moved === true)) record.stored.push(transaction)
      return result
    },
  })
  return record
}

/** How many stored transactions took a section from no version to version 1: its migrations. */
function migrationsOf(transactions: readonly SettingsTransaction[], scope?: string): number {
  const isOld = (section: unknown) => typeof section === 'object' && section !== null && !(SECTION_VERSION_KEY in section)
  return transactions.filter((transaction) => {
    const read = transaction.reads.find((entry) => entry.ns === 'search' && entry.scope === scope)
    const change = transaction.changes.find((entry) => entry.ns === 'search' && entry.scope === scope)
    return read && change && isOld(read.section) && (change.section as Record<string, unknown>)[SECTION_VERSION_KEY] === 1
  }).length
}

describe.runIf(HAVE_POSTGRES)('two hosts registering a new version of a plugin at once', () => {
  it('migrate each stored section once, and keep a user edit made at the same moment', async () => {
    const url = holder.server.url()
    const table = freshPrefix()
    await writeStore(url, table, { search: { apiKey: SECRET, limit: 5 }, scopes: { 'preset/coder': { search: { apiKey: SCOPED } } } })
    // The migration writes the secret again: sealed under the deployment's key, as every secret a row holds.
    const env = { DSH_SETTINGS_SECRET_KEY: randomBytes(32).toString('hex') }
    const a = await bootHost({ url, table, recheckMs: 1000 }, env)
    const b = await bootHost({ url, table, recheckMs: 1000 }, env)
    started.push(a, b)
    const onA = recordStores(a)
    const onB = recordStores(b)
    const register = (host: Host) => plugWithSettings(host.root, (ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    const [{ value: searchA }, { value: searchB }] = await Promise.all([register(a), register(b)])
    // Both read the migrated value at once; the user edits through host B while both migrations are on their way.
    expect(searchA.get().token).toBe(SECRET)
    expect(searchB.get().token).toBe(SECRET)
    await b.settings.update('search', { engine: 'google' }, undefined, undefined, 'wire')

    const expected = { token: SECRET, limit: 5, engine: 'google' }
    for (const host of [a, b]) await eventually(() => expect(host.settings.get('search')).toEqual(expected))
    for (const host of [a, b]) await eventually(() => expect(host.logs.filter((line) => line.includes('was migrated')).length).toBe(2))
    // Both hosts handed a migration of the global section to the store; only one stored it (and one of the scope's).
    expect(migrationsOf(onA.handed) + migrationsOf(onB.handed)).toBeGreaterThanOrEqual(2)
    expect(migrationsOf([...onA.stored, ...onB.stored])).toBe(1)
    expect(migrationsOf([...onA.stored, ...onB.stored], 'preset/coder')).toBe(1)
    expect([...onA.stored, ...onB.stored].filter((transaction) => transaction.origins.has('migration')).length).toBeGreaterThanOrEqual(1)

    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const rows = (await client.query<{ scope: string; data: unknown }>(`SELECT scope, data FROM ${tablesFor(table).sections} WHERE ns = 'search' ORDER BY scope`)).rows
      const box = { $encrypted: expect.stringMatching(/^v1:/) }
      expect(rows).toEqual([
        { scope: '', data: { [SECTION_VERSION_KEY]: 1, ...expected, token: box } },
        { scope: 'preset/coder', data: { [SECTION_VERSION_KEY]: 1, token: box } },
      ])
      expect(JSON.stringify(rows)).not.toContain(SECRET)
      expect(JSON.stringify(rows)).not.toContain(SCOPED)
    } finally {
      await client.end()
    }
    for (const host of [a, b]) {
      const [view] = host.settings.describe({ ns: 'search', redactSecrets: true })
      expect(view!.migration).toMatchObject({ version: 1, stored: 1, state: 'migrated', from: 0 })
      expect(JSON.stringify([view, host.logs])).not.toContain(SECRET)
      expect(JSON.stringify(host.logs)).not.toContain(SCOPED)
    }
  })
})
