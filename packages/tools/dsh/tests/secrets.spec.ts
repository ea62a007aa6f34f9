/**
 * The command's side of secrets outside the document (issue 37): `settings
 * check` reports a reference that does not resolve at its place, naming it and
 * never a value (the deployment's `secrets:` mode deciding which store a
 * `!secret` is asked in); `get` says where a secret held by a reference comes
 * from, with no host running and through one; `set` of a field held by `!env`
 * is refused; `secrets move` moves every inline secret into the store and
 * says only how many, leaving no value in the document or its kept versions.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runDsh } from '../src/main.ts'
import { recordCatalog } from './catalog-host.ts'
import { useHosts, WORKSPACE, type Ran } from './hosts.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const EXAMPLE = `${FIXTURES}/cordis.yml`
const INLINE = `${FIXTURES}/secrets-inline.cordis.yml`
const hosts = useHosts()

/** Values planted in the stores, the environment and files: none may reach any output. */
const STORED = 'stored-secret-value-1'
const FROM_ENV = 'env-secret-value-2'
const FROM_FILE = 'file-secret-value-3'
const INLINE_KEY = 'inline-secret-value-4'
const INLINE_TOKEN = 'inline-mirror-token-5'

/** `dsh <args>` in process with `DSH_HOME=dir` and `env` added: exit code and output lines. */
async function dshEnv(dir: string, env: Record<string, string>, ...args: string[]): Promise<Ran> {
  return dshInput(dir, env, undefined, ...args)
}

/** {@link dshEnv} with `input` on standard input (a pipe, not a terminal). */
async function dshInput(dir: string, env: Record<string, string>, input: string | undefined, ...args: string[]): Promise<Ran> {
  const out: string[] = []
  const err: string[] = []
  const stdin = input === undefined ? undefined : Readable.from([Buffer.from(input)])
  const code = await runDsh(args, { out: (line) => out.push(...line.split('\n')), err: (line) => err.push(...line.split('\n')), cwd: WORKSPACE, env: { DSH_HOME: dir, DSH_PORT: '0', ...env }, conditions: ['source'], stdin })
  return { code, out, err }
}

const printed = (ran: Ran) => [...ran.out, ...ran.err].join('\n')

/** Each planted value, absent from `text`. */
function noValueIn(text: string): void {
  for (const value of [STORED, FROM_ENV, FROM_FILE, INLINE_KEY, INLINE_TOKEN]) expect(text).not.toContain(value)
}

/** A document holding one reference of each kind (global, and scoped for `!secret`). */
function referencing(dir: string): void {
  writeFileSync(join(dir, 'settings.yaml'), ['web-search:', '  limit: 5', '  apiKey: !env DSH_TEST_SEARCH_KEY', '  mirrors:', '    - url: https://mirror.example', `      token: !file ${join(dir, 'token.txt')}`, 'scopes:', '  preset/coder:', '    web-search:', '      apiKey: !secret preset/coder/web-search.apiKey', ''].join('\n'))
}

describe('settings check and references', () => {
  it('reports each reference that does not resolve at its tag, naming it and no value', async () => {
    const dir = hosts.home('dsh-secrets-check-')
    referencing(dir)
    const ran = await dshEnv(dir, {}, 'settings', 'check', EXAMPLE)
    expect(ran.code).toBe(1)
    const lines = ran.out.filter((line) => line.endsWith('[unresolved-reference]'))
    expect(lines).toEqual([
      expect.stringMatching(/settings\.yaml:3:11: web-search \$\.apiKey: !env DSH_TEST_SEARCH_KEY does not resolve: the environment variable is not set \[unresolved-reference\]$/),
      expect.stringMatching(/settings\.yaml:6:14: web-search \$\.mirrors\[0\]\.token: !file \S+token\.txt does not resolve: .*\[unresolved-reference\]$/),
      expect.stringMatching(/settings\.yaml:10:15: web-search in preset\/coder \$\.apiKey: !secret preset\/coder\/web-search\.apiKey does not resolve: the file secret store holds no such name \[unresolved-reference\]$/),
    ])
    // The references explain themselves: no other problem is reported at their places.
    expect(ran.out.filter((line) => /:(3:11|6:14|10:15): /.test(line) && !line.endsWith('[unresolved-reference]'))).toEqual([])

    writeFileSync(join(dir, 'token.txt'), `${FROM_FILE}\n`)
    writeFileSync(join(dir, 'secrets.yaml'), `preset/coder/web-search.apiKey: ${STORED}\n`, { mode: 0o600 })
    const clean = await dshEnv(dir, { DSH_TEST_SEARCH_KEY: FROM_ENV }, 'settings', 'check', EXAMPLE)
    expect({ code: clean.code, out: clean.out.filter((line) => line.includes('['))}).toEqual({ code: 0, out: [] })
    noValueIn(printed(ran) + printed(clean))
  })

  it('reads a reference in a JSON document in its JSON form', async () => {
    const dir = hosts.home('dsh-secrets-json-')
    writeFileSync(join(dir, 'settings.json'), '{\n  "web-search": {\n    "apiKey": { "$env": "DSH_TEST_SEARCH_KEY" }\n  }\n}\n')
    const ran = await dshEnv(dir, {}, 'settings', 'check', EXAMPLE, join(dir, 'settings.json'))
    expect(ran.code).toBe(1)
    expect(ran.out).toContainEqual(expect.stringMatching(/settings\.json:3:5: web-search \$\.apiKey: !env DSH_TEST_SEARCH_KEY does not resolve: the environment variable is not set \[unresolved-reference\]$/))
    expect((await dshEnv(dir, { DSH_TEST_SEARCH_KEY: FROM_ENV }, 'settings', 'check', EXAMPLE, join(dir, 'settings.json'))).code).toBe(0)
  })

  it('asks no store for a !secret when the deployment keeps its secrets inline', async () => {
    const dir = hosts.home('dsh-secrets-inline-')
    writeFileSync(join(dir, 'settings.yaml'), 'web-search:\n  apiKey: !secret web-search.apiKey\n')
    writeFileSync(join(dir, 'secrets.yaml'), `web-search.apiKey: ${STORED}\n`, { mode: 0o600 })
    const ran = await dshEnv(dir, {}, 'settings', 'check', INLINE)
    expect(ran.code).toBe(1)
    expect(ran.out).toContainEqual(expect.stringMatching(/settings\.yaml:2:11: web-search \$\.apiKey: !secret web-search\.apiKey does not resolve: this deployment has no secret store \(`secrets: inline`\) \[unresolved-reference\]$/))
    noValueIn(printed(ran))
  })
})

describe('get and set of a field a reference holds', () => {
  it('with no host running: get says where it comes from, --show-secrets resolves it, set is refused', async () => {
    const dir = hosts.home('dsh-secrets-get-', `${FIXTURES}/clean.yaml`)
    await recordCatalog(hosts, dir, EXAMPLE)
    referencing(dir)
    writeFileSync(join(dir, 'token.txt'), `${FROM_FILE}\n`)
    writeFileSync(join(dir, 'secrets.yaml'), `preset/coder/web-search.apiKey: ${STORED}\n`, { mode: 0o600 })
    const env = { DSH_TEST_SEARCH_KEY: FROM_ENV }
    const get = (...args: string[]) => dshEnv(dir, env, 'settings', 'get', '-d', EXAMPLE, ...args)
    const all: Ran[] = []
    const json = async (...args: string[]) => {
      const ran = await get(...args, '--json')
      all.push(ran)
      expect(ran.code).toBe(0)
      return JSON.parse(ran.out.join('\n'))
    }
    expect(await json('web-search.apiKey')).toEqual({ secret: true, set: true, source: 'env', reference: 'DSH_TEST_SEARCH_KEY' })
    expect((await json('web-search')).mirrors[0].token).toEqual({ secret: true, set: true, source: 'file', reference: join(dir, 'token.txt') })
    expect(await json('web-search.apiKey', '--scope', 'preset/coder')).toEqual({ secret: true, set: true, source: 'store', reference: 'preset/coder/web-search.apiKey' })
    const text = await get('web-search.apiKey')
    all.push(text)
    expect(text.out).toEqual(['(set: !env DSH_TEST_SEARCH_KEY)'])
    noValueIn(all.map(printed).join('\n'))
    // Only --show-secrets prints a value: the one the reference stands for, as the provider resolves it.
    expect((await get('web-search.apiKey', '--show-secrets')).out).toEqual([FROM_ENV])
    expect((await get('web-search.apiKey', '--show-secrets', '--scope', 'preset/coder')).out).toEqual([STORED])

    // A variable unset here reads as not set, with a note naming the reference.
    const unset = await dshEnv(dir, {}, 'settings', 'get', '-d', EXAMPLE, 'web-search.apiKey', '--json')
    expect(JSON.parse(unset.out.join('\n'))).toEqual({ secret: true, set: false })
    expect(unset.err).toContainEqual(expect.stringContaining('!env DSH_TEST_SEARCH_KEY does not resolve'))

    const before = readFileSync(join(dir, 'settings.yaml'), 'utf8')
    const set = await dshInput(dir, env, 'replacement-value', 'settings', 'set', '-d', EXAMPLE, 'web-search.apiKey')
    expect(set.code).toBe(1)
    expect(set.err.join('\n')).toMatch(/!env DSH_TEST_SEARCH_KEY/)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(before)
    noValueIn(printed(set))
  })

  it('through a running host: get --json carries the source the host describes', async () => {
    const dir = hosts.home('dsh-secrets-host-')
    referencing(dir)
    writeFileSync(join(dir, 'token.txt'), `${FROM_FILE}\n`)
    writeFileSync(join(dir, 'secrets.yaml'), `preset/coder/web-search.apiKey: ${STORED}\n`, { mode: 0o600 })
    const env = { DSH_TEST_SEARCH_KEY: FROM_ENV }
    await hosts.start(dir, EXAMPLE, env)
    const ran = await dshEnv(dir, env, 'settings', 'get', '-d', EXAMPLE, 'web-search.apiKey', '--json')
    expect(ran.err.join('\n')).not.toContain('provider')
    expect(JSON.parse(ran.out.join('\n'))).toEqual({ secret: true, set: true, source: 'env', reference: 'DSH_TEST_SEARCH_KEY' })
    const before = readFileSync(join(dir, 'settings.yaml'), 'utf8')
    const set = await dshInput(dir, env, 'replacement-value', 'settings', 'set', '-d', EXAMPLE, 'web-search.apiKey')
    expect(set.code).toBe(1)
    expect(set.err.join('\n')).toMatch(/!env DSH_TEST_SEARCH_KEY/)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(before)
    noValueIn(printed(ran) + printed(set))
  })
})

describe('settings secrets move', () => {
  it('moves every inline secret into secrets.yaml, says how many, and leaves no value in the document or history', async () => {
    const dir = hosts.home('dsh-secrets-move-', `${FIXTURES}/clean.yaml`)
    await recordCatalog(hosts, dir, EXAMPLE)
    writeFileSync(join(dir, 'settings.yaml'), readFileSync(join(dir, 'settings.yaml'), 'utf8').replace('clean-secret-value', INLINE_KEY).replace('clean-mirror-token', INLINE_TOKEN))
    // A write to a section holding no secret (a write moves its own section's), so the values reach a kept version.
    expect((await dshEnv(dir, {}, 'settings', 'set', '-d', EXAMPLE, 'web-search.limit', '7', '--scope', 'preset/coder')).code).toBe(0)
    const kept = () => readdirSync(join(dir, 'history'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
    expect(kept().some((file) => readFileSync(file, 'utf8').includes(INLINE_KEY))).toBe(true)
    const moved = await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', EXAMPLE)
    // web-search's apiKey and mirror token, assistant's provider key.
    expect(moved).toMatchObject({ code: 0, out: [`moved 3 secrets into ${join(dir, 'secrets.yaml')}`] })
    noValueIn(printed(moved))
    for (const file of [join(dir, 'settings.yaml'), ...kept()]) noValueIn(readFileSync(file, 'utf8'))
    expect(readFileSync(join(dir, 'secrets.yaml'), 'utf8')).toContain(INLINE_KEY)
    // The plugins still read the values: through the store now.
    expect((await dshEnv(dir, {}, 'settings', 'get', '-d', EXAMPLE, 'web-search.apiKey', '--show-secrets')).out).toEqual([INLINE_KEY])
    const json = await dshEnv(dir, {}, 'settings', 'get', '-d', EXAMPLE, 'web-search.apiKey', '--json')
    expect(JSON.parse(json.out.join('\n'))).toEqual({ secret: true, set: true, source: 'store', reference: 'web-search.apiKey' })
    // Nothing left to move.
    expect((await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', EXAMPLE, '--json')).out).toEqual([JSON.stringify({ moved: 0, store: 'file', where: join(dir, 'secrets.yaml') })])
  })

  it('moves beside a running host, which then reads the secrets from the store', async () => {
    const dir = hosts.home('dsh-secrets-move-host-', `${FIXTURES}/clean.yaml`)
    await recordCatalog(hosts, dir, EXAMPLE)
    await hosts.start(dir, EXAMPLE)
    const moved = await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', EXAMPLE)
    expect(moved).toMatchObject({ code: 0, out: [`moved 3 secrets into ${join(dir, 'secrets.yaml')}`] })
    noValueIn(readFileSync(join(dir, 'settings.yaml'), 'utf8'))
    // The host reloads the document as after a hand edit; the command asks it until it has.
    const deadline = Date.now() + 20_000
    let mark: unknown
    for (;;) {
      const ran = await dshEnv(dir, {}, 'settings', 'get', '-d', EXAMPLE, 'web-search.apiKey', '--json')
      expect(ran.code).toBe(0)
      mark = JSON.parse(ran.out.join('\n'))
      if ((mark as { source?: string }).source === 'store' || Date.now() > deadline) break
      await new Promise((done) => setTimeout(done, 200))
    }
    expect(mark).toEqual({ secret: true, set: true, source: 'store', reference: 'web-search.apiKey' })
  })

  it('refuses what it cannot do, with the usual exit codes', async () => {
    const dir = hosts.home('dsh-secrets-refuse-', `${FIXTURES}/clean.yaml`)
    const help = await dshEnv(dir, {}, 'settings', 'secrets', 'move', '--help')
    expect(help.code).toBe(0)
    expect(help.out.join('\n')).toContain('usage: dsh settings secrets move')
    expect((await dshEnv(dir, {}, 'settings', 'secrets', 'shuffle', '-d', EXAMPLE)).code).toBe(2)
    expect((await dshEnv(dir, {}, 'settings', 'secrets', 'move', '--bogus')).code).toBe(2)
    expect((await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', `${FIXTURES}/missing.cordis.yml`)).code).toBe(2)
    // No schema recorded: nothing tells a secret from another value.
    const unrecorded = await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', EXAMPLE)
    expect(unrecorded.code).toBe(1)
    expect(unrecorded.err.join('\n')).toContain('start the host once')
    const inline = await dshEnv(dir, {}, 'settings', 'secrets', 'move', '-d', INLINE)
    expect(inline.code).toBe(1)
    expect(inline.err.join('\n')).toContain('secrets: inline')
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(readFileSync(join(WORKSPACE, FIXTURES, 'clean.yaml'), 'utf8'))
  })
})
