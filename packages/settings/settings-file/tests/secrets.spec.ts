// Secrets outside the document (issue 37): references resolve before the seam sees a section, secrets written
// through the settings go to secrets.yaml with a reference in the document, `!env`/`!file` places are read-only.
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import type { SettingsScope } from 'dsh-settings'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const schema = () => Schema.object({ engine: Schema.string().default('bing'), apiKey: Schema.string().role('secret'), token: Schema.string().role('secret') })
type Section = ReturnType<ReturnType<typeof schema>>

const fx = fileFixture()
const KEY = 'sk-live-7f3a9c41'
const OTHER = 'sk-live-b0b0b0b0'

async function register(h: FileHarness, ns = 'web-search'): Promise<SettingsScope<Section>> {
  let scope!: SettingsScope<Section>
  await h.root.inject(['settings'], (ctx) => {
    scope = ctx.settings.register(ns, schema())
  })
  return scope
}

/** Everything a user or a peer could see of the provider: logs, descriptors, the editor schema. */
async function visible(h: FileHarness, dir: string, document = 'settings.yaml'): Promise<string> {
  const schemaFile = await readFile(join(dir, document.replace(/\.(yaml|json)$/, '.schema.json')), 'utf8').catch(() => '')
  return [h.logs.join('\n'), JSON.stringify(h.settings.describe({ redactSecrets: true })), schemaFile].join('\n')
}

describe('references in the document', () => {
  it('resolves !secret from secrets.yaml, !env from the environment and a relative !file from the document folder', async () => {
    process.env.DSH_TEST_SECRETS_TOKEN = OTHER
    try {
      await writeFile(join(fx.dir, 'settings.yaml'), 'web-search:\n  apiKey: !secret web-search.apiKey\n  token: !env DSH_TEST_SECRETS_TOKEN\nother:\n  apiKey: !file ./key.txt\n')
      await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${KEY}\n`, { mode: 0o600 })
      await writeFile(join(fx.dir, 'key.txt'), 'from-a-file\n')
      fx.harness = await bootFile({ path: join(fx.dir, 'settings.yaml'), watch: false })
      const scope = await register(fx.harness)
      const other = await register(fx.harness, 'other')
      expect(scope.get()).toMatchObject({ apiKey: KEY, token: OTHER })
      expect(other.get()).toMatchObject({ apiKey: 'from-a-file' })
      const slots = JSON.stringify(fx.harness.settings.describe({ redactSecrets: true }))
      expect(slots).toContain('"source":"store"')
      expect(slots).toContain('"reference":"web-search.apiKey"')
      expect(slots).toContain('"source":"env"')
      expect(slots).toContain('"reference":"DSH_TEST_SECRETS_TOKEN"')
      expect(await visible(fx.harness, fx.dir)).not.toContain(KEY)
      expect(await visible(fx.harness, fx.dir)).not.toContain(OTHER)
    } finally {
      delete process.env.DSH_TEST_SECRETS_TOKEN
    }
  })

  it('resolves { "$secret": … } objects in a JSON document', async () => {
    await writeFile(join(fx.dir, 's.json'), JSON.stringify({ 'web-search': { apiKey: { $secret: 'web-search.apiKey' } } }))
    await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${KEY}\n`)
    fx.harness = await bootFile({ path: join(fx.dir, 's.json'), watch: false })
    expect((await register(fx.harness)).get()).toMatchObject({ apiKey: KEY })
  })

  it('fails a section whose reference does not resolve, with a warning naming the reference and no value', async () => {
    await writeFile(join(fx.dir, 'settings.yaml'), 'web-search:\n  engine: google\n  apiKey: !secret web-search.missing\n')
    await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${KEY}\n`)
    fx.harness = await bootFile({ path: join(fx.dir, 'settings.yaml'), watch: false })
    // The section fails as an invalid one does: its plugin's registration is refused, naming the place, never a value.
    const refused = await register(fx.harness).then(() => undefined, (error: Error) => error)
    expect(refused).toMatchObject({ name: 'SettingsValidationError' })
    expect(refused!.message).not.toContain(KEY)
    expect(fx.harness.logs.join('\n')).toContain('!secret web-search.missing')
    expect(await visible(fx.harness, fx.dir)).not.toContain(KEY)
  })

  it('keeps the last good section when a reload brings a reference that does not resolve', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, 'web-search:\n  engine: google\n  apiKey: !secret web-search.apiKey\n')
    await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${KEY}\n`)
    fx.harness = await bootFile({ path: file, debounceMs: 20, recheckMs: 50 })
    const scope = await register(fx.harness)
    expect(scope.get()).toMatchObject({ engine: 'google', apiKey: KEY })
    await writeFile(file, 'web-search:\n  engine: yahoo\n  apiKey: !env DSH_TEST_SURELY_UNSET\n')
    await eventually(() => expect(fx.harness!.logs.join('\n')).toContain('!env DSH_TEST_SURELY_UNSET'))
    expect(scope.get()).toMatchObject({ engine: 'google', apiKey: KEY })
  })

  it('finds a reference a hand edit puts into a large section, beside parts the reread keeps and inside one it changes', async () => {
    process.env.DSH_TEST_SECRETS_TOKEN = OTHER
    try {
      const file = join(fx.dir, 'settings.yaml')
      // Over the nested reread's threshold, so a small edit reads only the changed stretch and keeps the other objects.
      const mirrors = Array.from({ length: 800 }, (_, index) => `    - url: https://m${index}.example/search\n      note: mirror ${index} of the search engine`).join('\n')
      const text = (token: string, note: string) => `web-search:\n  engine: google\n  token: ${token}\n  mirrors:\n${mirrors.replace('note: mirror 400 of the search engine', `note: ${note}`)}\n`
      await writeFile(file, text('plain', 'mirror 400 of the search engine'))
      fx.harness = await bootFile({ path: file, debounceMs: 20, recheckMs: 0 })
      let scope!: SettingsScope<{ engine: string; token: string; mirrors: { url: string; note: string }[] }>
      const mirror = Schema.object({ url: Schema.string(), note: Schema.string() })
      await fx.harness.root.inject(['settings'], (ctx) => {
        scope = ctx.settings.register('web-search', Schema.object({ engine: Schema.string(), token: Schema.string().role('secret'), mirrors: Schema.array(mirror) }))
      })
      expect(scope.get().token).toBe('plain')
      // Beside the mirrors, which the reread keeps as they were.
      await writeFile(file, text('!env DSH_TEST_SECRETS_TOKEN', 'mirror 400 of the search engine'))
      await eventually(() => expect(scope.get().token).toBe(OTHER))
      // Inside the mirrors, one item of 800 changed.
      await writeFile(file, text('!env DSH_TEST_SECRETS_TOKEN', '!env DSH_TEST_SECRETS_TOKEN'))
      await eventually(() => expect(scope.get().mirrors[400]!.note).toBe(OTHER))
      expect(scope.get().mirrors[399]!.note).toBe('mirror 399 of the search engine')
    } finally {
      delete process.env.DSH_TEST_SECRETS_TOKEN
    }
  })
})

describe('writes go to the store', () => {
  it('stores a new secret in secrets.yaml (0600) and writes the reference in the document', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, '# mine\nweb-search:\n  engine: bing # kept\n')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: KEY })
    expect(await readFile(file, 'utf8')).toBe('# mine\nweb-search:\n  engine: bing # kept\n  apiKey: !secret web-search.apiKey\n')
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toBe(`web-search.apiKey: ${KEY}\n`)
    expect((await stat(join(fx.dir, 'secrets.yaml'))).mode & 0o777).toBe(0o600)
    expect(scope.get()).toMatchObject({ apiKey: KEY })
    expect(await visible(fx.harness, fx.dir)).not.toContain(KEY)
  })

  it('stores a number or boolean secret typed in secrets.yaml, so it resolves to what was written', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    let pin!: SettingsScope<{ code?: number; strict?: boolean }>
    await fx.harness.root.inject(['settings'], (ctx) => {
      pin = ctx.settings.register('pin', Schema.object({ code: Schema.number().role('secret'), strict: Schema.boolean().role('secret') }))
    })
    await pin.update({ code: 774391, strict: true })
    // A new document starts with the editor schema's modeline.
    expect(await readFile(file, 'utf8')).toMatch(/\npin:\n {2}code: !secret pin\.code\n {2}strict: !secret pin\.strict\n$/)
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toBe('pin.code: 774391\npin.strict: true\n')
    expect(pin.get()).toEqual({ code: 774391, strict: true })
    await fx.harness.dispose()
    // A restart reads them back typed, as the schema wants them.
    fx.harness = await bootFile({ path: file, watch: false })
    await fx.harness.root.inject(['settings'], (ctx) => {
      pin = ctx.settings.register('pin', Schema.object({ code: Schema.number().role('secret'), strict: Schema.boolean().role('secret') }))
    })
    expect(pin.get()).toEqual({ code: 774391, strict: true })
  })

  it('stores a scoped secret under the scope-qualified name', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    await register(fx.harness)
    await fx.harness.settings.update('web-search', { apiKey: KEY }, undefined, 'preset/coder')
    expect(await readFile(file, 'utf8')).toContain('apiKey: !secret preset/coder/web-search.apiKey')
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toContain(`preset/coder/web-search.apiKey: ${KEY}`)
  })

  it('updates the named secret in the store and leaves the document alone for a place held by !secret', async () => {
    const file = join(fx.dir, 'settings.yaml')
    const text = 'web-search:\n  apiKey: !secret shared.key # hand-named\n'
    await writeFile(file, text)
    await writeFile(join(fx.dir, 'secrets.yaml'), `# my secrets\nshared.key: ${KEY}\n`)
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: OTHER })
    expect(await readFile(file, 'utf8')).toBe(text)
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toBe(`# my secrets\nshared.key: ${OTHER}\n`)
    expect(scope.get()).toMatchObject({ apiKey: OTHER })
  })

  it('refuses a change of a place held by !env with SETTINGS_SECRET_READ_ONLY naming the reference, never a value', async () => {
    process.env.DSH_TEST_SECRETS_RO = KEY
    try {
      const file = join(fx.dir, 'settings.yaml')
      const text = 'web-search:\n  apiKey: !env DSH_TEST_SECRETS_RO\n'
      await writeFile(file, text)
      fx.harness = await bootFile({ path: file, watch: false })
      const scope = await register(fx.harness)
      const refused = scope.update({ apiKey: OTHER })
      await expect(refused).rejects.toMatchObject({ code: 'SETTINGS_SECRET_READ_ONLY' })
      const error = await refused.catch((caught: Error) => caught)
      expect((error as Error).message).toContain('!env DSH_TEST_SECRETS_RO')
      expect((error as Error).message).not.toContain(KEY)
      expect((error as Error).message).not.toContain(OTHER)
      // A write that keeps the value (another field) passes, and the reference stays.
      await scope.update({ engine: 'google' })
      expect(await readFile(file, 'utf8')).toBe('web-search:\n  apiKey: !env DSH_TEST_SECRETS_RO\n  engine: google\n')
    } finally {
      delete process.env.DSH_TEST_SECRETS_RO
    }
  })

  it('removes the name from the store when the secret is unset', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: KEY, engine: 'google' })
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toContain(KEY)
    await scope.replace({ engine: 'google' })
    expect(await readFile(file, 'utf8')).not.toContain('apiKey')
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).not.toContain(KEY)
  })

  it('leaves an inline secret byte for byte when a write changes another field, and moves it at its own next write', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, `web-search:\n  apiKey: ${KEY}\n`)
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    expect(scope.get()).toMatchObject({ apiKey: KEY })
    await scope.update({ engine: 'google' })
    expect(await readFile(file, 'utf8')).toBe(`web-search:\n  apiKey: ${KEY}\n  engine: google\n`)
    await scope.update({ apiKey: `${KEY}-2` })
    expect(await readFile(file, 'utf8')).toBe('web-search:\n  apiKey: !secret web-search.apiKey\n  engine: google\n')
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toContain(`${KEY}-2`)
    expect(scope.get()).toMatchObject({ apiKey: `${KEY}-2`, engine: 'google' })
  })

  it('writes a { "$secret": … } object in a JSON document', async () => {
    const file = join(fx.dir, 's.json')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: KEY, engine: 'google' })
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ 'web-search': { apiKey: { $secret: 'web-search.apiKey' }, engine: 'google' } })
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toBe(`web-search.apiKey: ${KEY}\n`)
    expect(scope.get()).toMatchObject({ apiKey: KEY })
  })

  it("keeps secrets in the document with secrets: 'inline'", async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false, secrets: 'inline' })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: KEY })
    expect(await readFile(file, 'utf8')).toContain(`apiKey: ${KEY}`)
    await expect(stat(join(fx.dir, 'secrets.yaml'))).rejects.toThrow()
  })
})

describe('the store file', () => {
  it('brings a hand edit of secrets.yaml to the plugin', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, 'web-search:\n  apiKey: !secret web-search.apiKey\n')
    await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${KEY}\n`)
    fx.harness = await bootFile({ path: file, debounceMs: 20, recheckMs: 50 })
    const scope = await register(fx.harness)
    expect(scope.get()).toMatchObject({ apiKey: KEY })
    await writeFile(join(fx.dir, 'secrets.yaml'), `web-search.apiKey: ${OTHER}\n`)
    await eventually(() => expect(scope.get()).toMatchObject({ apiKey: OTHER }))
  })

  it('never keeps secrets.yaml in history', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    await scope.update({ apiKey: KEY })
    await scope.update({ apiKey: OTHER })
    await scope.update({ engine: 'x' })
    const kept = await fx.harness.settings.history()
    expect(kept.length).toBeGreaterThan(0)
    const { readdir } = await import('node:fs/promises')
    for (const name of await readdir(join(fx.dir, 'history'))) expect(await readFile(join(fx.dir, 'history', name), 'utf8')).not.toMatch(/sk-live/)
    // A kept version read for a restore resolves its references (the store's value today), as a load does.
    const documents = await Promise.all(kept.map((version) => fx.harness!.settings.historyDocument(version.id)))
    const keys = documents.map((document) => (document['web-search'] as { apiKey?: unknown } | undefined)?.apiKey).filter((key) => key !== undefined)
    expect(keys.length).toBeGreaterThan(0)
    for (const key of keys) expect(key).toBe(OTHER)
  })
})
