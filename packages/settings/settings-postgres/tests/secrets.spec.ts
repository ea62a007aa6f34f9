/**
 * Secrets against a real PostgreSQL: a secret written through the seam is
 * sealed in its row (AES-256-GCM under DSH_SETTINGS_SECRET_KEY), every host
 * with the key reads it, a host with another key gets a problem and no value,
 * a host without a key refuses the write; `$env`/`$file` references resolve
 * on each host and are read-only; no value or box reaches a log or an error.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsStoreError } from 'dsh-settings'
import { SettingsNoSecretKeyError, SettingsSecretReadOnlyError } from 'dsh-settings-postgres'
import { eventually, plugWithSettings } from 'dsh-testing'
import { spawnHost, type ChildHost } from './children.ts'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, writeStore, type Host } from './harness.ts'

const holder = useServer()
const started: Host[] = []
const children: ChildHost[] = []
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const child of children.splice(0)) await child.end()
  for (const host of started.splice(0)) await host.dispose()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const WebSearch = Schema.object({ apiKey: Schema.string().role('secret'), region: Schema.string().default('us') })
/** Values no message, log line or row may show in plain text. */
const SECRET = `sk-pg-${randomBytes(8).toString('hex')}`
const NEW_SECRET = `sk-new-${randomBytes(8).toString('hex')}`
const FROM_ENV_A = `env-a-${randomBytes(8).toString('hex')}`
const FROM_ENV_B = `env-b-${randomBytes(8).toString('hex')}`
const FROM_FILE = `file-${randomBytes(8).toString('hex')}`
const VALUES = [SECRET, NEW_SECRET, FROM_ENV_A, FROM_ENV_B, FROM_FILE]

const newKey = () => randomBytes(32).toString('hex')

async function host(table: string, env: Record<string, string | undefined>): Promise<Host & { search: { get(): { apiKey?: string; region: string } } }> {
  const booted = await bootHost({ url: holder.server.url(), table, recheckMs: 500 }, env)
  started.push(booted)
  const { value: search } = await plugWithSettings(booted.root, (ctx) => ctx.settings.register('web-search', WebSearch))
  return Object.assign(booted, { search })
}

/** The stored JSON text of the global `web-search` row ('' when there is none). */
async function row(table: string, ns = 'web-search'): Promise<string> {
  return holder.server.sql(`SELECT coalesce(data::text, 'null') FROM ${table}_sections WHERE ns = '${ns}' AND scope = ''`)
}

/** The error a write rejected with. */
async function refusal(write: Promise<unknown>): Promise<SettingsStoreError> {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(SettingsStoreError)
  return error as SettingsStoreError
}

/** Nothing in `texts` holds a value, or a box made of one. */
function expectNoSecrets(texts: unknown, boxes: readonly string[] = []): void {
  const text = JSON.stringify(texts)
  for (const value of [...VALUES, ...boxes]) expect(text).not.toContain(value)
}

describe.runIf(HAVE_POSTGRES)('secrets in rows', () => {
  it('seals a secret in its row, and every host with the key reads it (on notify and at load)', async () => {
    const table = freshPrefix()
    const env = { DSH_SETTINGS_SECRET_KEY: newKey() }
    const a = await host(table, env)
    const b = await host(table, env)
    await a.settings.update('web-search', { apiKey: SECRET, region: 'eu' }, undefined, undefined, 'wire')
    const stored = await row(table)
    expect(stored).not.toContain(SECRET)
    expect(JSON.parse(stored)).toEqual({ apiKey: { $encrypted: expect.stringMatching(/^v1:/) }, region: 'eu' })
    await eventually(() => expect(b.search.get()).toEqual({ apiKey: SECRET, region: 'eu' }))
    const c = await host(table, env)
    expect(c.search.get()).toEqual({ apiKey: SECRET, region: 'eu' })
    // A write of another field seals the secret again (a fresh box), never plain.
    await b.settings.update('web-search', { region: 'ap' }, undefined, undefined, 'wire')
    expect(await row(table)).not.toContain(SECRET)
    await eventually(() => expect(a.search.get()).toEqual({ apiKey: SECRET, region: 'ap' }))
    expect(a.settings.describe({ ns: 'web-search', redactSecrets: true })[0]!.secrets).toEqual([{ path: ['apiKey'], set: true, layer: 'global', source: 'document' }])
    expectNoSecrets([a.logs, b.logs, c.logs])
  })

  it('gives a host with another key a problem, not a value, and never the box', async () => {
    const table = freshPrefix()
    const a = await host(table, { DSH_SETTINGS_SECRET_KEY: newKey() })
    const other = await host(table, { DSH_SETTINGS_SECRET_KEY: newKey() })
    await a.settings.update('web-search', { apiKey: SECRET, region: 'eu' }, undefined, undefined, 'wire')
    const box = (JSON.parse(await row(table)) as { apiKey: { $encrypted: string } }).apiKey.$encrypted
    await eventually(() => expect(other.logs.join('\n')).toContain("does not open with this host's DSH_SETTINGS_SECRET_KEY"))
    expect(other.search.get().apiKey).toBeUndefined()
    // Loading it: the registration is refused, naming the place.
    const late = await bootHost({ url: holder.server.url(), table, recheckMs: 0 }, { DSH_SETTINGS_SECRET_KEY: newKey() })
    started.push(late)
    const registering = await plugWithSettings(late.root, (ctx) => ctx.settings.register('web-search', WebSearch)).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(registering).toBeInstanceOf(Error)
    expect(late.logs.join('\n')).toMatch(/section "web-search" .*apiKey.* cannot be read on this host/)
    // A write there would overwrite what the other hosts read: refused.
    const write = await refusal(other.settings.update('web-search', { region: 'ap' }, undefined, undefined, 'wire'))
    expect(write.code).toBe('SETTINGS_SECRET_UNREADABLE')
    expect(JSON.parse(await row(table)).region).toBe('eu')
    expectNoSecrets([other.logs, late.logs, String(registering), (registering as Error).stack, write.message], [box])
  })

  it('refuses a secret without a key, saying how to configure one, and stores nothing of that write', async () => {
    const table = freshPrefix()
    const a = await host(table, {})
    const error = await refusal(a.settings.update('web-search', { apiKey: SECRET, region: 'eu' }, undefined, undefined, 'wire'))
    expect(error).toBeInstanceOf(SettingsNoSecretKeyError)
    expect(error).toMatchObject({ code: 'SETTINGS_NO_SECRET_KEY', refusal: 'rejected', path: ['apiKey'] })
    expect(error.message).toContain('set DSH_SETTINGS_SECRET_KEY')
    expect(error.message).toContain('openssl rand -hex 32')
    expect(await row(table)).toBe('')
    // A section without a secret needs no key.
    await a.settings.update('web-search', { region: 'eu' }, undefined, undefined, 'wire')
    expect(JSON.parse(await row(table))).toEqual({ region: 'eu' })
    // A malformed key is no key: the variable is named, never its text.
    const badKey = `not-a-key-${randomBytes(4).toString('hex')}`
    const b = await host(table, { DSH_SETTINGS_SECRET_KEY: badKey })
    const bad = await refusal(b.settings.update('web-search', { apiKey: SECRET }, undefined, undefined, 'wire'))
    expect(bad.code).toBe('SETTINGS_NO_SECRET_KEY')
    expect(bad.message).toContain('DSH_SETTINGS_SECRET_KEY is not a usable key')
    expect(JSON.parse(await row(table))).toEqual({ region: 'eu' })
    expectNoSecrets([error.message, bad.message, a.logs, b.logs], [badKey])
  })

  it('reads a secret stored in plain text before, and seals it at its next write', async () => {
    const table = freshPrefix()
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: SECRET, region: 'us' } })
    const a = await host(table, { DSH_SETTINGS_SECRET_KEY: newKey() })
    expect(a.search.get()).toEqual({ apiKey: SECRET, region: 'us' })
    await a.settings.update('web-search', { region: 'eu' }, undefined, undefined, 'wire')
    const stored = await row(table)
    expect(stored).not.toContain(SECRET)
    expect(JSON.parse(stored).apiKey).toEqual({ $encrypted: expect.stringMatching(/^v1:/) })
    expect(a.search.get()).toEqual({ apiKey: SECRET, region: 'eu' })
  })

  it('refuses a box copied to another row or place', async () => {
    const table = freshPrefix()
    const env = { DSH_SETTINGS_SECRET_KEY: newKey() }
    const a = await host(table, env)
    await a.settings.update('web-search', { apiKey: SECRET }, undefined, undefined, 'wire')
    const sealed = JSON.parse(await row(table)).apiKey
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: SECRET }, 'other-search': { apiKey: sealed } })
    const b = await bootHost({ url: holder.server.url(), table, recheckMs: 0 }, env)
    started.push(b)
    expect(b.logs.join('\n')).toContain('section "other-search"')
    expect(b.logs.join('\n')).toContain('made for another row or place')
    expectNoSecrets(b.logs, [sealed.$encrypted])
  })
})

describe.runIf(HAVE_POSTGRES)('references in rows', () => {
  it('resolves $env and $file on each host, at load and on notify, and describes where the value comes from', async () => {
    const table = freshPrefix()
    const dir = await mkdtemp(join(tmpdir(), 'dsh-pg-secrets-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'api-key')
    await writeFile(file, `${FROM_FILE}\n`)
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: { $env: 'SEARCH_API_KEY' }, region: 'eu' } })
    const a = await host(table, { SEARCH_API_KEY: FROM_ENV_A })
    const b = await host(table, { SEARCH_API_KEY: FROM_ENV_B })
    expect(a.search.get()).toEqual({ apiKey: FROM_ENV_A, region: 'eu' })
    expect(b.search.get()).toEqual({ apiKey: FROM_ENV_B, region: 'eu' })
    expect(a.settings.describe({ ns: 'web-search', redactSecrets: true })[0]!.secrets).toEqual([
      { path: ['apiKey'], set: true, layer: 'global', source: 'env', reference: 'SEARCH_API_KEY' },
    ])
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: { $file: file }, region: 'eu' } })
    for (const each of [a, b]) await eventually(() => expect(each.search.get()).toEqual({ apiKey: FROM_FILE, region: 'eu' }))
    expect(b.settings.describe({ ns: 'web-search', redactSecrets: true })[0]!.secrets?.[0]).toMatchObject({ source: 'file', reference: file })
    expectNoSecrets([a.logs, b.logs])
  })

  it('in separate processes, each host reads $env from its own environment and both read a secret sealed under their key', async () => {
    const table = freshPrefix()
    const url = holder.server.url()
    await writeStore(url, table, { 'web-search': { apiKey: { $env: 'SEARCH_API_KEY' }, region: 'eu' } })
    const key = newKey()
    for (const value of [FROM_ENV_A, FROM_ENV_B]) children.push(await spawnHost(url, table, { script: 'secret-host.ts', env: { SEARCH_API_KEY: value, DSH_SETTINGS_SECRET_KEY: key } }))
    const [a, b] = children as [ChildHost, ChildHost]
    expect((await a.request('get', 'web-search')).value).toEqual({ apiKey: FROM_ENV_A, region: 'eu' })
    expect((await b.request('get', 'web-search')).value).toEqual({ apiKey: FROM_ENV_B, region: 'eu' })
    const readOnly = await a.request('update', 'web-search', { apiKey: NEW_SECRET })
    expect(readOnly).toMatchObject({ ok: false, code: 'SETTINGS_SECRET_READ_ONLY' })
    // A plain secret another program stored: host A seals it at its next write, host B opens it.
    await writeStore(url, table, { 'web-search': { apiKey: SECRET, region: 'eu' } })
    await eventually(async () => expect((await a.request('get', 'web-search')).value).toEqual({ apiKey: SECRET, region: 'eu' }))
    expect(await a.request('update', 'web-search', { region: 'ap' })).toMatchObject({ ok: true })
    expect(await row(table)).not.toContain(SECRET)
    await eventually(async () => expect((await b.request('get', 'web-search')).value).toEqual({ apiKey: SECRET, region: 'ap' }))
    expectNoSecrets(readOnly.message)
  })

  it('keeps a reference through writes of other fields (no key needed) and refuses a write that changes its value', async () => {
    const table = freshPrefix()
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: { $env: 'SEARCH_API_KEY' }, region: 'eu' } })
    const a = await host(table, { SEARCH_API_KEY: FROM_ENV_A })
    await a.settings.update('web-search', { region: 'ap' }, undefined, undefined, 'wire')
    expect(JSON.parse(await row(table))).toEqual({ apiKey: { $env: 'SEARCH_API_KEY' }, region: 'ap' })
    const error = await refusal(a.settings.update('web-search', { apiKey: NEW_SECRET }, undefined, undefined, 'wire'))
    expect(error).toBeInstanceOf(SettingsSecretReadOnlyError)
    expect(error).toMatchObject({ code: 'SETTINGS_SECRET_READ_ONLY', refusal: 'rejected', path: ['apiKey'], reference: { kind: 'env', name: 'SEARCH_API_KEY' } })
    expect(error.message).toContain('!env SEARCH_API_KEY')
    const reset = await refusal(a.settings.replace('web-search', {}, undefined, undefined, 'wire'))
    expect(reset.code).toBe('SETTINGS_SECRET_READ_ONLY')
    expect(JSON.parse(await row(table))).toEqual({ apiKey: { $env: 'SEARCH_API_KEY' }, region: 'ap' })
    expect(a.search.get()).toEqual({ apiKey: FROM_ENV_A, region: 'ap' })
    expectNoSecrets([error.message, reset.message, a.logs])
  })

  it('names a reference that does not resolve on this host, and refuses $secret', async () => {
    const table = freshPrefix()
    await writeStore(holder.server.url(), table, { 'web-search': { apiKey: { $env: 'SEARCH_API_KEY' } }, 'other-search': { apiKey: { $secret: 'web-search.apiKey' } } })
    const a = await bootHost({ url: holder.server.url(), table, recheckMs: 0 }, {})
    started.push(a)
    const logs = a.logs.join('\n')
    expect(logs).toContain('!env SEARCH_API_KEY does not resolve: the environment variable is not set')
    expect(logs).toContain('a PostgreSQL deployment has none')
  })
})
