/**
 * What `dsh settings get` prints, through the provider and through a running
 * host: a secret as `(set)` / `(not set)` in text and as a
 * `{ "secret": true, "set": … }` mark with `--json`, so a script tells it from
 * a string that reads `(set)`; `--json` prints valid JSON or nothing (exit 1);
 * a namespace waiting for setup with no value says so, naming what it lacks.
 */
import { describe, expect, it } from 'vitest'
import { useHosts, type Ran } from './hosts.ts'
import { dshWithInput } from './stdin.ts'
import { recordCatalog } from './catalog-host.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const EXAMPLE = `${FIXTURES}/cordis.yml`
const SECRET = 'clean-secret-value'
const hosts = useHosts()

/** `dsh settings <command> -d <deployment> <args…>` with `DSH_HOME=dir`. */
const run = (dir: string, deployment: string, input: string | undefined, command: string, ...args: string[]) => dshWithInput(dir, input, 'settings', command, '-d', deployment, ...args)

/** The JSON a `--json` command printed (it must parse). */
const json = (ran: Ran) => JSON.parse(ran.out.join('\n'))

/** `moved`: web-search's apiKey was set through the command, so the secret store holds it (issue 37) and its marks say so. */
async function secretMarks(dir: string, moved = false): Promise<void> {
  const get = (...args: string[]) => run(dir, EXAMPLE, undefined, 'get', ...args)
  const held = (name: string) => (moved ? { source: 'store', reference: name } : {})
  expect(json(await get('web-search.apiKey', '--json'))).toEqual({ secret: true, set: true, ...held('web-search.apiKey') })
  expect(await get('web-search.apiKey')).toMatchObject({ code: 0, out: [moved ? '(set: !secret web-search.apiKey)' : '(set)'] })
  const section = json(await get('web-search', '--json'))
  expect(section).toMatchObject({ apiKey: { secret: true, set: true, ...held('web-search.apiKey') }, mirrors: [{ url: 'https://mirror.example', token: { secret: true, set: true } }] })
  expect(JSON.stringify(section)).not.toContain(SECRET)

  // A string that happens to read "(set)" is a JSON string; the secret, once unset, a mark saying so.
  expect((await run(dir, EXAMPLE, undefined, 'set', 'assistant.model', '(set)')).code).toBe(0)
  expect(json(await get('assistant.model', '--json'))).toBe('(set)')
  expect((await run(dir, EXAMPLE, undefined, 'unset', 'web-search.apiKey')).code).toBe(0)
  expect(await get('web-search.apiKey', '--json')).toMatchObject({ code: 0 })
  expect(json(await get('web-search.apiKey', '--json'))).toEqual({ secret: true, set: false })
  expect(await get('web-search.apiKey')).toMatchObject({ code: 0, out: ['(not set)'] })
  expect(json(await get('web-search', '--json')).apiKey).toEqual({ secret: true, set: false })
  // A path that holds nothing: nothing on stdout, exit 1, with --json too.
  expect(await get('web-search.mirrors.5', '--json')).toMatchObject({ code: 1, out: [] })
}

describe('dsh settings get marks secrets so a script can tell them from strings', () => {
  it('through the provider (the schemas a host recorded)', { timeout: 60_000 }, async () => {
    const dir = hosts.home('dsh-get-json-', `${FIXTURES}/clean.yaml`)
    await recordCatalog(hosts, dir, EXAMPLE)
    await secretMarks(dir)
  })

  it('through a running host', { timeout: 90_000 }, async () => {
    const dir = hosts.home('dsh-get-json-host-', `${FIXTURES}/clean.yaml`)
    await hosts.start(dir, EXAMPLE)
    expect((await run(dir, EXAMPLE, undefined, 'set', 'web-search.limit', '11')).out[0]).toContain('via the running host')
    expect((await run(dir, EXAMPLE, `${SECRET}-2\n`, 'set', 'web-search.apiKey')).out[0]).toContain('via the running host')
    await secretMarks(dir, true)
  })
})

describe('dsh settings get of a namespace waiting for setup', () => {
  it('prints valid JSON or nothing: with no value, exit 1 saying it waits and what it lacks', { timeout: 60_000 }, async () => {
    const dir = hosts.home('dsh-get-waiting-')
    const deployment = `${FIXTURES}/typed-setup.cordis.yml`
    await recordCatalog(hosts, dir, deployment)
    const whole = await run(dir, deployment, undefined, 'get', 'bot', '--json')
    expect(whole).toMatchObject({ code: 1, out: [] })
    expect(whole.err).toContain('dsh settings get: bot holds no value: it waits for setup (missing: token, server.host)')
    const field = await run(dir, deployment, undefined, 'get', 'bot.greeting')
    expect(field).toMatchObject({ code: 1, out: [] })
    expect(field.err).toContain('dsh settings get: bot.greeting holds no value: bot waits for setup (missing: token, server.host)')
    // Once something is given, that is what it holds (still waiting for its token), as valid JSON.
    expect((await run(dir, deployment, undefined, 'set', 'bot.server.host', 'chat.example')).code).toBe(0)
    const given = await run(dir, deployment, undefined, 'get', 'bot', '--json')
    expect(given.code).toBe(0)
    expect(json(given)).toEqual({ server: { host: 'chat.example' }, token: { secret: true, set: false } })
    expect(given.err.join('\n')).toContain('needs setup')
  })
})
