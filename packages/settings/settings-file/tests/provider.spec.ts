import { mkdir, readdir, readFile, stat, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { SettingsConflictError, type SettingsScope } from 'dsh-settings'
import { deferred } from 'dsh-testing'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const schema = () => Schema.object({ engine: Schema.string().default('bing'), limit: Schema.number().default(5), apiKey: Schema.string().role('secret') })

const fx = fileFixture()

async function register(h: FileHarness, ns = 'web-search'): Promise<SettingsScope<ReturnType<ReturnType<typeof schema>>>> {
  let scope!: SettingsScope<ReturnType<ReturnType<typeof schema>>>
  await h.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register(ns, schema())
  })
  return scope
}

describe('boot', () => {
  it('defaults the document to settings.yaml under home and resolves an absent file from defaults', async () => {
    fx.harness = await bootFile({ home: fx.dir, watch: false })
    expect(fx.harness.settings.documentPath).toBe(join(fx.dir, 'settings.yaml'))
    expect(fx.harness.settings.writable).toBe(true)
    const scope = await register(fx.harness)
    expect(scope.get()).toEqual({ engine: 'bing', limit: 5 })
  })

  it('reads sections from an existing YAML document and from a JSON one', async () => {
    await writeFile(join(fx.dir, 'a.yaml'), 'web-search:\n  engine: google\n')
    fx.harness = await bootFile({ path: join(fx.dir, 'a.yaml'), watch: false })
    expect((await register(fx.harness)).get()).toMatchObject({ engine: 'google' })
    await fx.harness.dispose()
    await writeFile(join(fx.dir, 'b.JSON'), '{"web-search": {"limit": 9}}')
    fx.harness = await bootFile({ path: join(fx.dir, 'b.JSON'), watch: false })
    expect((await register(fx.harness)).get()).toMatchObject({ limit: 9 })
  })

  it.each([['empty.yaml', ''], ['comments.yml', '# only a comment\n'], ['blank.json', '  \n']])('reads %s as no sections', async (name, text) => {
    await writeFile(join(fx.dir, name), text)
    fx.harness = await bootFile({ path: join(fx.dir, name), watch: false })
    expect((await register(fx.harness)).get()).toEqual({ engine: 'bing', limit: 5 })
  })

  it('fails loud on an unsupported extension', async () => {
    await expect(bootFile({ path: join(fx.dir, 'settings.toml'), watch: false })).rejects.toThrow(/not supported/)
  })

  it.each([
    ['bad.yaml', 'web-search:\n  engine: [sk-LEAK-1\n  limit: 3\n', /line \d+, column \d+/],
    ['bad.json', '{\n  "web-search": {"apiKey": "sk-LEAK-1",}\n}', /line 2, column \d+/],
  ])('fails the load of unparsable %s with a position and no document text', async (name, text, position) => {
    await writeFile(join(fx.dir, name), text)
    const failure = bootFile({ path: join(fx.dir, name), watch: false })
    await expect(failure).rejects.toThrow(position)
    await expect(failure).rejects.not.toThrow(/sk-LEAK/)
  })

  it('fails the load when the root is not a map of sections', async () => {
    await writeFile(join(fx.dir, 'list.yaml'), '- a\n- b\n')
    await expect(bootFile({ path: join(fx.dir, 'list.yaml'), watch: false })).rejects.toThrow(/map of namespace sections/)
  })

  it('fails the load when the path names a directory', async () => {
    await mkdir(join(fx.dir, 'folder.yaml'))
    await expect(bootFile({ path: join(fx.dir, 'folder.yaml'), watch: false })).rejects.toMatchObject({ code: 'SETTINGS_NOT_A_FILE', kind: 'directory' })
  })

  it('fails the load when the document cannot be read', async () => {
    // Permission bits do not stop root, so an unreadable path is made another way: through a regular file.
    await writeFile(join(fx.dir, 'plain'), 'not a directory')
    await expect(bootFile({ path: join(fx.dir, 'plain', 'settings.yaml'), watch: false })).rejects.toThrow(/ENOTDIR/)
  })
})

describe('writes', () => {
  it('creates the document with owner-only permissions and leaves no temp or lock file', async () => {
    fx.harness = await bootFile({ path: join(fx.dir, 'nested', 'settings.yaml'), watch: false })
    const scope = await register(fx.harness)
    await scope.update({ engine: 'google' })
    const file = join(fx.dir, 'nested', 'settings.yaml')
    // A new document starts with the modeline that points editors at the schema written beside it.
    expect(await readFile(file, 'utf8')).toBe('# yaml-language-server: $schema=./settings.schema.json\nweb-search:\n  engine: google\n')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await stat(join(fx.dir, 'nested'))).mode & 0o777).toBe(0o700)
    // Beside it: the editor schema (written once registrations settle) and the journal of who wrote what; no temp or lock file.
    await eventually(async () => expect((await readdir(join(fx.dir, 'nested'))).sort()).toEqual(['history', 'settings.schema.json', 'settings.yaml']))
  })

  it('writes concurrent updates of several namespaces into the one document', async () => {
    fx.harness = await bootFile({ path: join(fx.dir, 's.yaml'), watch: false })
    const a = await register(fx.harness, 'alpha')
    const b = await register(fx.harness, 'beta')
    await Promise.all([a.update({ limit: 1 }), b.update({ limit: 2 }), a.update({ engine: 'x' })])
    expect(await readFile(join(fx.dir, 's.yaml'), 'utf8')).toBe('# yaml-language-server: $schema=./s.schema.json\nalpha:\n  limit: 1\n  engine: x\nbeta:\n  limit: 2\n')
  })

  it('refuses a write while the document on disk is unparsable and leaves the text untouched', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    const broken = 'web-search:\n  engine: [unclosed\n'
    await writeFile(file, broken)
    await expect(scope.update({ limit: 2 })).rejects.toThrow(/not valid YAML/)
    expect(await readFile(file, 'utf8')).toBe(broken)
    expect(scope.get()).toMatchObject({ engine: 'bing' })
  })

  it('folds in an edit the watcher has not delivered before writing, and catches a stale revision', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    const read = fx.harness.settings.describe()[0]!.revision
    await writeFile(file, 'web-search:\n  engine: google # by hand\n')
    await expect(fx.harness.settings.update('web-search', { limit: 1 }, read)).rejects.toThrow(SettingsConflictError)
    expect(scope.get()).toMatchObject({ engine: 'google' })
    await fx.harness.settings.update('web-search', { limit: 1 })
    expect(await readFile(file, 'utf8')).toBe('web-search:\n  engine: google # by hand\n  limit: 1\n')
  })

  it('writes through a symlinked document, keeping the link', async () => {
    const real = join(fx.dir, 'real.yaml')
    const link = join(fx.dir, 'link.yaml')
    await writeFile(real, 'web-search: {}\n')
    await symlink(real, link)
    fx.harness = await bootFile({ path: link, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ limit: 3 })
    expect((await import('node:fs')).lstatSync(link).isSymbolicLink()).toBe(true)
    expect(await readFile(real, 'utf8')).toBe('web-search: {limit: 3}\n')
  })

  it('keeps the user JSON key order and re-serializes with two spaces', async () => {
    const file = join(fx.dir, 's.json')
    await writeFile(file, '{"zeta": {"a": 1}, "web-search": {"limit": 2, "engine": "x"}}')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ limit: 4 })
    expect(await readFile(file, 'utf8')).toBe('{\n  "zeta": {\n    "a": 1\n  },\n  "web-search": {\n    "limit": 4,\n    "engine": "x"\n  }\n}\n')
  })
})

describe('outside edits', () => {
  it('publishes an outside edit through a real watcher to watch callbacks', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    const seen: string[] = []
    scope.watch((next) => void seen.push(next.engine))
    await writeFile(file, 'web-search:\n  engine: google\n')
    await eventually(() => expect(seen).toEqual(['google']))
  })

  it('keeps the last good value and warns when an edit does not parse, then recovers', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    await writeFile(file, 'web-search:\n  engine: [sk-LEAK\n')
    await eventually(() => expect(fx.harness!.logs.some((line) => line.includes('keeping the last good settings'))).toBe(true))
    expect(scope.get()).toMatchObject({ engine: 'bing' })
    expect(fx.harness.logs.join('\n')).not.toContain('sk-LEAK')
    await writeFile(file, 'web-search:\n  engine: ddg\n')
    await eventually(() => expect(scope.get()).toMatchObject({ engine: 'ddg' }))
  })

  it('publishes the empty document when the file is deleted', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: google\n')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    await unlink(file)
    await eventually(() => expect(scope.get()).toEqual({ engine: 'bing', limit: 5 }))
  })

  it('does not re-publish its own writes', async () => {
    const file = join(fx.dir, 's.yaml')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    const seen: string[] = []
    const sentinel = deferred()
    fx.harness.root.on('settings/updated', (_ns, next, _prev, source) => {
      const { engine, limit } = next as { engine: string; limit: number }
      seen.push(`${source} ${engine} ${limit}`)
      if (engine === 'sentinel') sentinel.resolve()
    })
    await scope.update({ limit: 8 })
    // A sentinel edit after the write: reloads run one at a time in the order the watcher asks for them,
    // so whatever the write's own file events set off is heard before the sentinel.
    await writeFile(file, 'web-search:\n  limit: 8\n  engine: sentinel\n')
    await sentinel.promise
    expect(seen).toEqual(['update bing 8', 'provider sentinel 8'])
  })

  it('heals a missed watcher event with the periodic re-check', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    // A debounce far longer than the test stands in for an event the file system never delivers.
    fx.harness = await bootFile({ path: file, debounceMs: 60_000, recheckMs: 50 })
    const scope = await register(fx.harness)
    await writeFile(file, 'web-search:\n  engine: google\n')
    await eventually(() => expect(scope.get()).toMatchObject({ engine: 'google' }))
  })

  it('publishes nothing after disposal and leaves no lock or temp file', async () => {
    const file = join(fx.dir, 's.yaml')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    await scope.update({ limit: 1 })
    const events: unknown[] = []
    fx.harness.root.on('settings/updated', (...args) => void events.push(args))
    await fx.harness.dispose()
    // A second provider on the same file, watching the same way, is the witness: by the time it has
    // published the edit after the late one, the disposed provider had every chance to publish the late one.
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const witness = await register(fx.harness)
    const arrived = { late: deferred(), sentinel: deferred() }
    witness.watch((next) => arrived[next.engine as keyof typeof arrived]?.resolve())
    await writeFile(file, 'web-search:\n  engine: late\n')
    await arrived.late.promise
    await writeFile(file, 'web-search:\n  engine: sentinel\n')
    await arrived.sentinel.promise
    expect(events).toEqual([])
    await fx.harness.dispose()
    fx.harness = undefined
    // The editor schema and the history of the write stay (they describe the document, not a write in progress); nothing else does.
    expect((await readdir(fx.dir)).sort()).toEqual(['history', 's.schema.json', 's.yaml'])
  })
})

describe('prepareDocument', () => {
  it('creates an empty owner-only document when none exists and keeps an existing one', async () => {
    const file = join(fx.dir, 'home', 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    await expect(fx.harness.settings.prepareDocument()).resolves.toBe(file)
    expect(await readFile(file, 'utf8')).toBe('# yaml-language-server: $schema=./settings.schema.json\n')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    await writeFile(file, 'a: {}\n')
    await fx.harness.settings.prepareDocument()
    expect(await readFile(file, 'utf8')).toBe('a: {}\n')
  })
})
