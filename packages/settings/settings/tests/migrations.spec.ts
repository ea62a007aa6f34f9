/**
 * Versioned sections: a registration's `version` and `migrations` bring every
 * stored section of its kind (global and each scope's) to the kind's version.
 * An older section reads migrated at once, and is written back once through
 * the normal write path with origin `migration`; a failing step keeps the
 * stored text and puts the section out of effect with a problem naming the
 * step; a renamed secret never shows its value on any surface.
 */
import type { Context } from 'cordis'
import Ajv2020 from 'ajv/dist/2020'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { JSON_SCHEMA_EXTRA_KEYWORDS, settingsJsonSchema } from '../src/json-schema.ts'
import { SECTION_VERSION_KEY, type JsonObject, type SettingsMigration, type SettingsSectionDiff, type SettingsTransaction } from 'dsh-settings'
import { boot, bootControlled, doc, type Harness } from './harness.ts'
import type { ControlledProvider } from './controlled-provider.ts'

let h: Harness<any> | undefined
afterEach(async () => {
  await h?.dispose()
  h = undefined
})

const OLD_SECRET = 'sk-old-secret-58a1f2'
const SCOPED_SECRET = 'sk-scoped-secret-77c0de'

/** Version 1 of the plugin: `apiKey` is renamed `token`, and stays a secret. */
const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  token: Schema.string().role('secret'),
  limit: Schema.natural().default(10),
})
const RENAME: SettingsMigration[] = [{ op: 'move', from: 'apiKey', to: 'token' }]

/** The events a commit announces, as they would leave the process through the controller. */
function recordEvents(root: Context): unknown[][] {
  const seen: unknown[][] = []
  root.on('settings/document-updated', (...args) => void seen.push(['document-updated', ...args]))
  root.on('settings/updated', (...args) => void seen.push(['updated', ...args]))
  return seen
}

const migrated = (ns: string, count = 1) => (line: { text: string }) => line.text.includes(`settings "${ns}`) && line.text.includes('was migrated from version')

describe('a secret renamed by a migration', () => {
  it('moves in the global and every scope section, once each, with no value on any wire', async () => {
    h = await boot({
      document: doc({ search: { apiKey: OLD_SECRET, limit: 5 }, scopes: { 'preset/coder': { search: { apiKey: SCOPED_SECRET } }, 'preset/idle': { search: { engine: 'google', apiKey: SCOPED_SECRET } } } }),
    })
    const events = recordEvents(h.root)
    const { value: global } = await h.mount((ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    const { value: coder } = await h.mountInScope('preset/coder', (ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    // The owner reads the migrated value at once, before anything was written back.
    expect(global.get()).toEqual({ engine: 'bing', token: OLD_SECRET, limit: 5 })
    expect(coder.get()).toEqual({ engine: 'bing', token: SCOPED_SECRET, limit: 5 })
    // Three stored sections (global, preset/coder and preset/idle, where nothing is registered): each written back once.
    await h.logged(migrated('search'), 3)
    const stored = h.provider.document()
    expect(stored.search).toEqual({ [SECTION_VERSION_KEY]: 1, token: OLD_SECRET, limit: 5 })
    expect(stored.scopes!['preset/coder']!.search).toEqual({ [SECTION_VERSION_KEY]: 1, token: SCOPED_SECRET })
    expect(stored.scopes!['preset/idle']!.search).toEqual({ [SECTION_VERSION_KEY]: 1, engine: 'google', token: SCOPED_SECRET })
    // A second registrant (another preset mounting the plugin) finds nothing left to migrate.
    const writes = h.provider.persistCount
    await h.mountInScope('preset/idle', (ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    await h.provider.update('search', {})
    expect(h.provider.persistCount).toBe(writes)

    for (const scope of [undefined, 'preset/coder', 'preset/idle']) {
      const [view] = h.provider.describe({ scope, redactSecrets: true, ns: 'search' })
      expect(view!.secrets).toEqual([{ path: ['token'], set: true, layer: scope === undefined ? 'global' : 'scope', source: 'document' }])
      expect(view!.undeclared).toEqual([])
      expect(view!.migration).toMatchObject({ version: 1, stored: 1, state: 'migrated', from: 0, steps: ['rename $.apiKey to $.token'] })
      expect(JSON.stringify(view)).not.toContain(OLD_SECRET)
      expect(JSON.stringify(view)).not.toContain(SCOPED_SECRET)
      expect(JSON.stringify(view)).not.toContain(SECTION_VERSION_KEY)
    }
    // Nothing was resolved differently, so no value event; the raw sections moved, and say so by revision only.
    expect(events.filter(([name]) => name === 'updated')).toEqual([])
    expect(events.filter(([name]) => name === 'document-updated')).toHaveLength(3)
    const wire = JSON.stringify([events, h.logs])
    expect(wire).not.toContain(OLD_SECRET)
    expect(wire).not.toContain(SCOPED_SECRET)
  })

  it('shows the migration in a difference as the old key leaving and the secret arriving, both without values', async () => {
    const before = doc({ search: { apiKey: OLD_SECRET } })
    h = await boot({ document: before })
    await h.mount((ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    await h.logged(migrated('search'))
    const [section] = h.provider.diff(before) as SettingsSectionDiff[]
    expect(section).toEqual({
      ns: 'search',
      fields: [
        { path: ['apiKey'], change: 'unset', undeclared: true },
        { path: ['token'], change: 'set', secret: true },
      ],
      version: { before: 0, after: 1, steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }]] },
    })
    expect(JSON.stringify(section)).not.toContain(OLD_SECRET)
  })

  it('reads an older section migrated while the store is read-only, and leaves the stored text as it is', async () => {
    h = await boot({ document: doc({ search: { apiKey: OLD_SECRET } }), writable: false })
    const { value } = await h.mount((ctx) => ctx.settings.register('search', Search, { version: 1, migrations: RENAME }))
    expect(value.get().token).toBe(OLD_SECRET)
    await h.logged((line) => line.text.includes('read-only'))
    expect(h.provider.document()).toEqual({ search: { apiKey: OLD_SECRET } })
    const [view] = h.provider.describe({ redactSecrets: true })
    expect(view!.migration).toEqual({ version: 1, stored: 0, state: 'pending', steps: ['rename $.apiKey to $.token'], changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }]] })
    expect(view!.user).toEqual({})
  })
})

describe('steps chained from version 0 to 2', () => {
  /** Version 2: `host` moved into `server` (a declarative step), then `server.host` split into host and port (a function). */
  const Server = Schema.object({
    server: Schema.object({ host: Schema.string().default('localhost'), port: Schema.natural().default(80) }),
    retries: Schema.natural().default(3),
  })
  function splitHost(section: Record<string, any>) {
    const host = section.server?.host
    if (typeof host === 'string' && host.includes(':')) {
      const [name, port] = host.split(':')
      section.server.host = name
      section.server.port = Number(port)
    }
    return section
  }
  const STEPS: SettingsMigration[] = [[{ op: 'move', from: 'host', to: ['server', 'host'] }, { op: 'default', path: 'retries', value: 5 }], splitHost]

  it('runs a declarative move and a function in order, for a section at 0 and one at 1', async () => {
    h = await boot({ document: doc({ server: { host: 'example.org:8080', legacy: true }, scopes: { 'preset/a': { server: { [SECTION_VERSION_KEY]: 1, server: { host: 'a.example:81' } } } } }) })
    const { value } = await h.mount((ctx) => ctx.settings.register('server', Server, { version: 2, migrations: STEPS }))
    // `host` moved into the `server` group, the old default of `retries` was kept, then the host was split.
    expect(value.get()).toEqual({ server: { host: 'example.org', port: 8080 }, retries: 5, legacy: true })
    await h.logged(migrated('server'), 2)
    const stored = h.provider.document()
    expect(stored.server).toEqual({ [SECTION_VERSION_KEY]: 2, legacy: true, server: { host: 'example.org', port: 8080 }, retries: 5 })
    // The scoped section was at version 1: only the function step ran.
    expect(stored.scopes!['preset/a']!.server).toEqual({ [SECTION_VERSION_KEY]: 2, server: { host: 'a.example', port: 81 } })
    const [view] = h.provider.describe({ ns: 'server' })
    expect(view!.migration).toEqual({
      version: 2,
      stored: 2,
      state: 'migrated',
      from: 0,
      steps: ['move $.host to $.server.host, default $.retries', 'splitHost'],
      // The same steps as data; a default names its path, never its value.
      changes: [
        [
          { op: 'move', from: ['host'], to: ['server', 'host'] },
          { op: 'default', path: ['retries'] },
        ],
        [{ op: 'function', name: 'splitHost' }],
      ],
    })
    expect(view!.undeclared).toEqual([{ path: ['legacy'], layer: 'global' }])
  })

  it('leaves a move alone when its target already holds a value, so nothing is overwritten', async () => {
    h = await boot({ document: doc({ server: { host: 'old.example', server: { host: 'new.example' } } }) })
    const { value } = await h.mount((ctx) => ctx.settings.register('server', Server, { version: 2, migrations: STEPS }))
    expect(value.get().server.host).toBe('new.example')
    await h.logged(migrated('server'))
    expect(h.provider.document().server).toEqual({ [SECTION_VERSION_KEY]: 2, host: 'old.example', server: { host: 'new.example' }, retries: 5 })
  })

  it('stamps a section a write creates with the current version, so it is never migrated later', async () => {
    h = await boot()
    const { value } = await h.mount((ctx) => ctx.settings.register('server', Server, { version: 2, migrations: STEPS }))
    await value.update({ server: { host: 'x.example:1' } })
    expect(h.provider.document().server).toEqual({ [SECTION_VERSION_KEY]: 2, server: { host: 'x.example:1' } })
    await value.replace({})
    expect(h.provider.document().server).toEqual({ [SECTION_VERSION_KEY]: 2 })
  })
})

describe('a step that fails', () => {
  const Two = Schema.object({ name: Schema.string().required() })
  function explode(section: JsonObject): JsonObject {
    if (typeof section.name !== 'string') throw new Error(`cannot read ${JSON.stringify(section)}`)
    return section
  }
  const STEPS: SettingsMigration[] = [{ op: 'move', from: 'title', to: 'name' }, explode]

  it('leaves the stored text untouched, refuses the registration as an invalid section does, and names the step', async () => {
    const document = doc({ named: { title: [OLD_SECRET] } })
    h = await boot({ document })
    await expect(h.mount((ctx) => ctx.settings.register('named', Two, { version: 2, migrations: STEPS }))).rejects.toMatchObject({
      code: 'SETTINGS_INVALID',
      message: 'settings "named" section cannot be migrated from version 0 to 2: step "explode" (version 1 to 2) threw Error',
    })
    expect(h.provider.document()).toEqual(document)
    const failure = h.logs.find((line) => line.text.includes('migration step "explode"'))
    expect(failure?.text).toContain('(version 1 to 2) threw Error; the stored section stays at version 0 and is not in effect')
    expect(JSON.stringify(h.logs)).not.toContain(OLD_SECRET)
  })

  it('reports the problem on the section, keeps the text through other writes, and a reset repairs it', async () => {
    const failing = { title: [OLD_SECRET] }
    h = await boot({ document: doc({ named: { title: 'global' }, scopes: { 'preset/a': { named: failing } } }) })
    const { value } = await h.mount((ctx) => ctx.settings.register('named', Two, { version: 2, migrations: STEPS }))
    expect(value.get()).toEqual({ name: 'global' })
    await h.logged(migrated('named'))
    const [scoped] = h.provider.describe({ ns: 'named', scope: 'preset/a', redactSecrets: true })
    expect(scoped!.problem).toEqual({ path: [], message: 'the stored section cannot be migrated from version 0 to 2: step "explode" (version 1 to 2) threw Error' })
    expect(scoped!.migration).toEqual({ version: 2, stored: 0, state: 'failed', steps: ['rename $.title to $.name', 'explode'], changes: [[{ op: 'move', from: ['title'], to: ['name'] }], [{ op: 'function', name: 'explode' }]] })
    expect(scoped!.user).toBeUndefined()
    expect(JSON.stringify(scoped)).not.toContain(OLD_SECRET)
    // A write that would derive from the section cannot: it fails, and the text stays.
    await expect(h.provider.update('named', { name: 'x' }, undefined, 'preset/a')).rejects.toMatchObject({ code: 'SETTINGS_INVALID', message: expect.stringContaining('step "explode"') })
    expect(h.provider.document().scopes!['preset/a']!.named).toEqual(failing)
    // A reset repairs it, at the current version.
    await h.provider.replace('named', {}, undefined, 'preset/a')
    expect(h.provider.document().scopes!['preset/a']!.named).toEqual({ [SECTION_VERSION_KEY]: 2 })
    expect(h.provider.describe({ ns: 'named', scope: 'preset/a' })[0]!.problem).toBeUndefined()
    expect(JSON.stringify(h.logs)).not.toContain(OLD_SECRET)
  })

  it('treats a step answering something other than a JSON object as a failing step', async () => {
    h = await boot({ document: doc({ named: { name: 'a' } }) })
    const notAnObject = () => 'nope' as unknown as Record<string, never>
    await expect(h.mount((ctx) => ctx.settings.register('named', Two, { version: 1, migrations: [notAnObject] }))).rejects.toThrow(/step "notAnObject" \(version 0 to 1\) answered something that is not a section/)
    expect(h.provider.document()).toEqual({ named: { name: 'a' } })
  })
})

describe('the version the seam keeps', () => {
  const Plain = Schema.object({ a: Schema.number().default(1) })

  it('is never part of the value, a descriptor or the undeclared keys, and a version above the plugin reads as it is', async () => {
    h = await boot({ document: doc({ plain: { [SECTION_VERSION_KEY]: 3, a: 2 } }) })
    const { value } = await h.mount((ctx) => ctx.settings.register('plain', Plain))
    expect(value.get()).toEqual({ a: 2 })
    const [view] = h.provider.describe({ ns: 'plain', redactSecrets: true })
    expect(view!.user).toEqual({ a: 2 })
    expect(view!.undeclared).toEqual([])
    expect(view!.migration).toEqual({ version: 0, stored: 3, state: 'newer', steps: [], changes: [] })
    // A write by the older plugin keeps the newer version, so an upgrade does not migrate it again.
    await value.update({ a: 4 })
    expect(h.provider.document().plain).toEqual({ [SECTION_VERSION_KEY]: 3, a: 4 })
  })

  it('refuses a `$version` that is not a version, as a problem of the section', async () => {
    h = await boot({ document: doc({ plain: { [SECTION_VERSION_KEY]: 'two', a: 2 } }) })
    await expect(h.mount((ctx) => ctx.settings.register('plain', Plain))).rejects.toThrow(/holds "\$version" that is not a version/)
  })

  it('may not be set by update or mutate; replace may name one up to the plugin\'s (a restore), and 0 leaves it out', async () => {
    h = await boot({ document: doc({ plain: { a: 2 } }) })
    await h.mount((ctx) => ctx.settings.register('plain', Plain, { version: 1, migrations: [[]] }))
    await expect(h.provider.update('plain', { [SECTION_VERSION_KEY]: 0 })).rejects.toMatchObject({ code: 'SETTINGS_BAD_INPUT', path: [SECTION_VERSION_KEY] })
    await expect(h.provider.mutate('plain', [{ op: 'set', path: ['a'], value: 3 }, { op: 'unset', path: [SECTION_VERSION_KEY] }])).rejects.toMatchObject({ code: 'SETTINGS_BAD_INPUT', op: 1 })
    await expect(h.provider.mutate('plain', [{ op: 'set', path: [], value: { [SECTION_VERSION_KEY]: 1 } }])).rejects.toMatchObject({ code: 'SETTINGS_BAD_INPUT', op: 0 })
    await expect(h.provider.replace('plain', { [SECTION_VERSION_KEY]: 2 })).rejects.toMatchObject({ code: 'SETTINGS_BAD_INPUT' })
    await expect(h.provider.replace('plain', { [SECTION_VERSION_KEY]: -1 })).rejects.toMatchObject({ code: 'SETTINGS_BAD_INPUT' })
    await h.provider.replace('plain', { [SECTION_VERSION_KEY]: 0, a: 7 })
    expect(h.provider.document().plain).toEqual({ a: 7 })
    expect(h.provider.describe({ ns: 'plain' })[0]!.migration).toMatchObject({ stored: 0, state: 'pending' })
  })
})

describe('registration options', () => {
  const Plain = Schema.object({ a: Schema.number().default(1) })

  it('refuses a malformed version or migrations list with a TypeError naming the item', async () => {
    h = await boot()
    const register = (options: object) => h!.mount((ctx) => ctx.settings.register('plain', Plain, options))
    await expect(register({ version: -1 })).rejects.toThrow('settings namespace "plain": version must be a non-negative integer')
    await expect(register({ version: 1.5, migrations: [[]] })).rejects.toThrow(/version must be a non-negative integer/)
    await expect(register({ version: 2, migrations: [[]] })).rejects.toThrow('version 2 needs 2 migrations (item i takes a section from version i to i + 1), not 1')
    await expect(register({ migrations: [[]] })).rejects.toThrow(/version 0 needs 0 migrations/)
    await expect(register({ version: 1, migrations: [{ op: 'rename', from: 'a', to: 'b' }] })).rejects.toThrow(/migrations\[0\]: op must be 'move', 'drop' or 'default'/)
    await expect(register({ version: 1, migrations: [{ op: 'drop', path: [] }] })).rejects.toThrow(/migrations\[0\]: path must be a key or a non-empty array of keys/)
    await expect(register({ version: 1, migrations: [{ op: 'drop', path: ['__proto__'] }] })).rejects.toThrow(/prototype key/)
    await expect(register({ version: 1, migrations: [{ op: 'drop', path: SECTION_VERSION_KEY }] })).rejects.toThrow(/which the seam keeps/)
    await expect(register({ version: 1, migrations: [{ op: 'default', path: 'a' }] })).rejects.toThrow(/a default op needs a value/)
    await expect(register({ version: 1, migrations: [{ op: 'default', path: 'a', value: () => 1 }] })).rejects.toThrow(/not-json|JSON-compatible/)
    await expect(register({ version: 1, migrations: [{ op: 'drop', path: 'a', extra: 1 }] })).rejects.toThrow(/unexpected key "extra"/)
    await expect(register({ version: 1, migrations: ['drop a'] })).rejects.toThrow(/must be an op/)
  })

  it('requires every registrant of a kind to declare the same version and steps', async () => {
    h = await boot()
    await h.mount((ctx) => ctx.settings.register('plain', Plain, { version: 1, migrations: [{ op: 'drop', path: 'x' }] }))
    await expect(h.mountInScope('preset/a', (ctx) => ctx.settings.register('plain', Plain))).rejects.toMatchObject({ code: 'SETTINGS_SCHEMA_MISMATCH' })
    await expect(h.mountInScope('preset/b', (ctx) => ctx.settings.register('plain', Plain, { version: 1, migrations: [{ op: 'drop', path: 'y' }] }))).rejects.toMatchObject({ code: 'SETTINGS_SCHEMA_MISMATCH' })
    await h.mountInScope('preset/c', (ctx) => ctx.settings.register('plain', Plain, { version: 1, migrations: [{ op: 'drop', path: ['x'] }] }))
  })
})

describe('a migration on the write path', () => {
  const Plain = Schema.object({ token: Schema.string().role('secret'), limit: Schema.natural().default(1) })

  it('goes through the provider as one transaction with origin `migration`, and is derived again when the store moved', async () => {
    const c = await bootControlled({ document: doc({ plain: { apiKey: OLD_SECRET } }) })
    h = c
    const provider = c.provider as ControlledProvider
    const seen: SettingsTransaction[] = []
    const store = (provider as unknown as { store(transaction: SettingsTransaction): Promise<unknown> }).store.bind(provider)
    Object.assign(provider, { store: (transaction: SettingsTransaction) => (seen.push(transaction), store(transaction)) })
    let release!: () => void
    provider.gate = new Promise<void>((resolve) => (release = resolve))
    await c.mount((ctx) => ctx.settings.register('plain', Plain, { version: 1, migrations: RENAME }))
    await provider.reached('gate')
    // A user's edit of the old text lands in the store while the migration waits: it must survive, migrated.
    provider.silentlyStore({ plain: { apiKey: OLD_SECRET, limit: 4 } })
    release()
    await c.logged(migrated('plain'))
    expect(provider.stored.plain).toEqual({ [SECTION_VERSION_KEY]: 1, token: OLD_SECRET, limit: 4 })
    expect(seen.map((transaction) => [...transaction.origins])).toContainEqual(['migration'])
  })
})

describe('the editor\'s JSON Schema', () => {
  it('takes `$version` in a section, an object of fields or a dict, and refuses one that is not a version', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    ajv.addVocabulary([...JSON_SCHEMA_EXTRA_KEYWORDS])
    const Hosts = Schema.dict(Schema.object({ port: Schema.natural() }))
    const validate = ajv.compile(settingsJsonSchema([{ ns: 'hosts', schema: Hosts }, { ns: 'plain', schema: Schema.object({ a: Schema.number() }) }]))
    expect(validate({ hosts: { [SECTION_VERSION_KEY]: 2, web: { port: 80 } }, plain: { [SECTION_VERSION_KEY]: 1, a: 1 } })).toBe(true)
    expect(validate({ scopes: { 'preset/a': { hosts: { [SECTION_VERSION_KEY]: 0 } } } })).toBe(true)
    expect(validate({ hosts: { [SECTION_VERSION_KEY]: -1 } })).toBe(false)
    expect(validate({ hosts: { [SECTION_VERSION_KEY]: 'two' } })).toBe(false)
  })
})

describe('the example in docs/settings.md', () => {
  // Kept in step with the plugin-upgrade example of docs/settings.md: version 0 stored `apiKey` and `host: 'name:port'`.
  const Config = Schema.object({
    token: Schema.string().role('secret'),
    server: Schema.object({ host: Schema.string().default('localhost'), port: Schema.natural().default(80) }),
    retries: Schema.natural().default(3),
  })
  function splitHost(section: Record<string, any>) {
    const [host, port] = String(section.host ?? '').split(':')
    delete section.host
    if (host) section.server = { ...section.server, host, ...(port ? { port: Number(port) } : {}) }
    return section
  }
  const MIGRATIONS: SettingsMigration[] = [[{ op: 'move', from: 'apiKey', to: 'token' }, { op: 'default', path: 'retries', value: 5 }], splitHost]

  it('reads a version-0 section as version 2 and stores it back once, named by its steps', async () => {
    h = await boot({ document: doc({ search: { apiKey: OLD_SECRET, host: 'example.org:8080' } }) })
    const { value } = await h.mount((ctx) => ctx.settings.register('search', Config, { version: 2, migrations: MIGRATIONS }))
    expect(value.get()).toEqual({ token: OLD_SECRET, server: { host: 'example.org', port: 8080 }, retries: 5 })
    await h.logged(migrated('search'))
    expect(h.provider.document().search).toEqual({ [SECTION_VERSION_KEY]: 2, token: OLD_SECRET, server: { host: 'example.org', port: 8080 }, retries: 5 })
    const [view] = h.provider.describe({ ns: 'search', redactSecrets: true })
    expect(view!.migration).toEqual({
      version: 2,
      stored: 2,
      state: 'migrated',
      from: 0,
      steps: ['rename $.apiKey to $.token, default $.retries', 'splitHost'],
      changes: [[{ op: 'move', from: ['apiKey'], to: ['token'] }, { op: 'default', path: ['retries'] }], [{ op: 'function', name: 'splitHost' }]],
    })
    expect(JSON.stringify(view)).not.toContain(OLD_SECRET)
  })
})
