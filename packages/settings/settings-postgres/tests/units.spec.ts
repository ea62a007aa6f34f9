import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { changedSections, getSection, type SettingsDocument } from 'dsh-settings'
import PostgresSettingsProvider, { databaseLabel } from 'dsh-settings-postgres'
import { failureReason, refusalOf } from '../src/errors.ts'
import { MAX_BACKOFF_MS, MIN_BACKOFF_MS, nextBackoff } from '../src/feed.ts'
import { applyRows, keyOf, rowsFor, versionsOf } from '../src/rows.ts'
import { TABLE_PREFIX_PATTERN, tablesFor } from '../src/sql.ts'

describe('rows', () => {
  it('apply to a document without changing it, sharing every section they do not touch', () => {
    const kept = { x: 1 }
    const base: SettingsDocument = { a: kept, b: { y: 2 }, scopes: { 'preset/p': { a: { z: 3 } } } }
    const next = applyRows(base, [
      { scope: '', ns: 'b', data: null, version: 5 },
      { scope: 'preset/p', ns: 'c', data: { w: 4 }, version: 5 },
      { scope: 'preset/q', ns: 'a', data: { v: 5 }, version: 5 },
    ])
    expect(next).toEqual({ a: { x: 1 }, scopes: { 'preset/p': { a: { z: 3 }, c: { w: 4 } }, 'preset/q': { a: { v: 5 } } } })
    expect(next.a).toBe(kept)
    expect(base).toEqual({ a: { x: 1 }, b: { y: 2 }, scopes: { 'preset/p': { a: { z: 3 } } } })
  })

  it('store a `__proto__` namespace as an own key, never as a prototype', () => {
    const next = applyRows({}, [{ scope: '', ns: '__proto__', data: { polluted: true }, version: 1 }])
    expect(Object.hasOwn(next, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('round-trip: the rows for the changed sections of any two documents turn the first into the second', () => {
    const section = fc.dictionary(fc.constantFrom('k', 'l', 'm'), fc.integer(), { maxKeys: 2 })
    const sections = fc.dictionary(fc.constantFrom('alpha', 'beta', 'gamma'), section, { maxKeys: 3 })
    const doc = fc.record({ top: sections, scoped: fc.dictionary(fc.constantFrom('preset/a', 'preset/b'), sections, { maxKeys: 2 }) }).map(
      ({ top, scoped }): SettingsDocument => (Object.keys(scoped).length ? { ...top, scopes: scoped } : { ...top }),
    )
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const rows = rowsFor(after, changedSections(before, after), 7)
        const result = applyRows(before, rows)
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

  it('reduces a failure to an SQLSTATE, a socket code or a driver timeout, never a server message that may quote data', () => {
    expect(failureReason({ code: '22P02', message: 'invalid input syntax for type json: "token-123"' })).toBe('SQLSTATE 22P02')
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
