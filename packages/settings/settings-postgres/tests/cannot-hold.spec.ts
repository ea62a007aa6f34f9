/**
 * PostgreSQL's `jsonb` cannot hold every JSON string: U+0000 (NUL) is refused
 * with SQLSTATE 22P05 and an unpaired UTF-16 surrogate with 22P02. A group
 * commit stores all its queued writes in one transaction, so one such value
 * used to fail every write queued with it. The provider now refuses that write
 * alone, before any SQL runs, naming the place and never the value; the others
 * of its group commit.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import pg from 'pg'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { RemoteError } from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import { SettingsStoreError, type SettingsPathOp } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { SettingsDatabaseCannotHoldError } from 'dsh-settings-postgres'
import { unholdablePlace } from '../src/holdable.ts'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, type Host } from './harness.ts'

const holder = useServer()
const hosts: Host[] = []
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** Every innocent write of a round lands in its own namespace; the bad one writes `victim`. */
const NAMESPACES = Array.from({ length: 19 }, (_, i) => `plain-${i}`)
const Loose = Schema.dict(Schema.any())
/** The marker each bad value carries: it must appear in no message. */
const MARK = 'sk-LEAK'

async function host(table: string): Promise<Host> {
  const booted = await bootHost({ url: holder.server.url(), table, recheckMs: 0 })
  hosts.push(booted)
  await plugWithSettings(booted.root, (ctx) => {
    for (const ns of [...NAMESPACES, 'victim']) ctx.settings.register(ns, Loose)
  })
  return booted
}

/** What the database holds of one global section. */
async function stored(table: string, ns: string): Promise<string> {
  return holder.server.sql(`SELECT coalesce(data::text, 'null') FROM ${table}_sections WHERE ns = '${ns}' AND scope = ''`)
}

interface BadWrite {
  what: string
  write(host: Host): Promise<void>
  path: string[]
  /** How the message names the place. */
  place: string
  why: RegExp
}

const BAD_WRITES: BadWrite[] = [
  { what: 'NUL in a string', write: (h) => h.settings.update('victim', { nested: { key: `${MARK}\u0000x` } }), path: ['nested', 'key'], place: 'the string at $.nested.key', why: /U\+0000/ },
  { what: 'NUL in a key', write: (h) => h.settings.update('victim', { ['k\u0000']: MARK }), path: ['k\u0000'], place: 'the key at $["k\\u0000"]', why: /U\+0000/ },
  { what: 'a lone high surrogate', write: (h) => h.settings.replace('victim', { list: ['ok', `${MARK}\ud800`] }), path: ['list', '1'], place: 'the string at $.list[1]', why: /unpaired UTF-16 surrogate/ },
  { what: 'a lone low surrogate', write: (h) => h.settings.update('victim', { a: `\udc00${MARK}` }), path: ['a'], place: 'the string at $.a', why: /unpaired UTF-16 surrogate/ },
  {
    what: 'a mutate op setting a NUL key',
    write: (h) => h.settings.mutate('victim', [{ op: 'set', path: ['deep', 'x\u0000'], value: MARK }] as SettingsPathOp[]),
    path: ['deep', 'x\u0000'],
    place: 'the key at $.deep["x\\u0000"]',
    why: /U\+0000/,
  },
]

describe.runIf(HAVE_POSTGRES)('values PostgreSQL cannot hold', () => {
  it('refuse only their own write: the 19 writes queued with each commit (5 rounds)', async () => {
    const table = freshPrefix()
    const a = await host(table)
    let committed = 0
    for (const [round, bad] of BAD_WRITES.entries()) {
      // Fired together, the bad one in the middle: they are queued while none runs, so they form one group commit.
      const write = (ns: string) => a.settings.update(ns, { round, text: `café ☕ ${ns}` })
      const before = NAMESPACES.slice(0, 10).map(write)
      const refused = bad.write(a).then(
        () => undefined,
        (error: unknown) => error,
      )
      const innocent = [...before, ...NAMESPACES.slice(10).map(write)]
      const outcomes = await Promise.allSettled(innocent)
      const failures = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => String((outcome as PromiseRejectedResult).reason))
      expect(failures, `round ${round} (${bad.what})`).toEqual([])
      committed += outcomes.length

      const error = await refused
      expect(error, bad.what).toBeInstanceOf(SettingsDatabaseCannotHoldError)
      expect(error).toBeInstanceOf(SettingsStoreError)
      expect(error).toMatchObject({ code: 'SETTINGS_DATABASE_CANNOT_HOLD', refusal: 'rejected', ns: 'victim', path: bad.path, store: `127.0.0.1:${holder.server.port}/postgres` })
      const message = (error as Error).message
      expect(message).toContain(`PostgreSQL at 127.0.0.1:${holder.server.port}/postgres cannot hold ${bad.place} of section "victim"`)
      expect(message).toMatch(bad.why)
      expect(message).not.toMatch(/[\u0000\ud800-\udfff]/)
      expect(message).not.toContain(MARK)
    }
    expect(committed).toBe(95)
    for (const ns of NAMESPACES) expect(JSON.parse(await stored(table, ns))).toEqual({ round: BAD_WRITES.length - 1, text: `café ☕ ${ns}` })
    // Nothing of a refused write was stored, and the host's value agrees.
    expect(await stored(table, 'victim')).toBe('')
    expect(a.settings.get('victim')).toEqual({})
  }, 60_000)

  it('takes a well-paired surrogate (an emoji), and writes again after a refusal', async () => {
    const table = freshPrefix()
    const a = await host(table)
    await expect(a.settings.update('victim', { a: 'x\u0000' })).rejects.toThrow(SettingsDatabaseCannotHoldError)
    await a.settings.update('victim', { a: '😀 \ud83d\ude00', ['k😀']: ['\u0001 control is fine'] })
    expect(JSON.parse(await stored(table, 'victim'))).toEqual({ a: '😀 😀', ['k😀']: ['\u0001 control is fine'] })
  })

  it('names the scope of a scoped section', async () => {
    const table = freshPrefix()
    const a = await host(table)
    const error = await a.settings.update('victim', { x: { y: '\u0000' } }, undefined, 'preset/coder').catch((failure: unknown) => failure)
    expect(error).toMatchObject({ ns: 'victim', scope: 'preset/coder', path: ['x', 'y'] })
    expect((error as Error).message).toContain('cannot hold the string at $.x.y of section "victim" in scope preset/coder')
  })

  it('answers settings/rejected on the wire with the place, never the value', async () => {
    const table = freshPrefix()
    const a = await host(table)
    const home = await mkdtemp(join(tmpdir(), 'dsh-pg-hold-'))
    cleanups.push(() => rm(home, { recursive: true, force: true }))
    await a.root.plugin(SettingsController, { home, opener: false })
    let controller!: SettingsController
    await a.root.inject(['settingsController'], (ctx) => {
      controller = ctx.settingsController
    })
    const [innocent, bad] = await Promise.allSettled([controller.update('plain-0', { v: 1 }), controller.update('victim', { token: `${MARK}-secret\u0000` }), controller.update('plain-1', { v: 2 })])
    expect(innocent.status).toBe('fulfilled')
    expect(bad.status).toBe('rejected')
    const error = (bad as PromiseRejectedResult).reason as RemoteError
    expect(error).toBeInstanceOf(RemoteError)
    const wire = error.toJSON()
    expect(wire).toMatchObject({ code: 'settings/rejected', details: { ns: 'victim', path: ['token'], reason: 'SETTINGS_DATABASE_CANNOT_HOLD' } })
    expect(JSON.stringify(wire)).not.toContain(MARK)
    expect(a.settings.get('plain-1')).toEqual({ v: 2 })
  })

  it('agrees with the server on what jsonb takes, for strings and keys full of NULs, surrogates and other odd code units', async () => {
    // Code units weighted towards the ones that matter: NUL, high and low surrogates, their neighbours, and plain text.
    const unit = fc.oneof(
      fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud7ff', '\ue000', '\u0001', '\\', '"', 'a', 'é'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    )
    const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(''))
    const value = fc.oneof(
      text.map((t) => ({ v: t })),
      text.map((t) => ({ [t]: 1 })),
      fc.tuple(text, text).map(([k, t]) => ({ list: [1, { [k]: [t] }] })),
    )
    const client = new pg.Client({ connectionString: holder.server.url() })
    await client.connect()
    try {
      const samples = fc.sample(value, { numRuns: 400, seed: 19 })
      let refused = 0
      for (const sample of samples) {
        const stores = await client.query('SELECT $1::jsonb', [JSON.stringify(sample)]).then(
          () => true,
          (error: { code?: string }) => {
            expect(['22P05', '22P02']).toContain(error.code)
            return false
          },
        )
        expect(unholdablePlace(sample) === undefined, JSON.stringify(sample)).toBe(stores)
        if (!stores) refused++
      }
      // The samples exercised both answers.
      expect(refused).toBeGreaterThan(50)
      expect(samples.length - refused).toBeGreaterThan(50)
    } finally {
      await client.end()
    }
  })
})
