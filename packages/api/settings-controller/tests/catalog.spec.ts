/**
 * The catalog a host's controller keeps in its home: what it says of every
 * registered kind, that it holds no secret (the corpus's sampled sections
 * with planted secrets, as bases and as stored sections), and how it is
 * written: once per burst, only when it changed, atomically, mode 0600, owned
 * as the home, never for a host that names no deployment, and never after the
 * controller is gone.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { chown, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { afterEach, describe, expect, it } from 'vitest'
import { CATALOG_FILE, readCatalog, type SettingsCatalog } from '../src/index.ts'
import { CatalogWriter } from '../src/catalog-writer.ts'
import { eventually, plugController, plugProvider, registerKind, rootContext, tempDir } from './harness.ts'

const FACTS = { file: '/srv/deployment/cordis.yml', packages: { 'dsh-example-web-search': '0.1.0', './bot.mjs': '2.0.0' } }

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().max(50).default(10),
  apiKey: Schema.string().role('secret').default('default-secret-key'),
  mirrors: Schema.array(Schema.object({ url: Schema.string(), token: Schema.string().role('secret') })).default([]),
})

const Bot = Schema.object({ token: Schema.string().role('secret').required(), prefix: Schema.string().default('!') })

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A root with the memory provider (holding `document`) and the controller on a temp home; with the loader's facts unless `facts: false`. */
async function host(document: Record<string, unknown> = {}, options: { facts?: boolean; catalog?: boolean } = {}) {
  const { dir, cleanup } = await tempDir('dsh-catalog-')
  cleanups.push(cleanup)
  const { root, logs } = rootContext()
  if (options.facts !== false) {
    root.provide('deployment')
    root.set('deployment', FACTS)
  }
  const { fiber: providerFiber } = await plugProvider(root, MemorySettingsProvider, { document })
  cleanups.push(() => providerFiber.dispose())
  const { fiber: controllerFiber } = await plugController(root, { opener: false, home: dir, ...(options.catalog === undefined ? {} : { catalog: options.catalog }) })
  const register = (ns: string, schema: Schema, opts?: object, scope?: string) => registerKind(root, ns, schema as never, opts as never, scope).catch(() => undefined as Fiber | undefined)
  return { root: root as Context, logs, home: dir, file: join(dir, CATALOG_FILE), controllerFiber, register }
}

const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as SettingsCatalog

describe('the settings catalog', () => {
  it('names each kind with its sanitized schema, version, step names and timing, and each instance with its redacted base and secret state', async () => {
    const h = await host({ search: { $version: 1, limit: 5 } })
    function splitHost(section: Record<string, unknown>) {
      return section
    }
    await h.register('search', Search, { base: { engine: 'google', apiKey: 'base-secret-key', mirrors: [{ url: 'https://m', token: 'base-mirror-token' }], stray: 'base-stray' }, version: 2, migrations: [[{ op: 'move', from: 'key', to: 'apiKey' }], splitHost], applies: 'restart' })
    await h.register('search', Search, { base: { limit: 20 }, version: 2, migrations: [[{ op: 'move', from: 'key', to: 'apiKey' }], splitHost], applies: 'restart' }, 'preset/coder')
    await h.register('bot', Bot)
    await eventually(() => expect(existsSync(h.file)).toBe(true))
    const catalog = read(h.file)
    expect(catalog).toMatchObject({ format: 1, writtenAt: expect.any(String), deployment: FACTS })
    expect(catalog.kinds.map((kind) => [kind.ns, kind.version, kind.steps, kind.applies])).toEqual([
      ['search', 2, ['rename $.key to $.apiKey', 'splitHost'], 'restart'],
      ['bot', 0, [], 'live'],
    ])
    const [search, bot] = catalog.kinds
    expect(search!.instances).toEqual([
      {
        base: { engine: 'google', mirrors: [{ url: 'https://m' }] },
        secrets: [
          { path: ['apiKey'], set: true },
          { path: ['mirrors', '0', 'token'], set: true },
        ],
      },
      { scope: 'preset/coder', base: { limit: 20 }, secrets: [{ path: ['apiKey'], set: false }] },
    ])
    // A plugin waiting for setup is in the catalog too, so a command can give it its values.
    expect(bot!.instances).toEqual([{ secrets: [{ path: ['token'], set: false }], needsSetup: true }])
    const text = readFileSync(h.file, 'utf8')
    for (const secret of ['base-secret-key', 'base-mirror-token', 'default-secret-key', 'base-stray']) expect(text).not.toContain(secret)
    expect(readCatalog(h.home)).toEqual({ catalog, path: h.file })
  })

  it('holds no planted secret of the corpus: sampled sections as bases and as stored sections, every one of 36 Configs', async () => {
    const planted: string[] = []
    const document: Record<string, unknown> = {}
    const bases: Record<string, unknown> = {}
    for (const entry of corpusEntries()) {
      const stored = sampleSection(corpusSchema(entry), { optional: true, secretPrefix: `stored-${entry.ns}` })
      const base = sampleSection(corpusSchema(entry), { optional: true, secretPrefix: `base-${entry.ns}` })
      document[entry.ns] = stored.section
      bases[entry.ns] = base.section
      planted.push(...stored.secrets, ...base.secrets)
    }
    expect(planted.length).toBeGreaterThan(20)
    const h = await host({ ...document, scopes: { 'preset/a': document } })
    for (const entry of corpusEntries()) {
      await h.register(entry.ns, corpusSchema(entry), { base: bases[entry.ns] })
      await h.register(entry.ns, corpusSchema(entry), { base: bases[entry.ns] }, 'preset/a')
    }
    await eventually(() => expect(read(h.file).kinds).toHaveLength(corpusEntries().length))
    const text = readFileSync(h.file, 'utf8')
    for (const secret of planted) expect(text, `planted secret ${secret}`).not.toContain(secret)
  })

  it('writes a burst of registrations once, then only when what it says changes', async () => {
    const h = await host()
    const appeared: number[] = []
    for (let index = 0; index < 12; index++) {
      await h.register(`kind-${index}`, Search)
      if (existsSync(h.file)) appeared.push(index)
      await sleep(40)
    }
    // Registrations 40 ms apart are one burst: nothing was written before the last one.
    expect(appeared).toEqual([])
    await eventually(() => expect(read(h.file).kinds).toHaveLength(12))
    const first = statSync(h.file)
    const writtenAt = read(h.file).writtenAt
    // The same plugin plugged again registers the same kind: the catalog is not rewritten.
    const again = await h.register('extra', Search)
    await eventually(() => expect(read(h.file).kinds).toHaveLength(13))
    const second = statSync(h.file)
    expect(second.ino).not.toBe(first.ino)
    await again!.dispose()
    await h.register('extra', Search)
    await sleep(400)
    expect(statSync(h.file).ino).toBe(second.ino)
    expect(read(h.file).writtenAt).not.toBe(writtenAt)
  })

  it('is written whole through a temp file: mode 0600, nothing left beside it, owned as its home when written as root', async () => {
    const h = await host()
    expect(process.geteuid?.()).toBe(0)
    // A home that belongs to a user: what a host run with sudo over that user's home writes stays theirs.
    const home = join(h.home, 'user-home')
    await mkdir(home)
    await chown(home, 4242, 4242)
    const { root } = rootContext()
    root.provide('deployment')
    root.set('deployment', FACTS)
    const { fiber } = await plugProvider(root, MemorySettingsProvider, {})
    cleanups.push(() => fiber.dispose())
    await plugController(root, { opener: false, home })
    await registerKind(root, 'search', Search)
    const file = join(home, CATALOG_FILE)
    await eventually(() => expect(existsSync(file)).toBe(true))
    const info = statSync(file)
    expect({ mode: info.mode & 0o777, uid: info.uid, gid: info.gid }).toEqual({ mode: 0o600, uid: 4242, gid: 4242 })
    expect(readdirSync(home)).toEqual([CATALOG_FILE])
  })

  it('is not written by a host that names no deployment, nor with catalog: false', async () => {
    const unnamed = await host({}, { facts: false })
    const off = await host({}, { catalog: false })
    await unnamed.register('search', Search)
    await off.register('search', Search)
    await sleep(500)
    expect(existsSync(unnamed.file)).toBe(false)
    expect(existsSync(off.file)).toBe(false)
  })

  it('keeps what a stopping host ran: plugins disposed, then the controller, and nothing more is written', async () => {
    const h = await host()
    const fibers = [await h.register('search', Search), await h.register('bot', Bot, { base: { token: 'x' } })]
    await eventually(() => expect(read(h.file).kinds).toHaveLength(2))
    const before = readFileSync(h.file, 'utf8')
    for (const fiber of fibers) await fiber!.dispose()
    await h.controllerFiber.dispose()
    // Registrations after the controller is gone write nothing: its timers and listeners went with it.
    await h.register('late', Search)
    await sleep(500)
    expect(readFileSync(h.file, 'utf8')).toBe(before)
  })

  it('drops an instance that left once it has been gone for the grace, and keeps one that came back', async () => {
    const h = await host()
    let settings: MemorySettingsProvider | undefined
    await h.root.inject(['settings'], (ctx) => void (settings = ctx.settings as MemorySettingsProvider))
    const writer = new CatalogWriter({ home: join(h.home, 'own'), settings: () => settings, deployment: () => FACTS, logger: h.root.logger('test'), delayMs: 10, leaveGraceMs: 150 })
    cleanups.push(() => writer.close())
    const file = join(h.home, 'own', CATALOG_FILE)
    const search = await h.register('search', Search)
    const coder = await h.register('search', Search, {}, 'preset/coder')
    writer.registered('search')
    writer.registered('search', 'preset/coder')
    await eventually(() => expect(read(file).kinds[0]!.instances).toHaveLength(2))
    await coder!.dispose()
    writer.unregistered('search', 'preset/coder')
    await search!.dispose()
    writer.unregistered('search')
    await h.register('search', Search)
    writer.registered('search')
    await sleep(60)
    // Within the grace both are still there; after it, only the instance that did not come back is gone.
    expect(read(file).kinds[0]!.instances.map((instance) => instance.scope ?? 'global')).toEqual(['global', 'preset/coder'])
    await eventually(() => expect(read(file).kinds[0]!.instances.map((instance) => instance.scope ?? 'global')).toEqual(['global']))
  })
})
