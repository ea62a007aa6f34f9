import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { changedSections, getSection, type SettingsDocument } from 'dsh-settings'
import PostgresSettingsProvider, { databaseLabel } from 'dsh-settings-postgres'
import { failureReason, refusalOf, SettingsDatabaseTablesMissingError } from '../src/errors.ts'
import { MAX_BACKOFF_MS, MIN_BACKOFF_MS, nextBackoff } from '../src/feed.ts'
import { pause } from '../src/pause.ts'
import { FIRST_START_RETRY_MS, MAX_START_RETRY_MS, retryUntilStarted, startRetryDelay } from '../src/start.ts'
import { databaseUser } from '../src/target.ts'
import { applyRows, keyOf, rowsFor, versionsOf } from '../src/rows.ts'
import { TABLE_PREFIX_PATTERN, tablesFor } from '../src/sql.ts'

describe('rows', () => {
  it('apply to the cache in place, sharing every section object and removing a tombstoned one', () => {
    const kept = { x: 1 }
    const written = { w: 4 }
    const cache: SettingsDocument = { a: kept, b: { y: 2 }, scopes: { 'preset/p': { a: { z: 3 } } } }
    applyRows(cache, [
      { scope: '', ns: 'b', data: null, version: 5 },
      { scope: 'preset/p', ns: 'c', data: written, version: 5 },
      { scope: 'preset/q', ns: 'a', data: { v: 5 }, version: 5 },
    ])
    expect(cache).toEqual({ a: { x: 1 }, scopes: { 'preset/p': { a: { z: 3 }, c: { w: 4 } }, 'preset/q': { a: { v: 5 } } } })
    expect(cache.a).toBe(kept)
    expect(getSection(cache, 'c', 'preset/p')).toBe(written)
  })

  it('store a `__proto__` namespace as an own key, never as a prototype', () => {
    const next: SettingsDocument = {}
    applyRows(next, [{ scope: '', ns: '__proto__', data: { polluted: true }, version: 1 }])
    expect(Object.hasOwn(next, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('round-trip: the rows for the changed sections of any two documents turn (a copy of) the first into the second', () => {
    const section = fc.dictionary(fc.constantFrom('k', 'l', 'm'), fc.integer(), { maxKeys: 2 })
    const sections = fc.dictionary(fc.constantFrom('alpha', 'beta', 'gamma'), section, { maxKeys: 3 })
    const doc = fc.record({ top: sections, scoped: fc.dictionary(fc.constantFrom('preset/a', 'preset/b'), sections, { maxKeys: 2 }) }).map(
      ({ top, scoped }): SettingsDocument => (Object.keys(scoped).length ? { ...top, scopes: scoped } : { ...top }),
    )
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const rows = rowsFor(changedSections(before, after).map((key) => ({ ...key, section: getSection(after, key.ns, key.scope) })), 7)
        const result = structuredClone(before)
        applyRows(result, rows)
        expect(changedSections(result, after)).toEqual([])
        for (const row of rows) {
          expect(row.version).toBe(7)
          expect(getSection(after, row.ns, keyOf(row).scope) ?? null).toEqual(row.data)
        }
        expect(versionsOf(rows)).toEqual(rows.map((row) => ({ ...keyOf(row), version: 7 })))
      }),
      { numRuns: 500 },
    )
  })
})

describe('what messages say about the database', () => {
  it('names host, port and database, never the user or the password', () => {
    expect(databaseLabel('postgres://admin:s3cret@db.example:6543/app?sslmode=require&sslpassword=x')).toBe('db.example:6543/app')
    expect(databaseLabel('postgresql://u:p@localhost/settings')).toBe('localhost:5432/settings')
    expect(databaseLabel('host=db user=admin password=s3cret')).toBe('the configured database')
  })

  it('names the user only where asked (the log lines of a failing start), and never from a non-URL string', () => {
    expect(databaseUser('postgres://admin:s3cret@db.example:6543/app')).toBe('admin')
    expect(databaseUser('postgres://d%C3%A9v@db/app')).toBe('dév')
    expect(databaseUser('postgres://db.example/app')).toBeUndefined()
    expect(databaseUser('host=db user=admin password=s3cret')).toBeUndefined()
  })

  it('says which tables are missing and what to do, by how many remain', () => {
    const one = new SettingsDatabaseTablesMissingError('db:5432/app', ['p_sections'], ['p_documents', 'p_migrations'])
    expect(one).toMatchObject({ code: 'SETTINGS_DATABASE_TABLES_MISSING', refusal: 'unavailable', store: 'db:5432/app' })
    expect(one.message).toBe(
      'the table p_sections of the settings provider is missing in database db:5432/app, while p_documents and p_migrations remain. ' +
        'The provider does not recreate it by itself, as the settings stored there would silently start over empty: restore it from a backup, ' +
        'or start over with an empty settings document with DROP TABLE p_documents, p_migrations (a starting host then creates every table; ' +
        'hosts that kept running hold their old settings until restarted)',
    )
    const two = new SettingsDatabaseTablesMissingError('db:5432/app', ['p_documents', 'p_migrations'], ['p_sections'])
    expect(two.message).toMatch(/^the tables p_documents and p_migrations of the settings provider are missing in database db:5432\/app, while p_sections remains\. The provider does not recreate them .* restore them from a backup, .* DROP TABLE p_sections \(/)
    const all = new SettingsDatabaseTablesMissingError('db:5432/app', ['p_documents', 'p_sections', 'p_migrations'], [])
    expect(all.message).toBe('the tables p_documents, p_sections and p_migrations of the settings provider are missing in database db:5432/app: restart the host to create them again (its settings then start over empty)')
  })

  it('reduces a failure to an SQLSTATE, a socket code or a driver timeout, never a server message that may quote data', () => {
    expect(failureReason({ code: '22P02', message: 'invalid input syntax for type json: "token-123"' })).toBe('SQLSTATE 22P02')
    expect(failureReason({ code: '28P01', message: 'password authentication failed for user "admin"' })).toBe('SQLSTATE 28P01 (password authentication failed)')
    expect(failureReason({ code: '3D000', message: 'database "secret-name" does not exist' })).toBe('SQLSTATE 3D000 (no such database)')
    expect(failureReason({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' })).toBe('ECONNREFUSED')
    expect(failureReason(new Error('Query read timeout'))).toBe('Query read timeout')
    expect(failureReason(new Error('password authentication failed for user "admin" s3cret'))).toBe('connection failure')
  })

  it('counts data and permission errors as rejected, and everything else (down, restarting, timeouts, locks) as unavailable', () => {
    expect(refusalOf({ code: '22P02' })).toBe('rejected')
    expect(refusalOf({ code: '42501' })).toBe('rejected')
    expect(refusalOf({ code: '54000' })).toBe('rejected')
    expect(refusalOf({ code: '57P01' })).toBe('unavailable')
    expect(refusalOf({ code: '55P03' })).toBe('unavailable')
    expect(refusalOf({ code: 'ECONNRESET' })).toBe('unavailable')
    expect(refusalOf(new Error('Connection terminated unexpectedly'))).toBe('unavailable')
  })
})

describe('configuration', () => {
  it('takes only plain lowercase table prefixes, since they are spliced into SQL', () => {
    for (const good of ['dsh_settings', 'a', '_x9']) expect(TABLE_PREFIX_PATTERN.test(good)).toBe(true)
    for (const bad of ['Dsh', 'a-b', 'x; DROP TABLE y', '"q"', '9a', 'a'.repeat(41), '']) expect(TABLE_PREFIX_PATTERN.test(bad)).toBe(false)
    expect(() => new PostgresSettingsProvider({} as never, { url: 'postgres://x/y', table: 'x; DROP TABLE y' })).toThrow(TypeError)
    expect(tablesFor('p')).toMatchObject({ documents: 'p_documents', sections: 'p_sections', channel: 'p_changes' })
  })

  it('hides the connection string as a secret in the config schema', () => {
    const json = PostgresSettingsProvider.Config.toJSON() as { refs: Record<string, { meta?: { role?: string; description?: string } }> }
    const url = Object.values(json.refs).find((ref) => ref.meta?.description?.startsWith('libpq connection string'))
    expect(url?.meta?.role).toBe('secret')
  })

  it('backs off from 100 ms, doubling, up to 5 s', () => {
    const waits: number[] = []
    let wait = 0
    for (let i = 0; i < 9; i++) waits.push((wait = nextBackoff(wait)))
    expect(waits).toEqual([MIN_BACKOFF_MS, 200, 400, 800, 1600, 3200, MAX_BACKOFF_MS, MAX_BACKOFF_MS, MAX_BACKOFF_MS])
  })
})

describe('retrying a start', () => {
  it('waits 0.5 s doubling up to 30 s, each less up to a quarter at random, never over the cap', () => {
    const [low, high] = [() => 0.999999, () => 0]
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20, 1e6].map((attempt) => startRetryDelay(attempt, high))).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000])
    expect([1, 2, 7].map((attempt) => startRetryDelay(attempt, low))).toEqual([375, 750, 22500])
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 10_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const wait = startRetryDelay(attempt, () => random)
        expect(wait).toBeGreaterThanOrEqual(FIRST_START_RETRY_MS * 0.75)
        expect(wait).toBeLessThanOrEqual(MAX_START_RETRY_MS)
      }),
    )
  })

  it('runs attempts until one succeeds, telling each failure with its number and wait', async () => {
    const told: [string, number, number][] = []
    let calls = 0
    const result = await retryUntilStarted({
      attempt: async () => {
        if (++calls < 3) throw new Error(`failure ${calls}`)
        return 'up'
      },
      signal: new AbortController().signal,
      failed: (error, attempt, waitMs) => void told.push([(error as Error).message, attempt, waitMs]),
    })
    expect(result).toBe('up')
    expect(told.map(([message, attempt]) => [message, attempt])).toEqual([
      ['failure 1', 1],
      ['failure 2', 2],
    ])
    expect(told[0]![2]).toBeLessThanOrEqual(500)
    expect(told[1]![2]).toBeGreaterThan(500)
  }, 10_000)

  it('gives up at once when aborted during a wait, answering nothing and clearing the timer', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length
    const controller = new AbortController()
    const before = timers()
    const waiting = pause(3_600_000, controller.signal)
    expect(timers()).toBe(before + 1)
    controller.abort()
    await waiting
    expect(timers()).toBe(before)
    // Already aborted: no wait at all.
    await pause(3_600_000, controller.signal)

    const stop = new AbortController()
    let attempts = 0
    const result = await retryUntilStarted({
      attempt: async () => {
        attempts++
        throw new Error('down')
      },
      signal: stop.signal,
      // The provider is disposed while it waits for the next attempt.
      failed: () => void queueMicrotask(() => stop.abort()),
    })
    expect(result).toBeUndefined()
    expect(attempts).toBe(1)
    expect(timers()).toBe(before)
  })
})
