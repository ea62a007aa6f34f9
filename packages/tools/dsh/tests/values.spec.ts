/**
 * `dsh settings get | set | unset | reset | history | diff | restore` on the
 * example deployment: through the deployment's provider when no host runs
 * (the same file lock, schema checks and kept versions a host uses), and
 * through a running host's wire when one does, so its plugins see the change
 * at once. Secrets print as `(set)` and never reach an output line unless
 * asked for; every refusal has its exit code.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { VALUE_COMMANDS } from '../src/values/commands.ts'
import { recordCatalog } from './catalog-host.ts'
import { dsh, useHosts } from './hosts.ts'
import { storedSettings } from './stored.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/cordis.yml`
const hosts = useHosts()
const SECRET = 'clean-secret-value'
const MIRROR_SECRET = 'clean-mirror-token'

/** A home holding the clean example document. */
const home = () => hosts.home('dsh-settings-values-', `${FIXTURES}/clean.yaml`)

/** A home holding the clean example document and the schemas its host recorded when it last ran (started once, then stopped). */
async function recordedHome(): Promise<string> {
  const dir = home()
  await recordCatalog(hosts, dir, DEPLOYMENT)
  return dir
}


/** The stored settings, secrets read from the store where the provider keeps them. */
const stored = storedSettings

describe('dsh settings through the provider (no host running)', () => {
  it('gets a value as the plugin reads it, a section as YAML with secrets as (set), and JSON for scripts', async () => {
    const dir = await recordedHome()
    expect(await dsh(dir, 'settings', 'get', 'web-search.limit', '-d', DEPLOYMENT)).toMatchObject({ code: 0, out: ['25'] })
    expect(await dsh(dir, 'settings', 'get', 'web-search.limit', '--scope', 'preset/coder', '-d', DEPLOYMENT)).toMatchObject({ code: 0, out: ['30'] })
    const section = await dsh(dir, 'settings', 'get', 'web-search', '-d', DEPLOYMENT)
    expect(section.code).toBe(0)
    expect(parse(section.out.join('\n'))).toMatchObject({ engine: 'google', apiKey: '(set)', mirrors: [{ url: 'https://mirror.example', token: '(set)' }] })
    const json = await dsh(dir, 'settings', 'get', 'web-search.safeSearch', '--json', '-d', DEPLOYMENT)
    expect(JSON.parse(json.out.join('\n'))).toEqual({ enabled: true, level: 'strict' })
    for (const result of [section, json]) expect(JSON.stringify(result)).not.toContain(SECRET)
    expect(JSON.stringify(section)).not.toContain(MIRROR_SECRET)
    // Asked for, a secret's value is read through the provider.
    expect(await dsh(dir, 'settings', 'get', 'web-search.apiKey', '--show-secrets', '-d', DEPLOYMENT)).toMatchObject({ code: 0, out: [SECRET] })
  })

  it('sets, unsets and resets through the file, keeping versions that history, diff and restore read', async () => {
    const dir = await recordedHome()
    const set = await dsh(dir, 'settings', 'set', 'web-search.limit', '40', '-d', DEPLOYMENT)
    expect(set.code).toBe(0)
    expect(set.out[0]).toMatch(/^set web-search\.limit \(revision \d+, via the provider, .*settings\.yaml\)$/)
    expect(stored(dir)['web-search'].limit).toBe(40)
    // The rest of the section, and the hand-written file around it, stay.
    expect(stored(dir)['web-search'].apiKey).toBe(SECRET)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toContain('# Every section valid: the check finds nothing.')

    expect((await dsh(dir, 'settings', 'set', 'web-search.safeSearch', '--json', '{"enabled": false}', '--scope', 'preset/coder', '-d', DEPLOYMENT)).code).toBe(0)
    expect(stored(dir).scopes['preset/coder']['web-search']).toEqual({ limit: 30, safeSearch: { enabled: false } })
    expect((await dsh(dir, 'settings', 'unset', 'web-search.engine', '-d', DEPLOYMENT)).code).toBe(0)
    expect(stored(dir)['web-search']).not.toHaveProperty('engine')
    // What the plugin reads now comes from the layer below: the deployment file's base (engine: bing).
    expect((await dsh(dir, 'settings', 'get', 'web-search.engine', '-d', DEPLOYMENT)).out).toEqual(['bing'])

    const history = await dsh(dir, 'settings', 'history', '-d', DEPLOYMENT)
    expect(history.code).toBe(0)
    expect(history.out).toHaveLength(3)
    // Newest first: the two writes, then the hand-written file (made outside the seam; the oldest lists every section).
    // A write the command makes itself (no host) is the command's, not the wire's.
    expect(history.out[0]).toMatch(/^\S+ {2}written \S+ {2}by command {2}web-search in preset\/coder$/)
    expect(history.out[2]).toMatch(/^\S+ {2}written \S+ {2}by unknown {2}web-search, assistant, /)
    const first = history.out[2]!.split(' ')[0]!
    const diff = await dsh(dir, 'settings', 'diff', first, '-d', DEPLOYMENT)
    expect(diff.out).toEqual(expect.arrayContaining(['web-search $.limit: 25 → 40', 'web-search $.engine: "google" → (none)']))
    expect(JSON.stringify(diff)).not.toContain(SECRET)

    const restore = await dsh(dir, 'settings', 'restore', first, 'web-search', '-d', DEPLOYMENT)
    expect(restore).toMatchObject({ code: 0, out: ['restored web-search'] })
    expect(stored(dir)['web-search']).toMatchObject({ engine: 'google', limit: 25, apiKey: SECRET })

    const reset = await dsh(dir, 'settings', 'reset', 'web-search', '--scope', 'preset/coder', '--json', '-d', DEPLOYMENT)
    expect(reset.code).toBe(0)
    expect(JSON.parse(reset.out[0]!)).toMatchObject({ ns: 'web-search', scope: 'preset/coder', via: 'provider' })
    expect(stored(dir).scopes['preset/coder']['web-search']).toEqual({})
  })

  it('refuses with exit 1 a value the schema refuses, a stale revision, an unknown namespace or version, without echoing the value', async () => {
    const dir = await recordedHome()
    const before = readFileSync(join(dir, 'settings.yaml'), 'utf8')
    const tooMany = await dsh(dir, 'settings', 'set', 'web-search.limit', '987654', '-d', DEPLOYMENT)
    expect(tooMany.code).toBe(1)
    expect(tooMany.err.join('\n')).toMatch(/web-search.*limit/)
    expect(tooMany.err.join('\n')).not.toContain('987654')
    const stale = await dsh(dir, 'settings', 'set', 'web-search.limit', '30', '--revision', '999999', '-d', DEPLOYMENT)
    expect(stale.code).toBe(1)
    expect(stale.err.join('\n')).toContain('[settings/conflict]')
    expect((await dsh(dir, 'settings', 'set', 'nothing-here.x', '1', '-d', DEPLOYMENT)).code).toBe(1)
    expect((await dsh(dir, 'settings', 'get', 'nothing-here', '-d', DEPLOYMENT)).code).toBe(1)
    expect((await dsh(dir, 'settings', 'get', 'web-search.nothing', '-d', DEPLOYMENT)).code).toBe(1)
    expect((await dsh(dir, 'settings', 'diff', 'no-such-version', '-d', DEPLOYMENT)).code).toBe(1)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(before)
  })

  it('with no schema recorded, refuses to print values it cannot tell secrets among, unless --show-secrets asks for them', async () => {
    const dir = home()
    const section = await dsh(dir, 'settings', 'get', 'web-search', '-d', DEPLOYMENT)
    expect(section.code).toBe(1)
    expect(section.err.join('\n')).toContain('--show-secrets')
    expect(JSON.stringify(section)).not.toContain(SECRET)
    expect(JSON.stringify(await dsh(dir, 'settings', 'get', 'web-search', '--json', '-d', DEPLOYMENT))).not.toContain(SECRET)
    const shown = await dsh(dir, 'settings', 'get', 'web-search.apiKey', '--show-secrets', '-d', DEPLOYMENT)
    expect(shown).toMatchObject({ code: 0, out: [SECRET] })
    expect(shown.err.join('\n')).toContain('unchecked')
  })

  it('refuses with exit 2 and the usage what it cannot parse, and prints every command\'s usage for --help', async () => {
    const dir = home()
    for (const args of [
      ['settings', 'set', 'web-search', '1'],
      ['settings', 'set', 'web-search..limit', '1'],
      ['settings', 'set', 'Web_Search.limit', '1'],
      ['settings', 'set', 'web-search.limit'],
      ['settings', 'set', 'web-search.limit', '1', '--frobnicate'],
      ['settings', 'set', 'web-search.limit', '-5'],
      ['settings', 'set', 'web-search.limit', '1', '--revision', 'soon'],
      ['settings', 'reset', 'web-search.limit'],
      ['settings', 'get'],
      ['settings', 'history', 'extra'],
      ['settings', 'restore', 'v', '--scope', 'preset/coder'],
      ['settings', 'frobnicate'],
      ['settings'],
      ['frobnicate'],
      [],
      ['start', 'a.yml', 'b.yml'],
      ['settings', 'check', '--frobnicate'],
    ]) {
      const result = await dsh(dir, ...args, ...(args[0] === 'settings' && VALUE_COMMANDS.includes(args[1] ?? '') ? ['-d', DEPLOYMENT] : []))
      expect({ args, code: result.code }).toEqual({ args, code: 2 })
      expect(result.err.join('\n')).toContain('usage: dsh')
    }
    for (const args of [['--help'], ['settings', '--help'], ['start', '--help'], ['settings', 'check', '--help'], ...VALUE_COMMANDS.map((name) => ['settings', name, '--help'])]) {
      const result = await dsh(dir, ...args)
      expect({ args, code: result.code }).toEqual({ args, code: 0 })
      expect(result.out[0]).toMatch(/^usage: dsh/)
    }
  })

  it('answers exit 3 when the deployment mounts no provider that starts', async () => {
    const dir = home()
    const result = await dsh(dir, 'settings', 'get', 'web-search', '-d', `${FIXTURES}/no-provider.cordis.yml`)
    expect(result.code).toBe(3)
    expect(result.err.join('\n')).toContain('mounts no settings provider')
  })
})

const startHost = async (dir: string, deployment = DEPLOYMENT, env: Record<string, string> = {}) => (await hosts.start(dir, deployment, env)).child

describe('dsh settings through a running host', () => {
  it('writes through the host\'s wire, so its plugins read the change at once, and the record goes when it stops', { timeout: 90_000 }, async () => {
    const dir = home()
    const host = await startHost(dir)
    const record = JSON.parse(readFileSync(join(dir, 'remote-host.json'), 'utf8')) as { url: string; pid: number }
    expect(record.pid).toBe(host.pid)

    const set = await dsh(dir, 'settings', 'set', 'web-search.limit', '33', '-d', DEPLOYMENT)
    expect(set.code).toBe(0)
    expect(set.out[0]).toContain(`via the running host at ${record.url}`)
    expect(stored(dir)['web-search'].limit).toBe(33)
    // The host's own value (what its plugin reads), over its wire.
    expect(await dsh(dir, 'settings', 'get', 'web-search.limit', '-d', DEPLOYMENT)).toMatchObject({ code: 0, out: ['33'] })
    const section = await dsh(dir, 'settings', 'get', 'web-search', '--json', '-d', DEPLOYMENT)
    expect(JSON.parse(section.out.join('\n'))).toMatchObject({ apiKey: { secret: true, set: true }, limit: 33 })
    expect(JSON.stringify(section)).not.toContain(SECRET)
    // A refusal over the wire has the same exit code and never the value.
    const refused = await dsh(dir, 'settings', 'set', 'web-search.limit', '987654', '-d', DEPLOYMENT)
    expect(refused.code).toBe(1)
    expect(refused.err.join('\n')).not.toContain('987654')

    const exited = new Promise((done) => host.once('exit', done))
    host.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(existsSync(join(dir, 'remote-host.json'))).toBe(false)
    // With the host gone, the same command goes through the provider.
    expect((await dsh(dir, 'settings', 'set', 'web-search.limit', '34', '-d', DEPLOYMENT)).out[0]).toContain('via the provider')
  })

  it('never loses a write: commands through the host and through the provider at once all land', { timeout: 90_000 }, async () => {
    const dir = home()
    await startHost(dir)
    // The same deployment without its remote server: those commands find no host and go through the provider.
    const sets: [string, string, string][] = [
      [DEPLOYMENT, 'web-search.limit', '41'],
      [DEPLOYMENT, 'web-search.safeSearch.enabled', 'false'],
      [DEPLOYMENT, 'assistant.model', 'tiny'],
      [`${FIXTURES}/no-remote.cordis.yml`, 'web-search.engine', 'duckduckgo'],
      [`${FIXTURES}/no-remote.cordis.yml`, 'web-search.safeSearch.level', 'moderate'],
      [`${FIXTURES}/no-remote.cordis.yml`, 'assistant.temperature', '0.5'],
    ]
    const results = await Promise.all(sets.map(([deployment, address, value]) => dsh(dir, 'settings', 'set', address, value, '-d', deployment)))
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0, 0, 0])
    expect(results.map((result) => (result.out[0]!.includes('via the running host') ? 'host' : 'provider'))).toEqual(['host', 'host', 'host', 'provider', 'provider', 'provider'])
    const expected = { 'web-search': { limit: 41, safeSearch: { enabled: false, level: 'moderate' }, engine: 'duckduckgo', apiKey: SECRET }, assistant: { model: 'tiny', temperature: 0.5 } }
    expect(stored(dir)).toMatchObject(expected)
    // The running host read the provider-side writes too (its watcher), so its plugins see all six.
    for (const [address, value] of [['web-search.engine', 'duckduckgo'], ['assistant.temperature', '0.5'], ['web-search.limit', '41']]) {
      await expect.poll(async () => (await dsh(dir, 'settings', 'get', address!, '-d', DEPLOYMENT)).out, { timeout: 10_000 }).toEqual([value])
    }
  })

  it('finds the host from the deployment file alone, without loading the deployment\'s plugins', { timeout: 90_000 }, async () => {
    const dir = home()
    const marker = join(dir, 'imports')
    const deployment = `${FIXTURES}/marked.cordis.yml`
    const host = await startHost(dir, deployment, { DSH_IMPORT_MARKER: marker })
    // The host imported the plugin once.
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(1)
    rmSync(marker)
    process.env.DSH_IMPORT_MARKER = marker
    try {
      const set = await dsh(dir, 'settings', 'set', 'web-search.limit', '12', '-d', deployment)
      expect(set.out[0]).toContain('via the running host')
      expect(existsSync(marker)).toBe(false)
      // With no host either: the schemas come from the catalog the host recorded, and no plugin is imported.
      const exited = new Promise((done) => host.once('exit', done))
      host.kill('SIGTERM')
      await exited
      const revealed = await dsh(dir, 'settings', 'get', 'web-search.limit', '--show-secrets', '-d', deployment)
      expect(revealed.out).toEqual(['12'])
      expect((await dsh(dir, 'settings', 'set', 'web-search.limit', '13', '-d', deployment)).out[0]).toContain('via the provider')
      expect(existsSync(marker)).toBe(false)
    } finally {
      delete process.env.DSH_IMPORT_MARKER
    }
  })
})
