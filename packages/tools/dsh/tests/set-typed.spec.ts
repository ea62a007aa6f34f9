/**
 * `dsh settings set` types a value by the schema at its path, through the
 * deployment's provider and through a running host alike: a string field takes
 * the text exactly as given (YAML-looking text included), a secret only from
 * standard input, numbers, booleans and choices only where the schema wants
 * them, structured values only as JSON, a path the schema does not declare
 * only with `--force`. No refusal, note or usage line holds any slice of a
 * value given, as an argument or on standard input.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useHosts, type Ran } from './hosts.ts'
import { dshWithInput, expectNoEcho } from './stdin.ts'
import { recordCatalog } from './catalog-host.ts'
import { storedSettings } from './stored.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const EXAMPLE = `${FIXTURES}/cordis.yml`
/** A plugin waiting for setup, with a remote and the controller (so a host records its schema). */
const WAITING = `${FIXTURES}/typed-setup.cordis.yml`
const hosts = useHosts()

/** The stored settings, secrets read from the store where the provider keeps them. */
const stored = storedSettings
const documentText = (dir: string) => readFileSync(join(dir, 'settings.yaml'), 'utf8')

/** Texts YAML would alias, tag, anchor, cut at a comment, trim, or read as another type; each unique to this run. */
function yamlLooking(): string[] {
  const tag = randomBytes(5).toString('hex')
  return [`*sk-live-A${tag}`, `!sk-live-B${tag}`, `&sk-live-C${tag}`, `sk-live-D${tag} #4444`, `  sk-live-E${tag}  `, `--sk-live-F${tag}`, `{ sk: live-G${tag} }`, `[sk-live-H${tag}]`, `'sk-live-I${tag}'`]
}

/** A value command of a deployment (`-d` first: after `--` every argument is a positional). */
type Run = (input: string | undefined, command: string, ...args: string[]) => Promise<Ran>

function runner(dir: string, deployment: string): Run {
  return (input, command, ...args) => dshWithInput(dir, input, 'settings', command, '-d', deployment, ...args)
}

const example = (dir: string) => runner(dir, EXAMPLE)

/** What every way must do; `via` is the word the success line carries. */
async function typedRows(dir: string, run: Run, via: string): Promise<void> {
  // A secret from standard input, stored exactly; nothing of it printed.
  for (const secret of yamlLooking()) {
    const set = await run(`${secret}\n`, 'set', 'web-search.apiKey')
    expect({ secret, code: set.code, err: set.err }).toEqual({ secret, code: 0, err: [] })
    expect(set.out[0]).toContain(via)
    expect(stored(dir)['web-search'].apiKey).toBe(secret)
    expectNoEcho(set, secret)
  }
  // A plain string field as an argument, exactly as given (one that starts with "-" after "--").
  for (const text of yamlLooking()) {
    const set = await run(undefined, 'set', 'assistant.model', '--', text)
    expect({ text, code: set.code }).toEqual({ text, code: 0 })
    expect(stored(dir).assistant.model).toBe(text)
  }
  // A secret as an argument: refused with how to give it, the stored secret kept, nothing echoed.
  const before = documentText(dir)
  for (const secret of yamlLooking()) {
    const refused = await run(undefined, 'set', 'web-search.apiKey', '--', secret)
    expect(refused.code).toBe(2)
    expect(refused.err.join('\n')).toMatch(/web-search\.apiKey is a secret.*standard input.*without echo/s)
    expectNoEcho(refused, secret)
  }
  expect(documentText(dir)).toBe(before)

  // Scalars typed where the schema wants them.
  expect((await run(undefined, 'set', 'web-search.limit', '20')).code).toBe(0)
  expect((await run(undefined, 'set', 'web-search.safeSearch.enabled', 'false')).code).toBe(0)
  expect((await run(undefined, 'set', 'web-search.engine', 'google')).code).toBe(0)
  expect((await run(undefined, 'set', 'assistant.temperature', '0.25')).code).toBe(0)
  expect(stored(dir)['web-search']).toMatchObject({ limit: 20, engine: 'google', safeSearch: { enabled: false } })
  expect(stored(dir).assistant.temperature).toBe(0.25)

  // A structured field takes JSON only with --json; a list holding secrets only on standard input.
  const object = await run(undefined, 'set', 'web-search.safeSearch', '{"enabled": true, "level": "strict"}')
  expect(object.code).toBe(1)
  expect(object.err.join('\n')).toContain('web-search.safeSearch takes an object: give it as JSON with --json')
  expect((await run(undefined, 'set', 'web-search.safeSearch', '--json', '{"enabled": true, "level": "strict"}')).code).toBe(0)
  expect(stored(dir)['web-search'].safeSearch).toEqual({ enabled: true, level: 'strict' })
  const mirrorToken = `&sk-live-M${randomBytes(5).toString('hex')}`
  const mirrors = JSON.stringify([{ url: 'https://m.example', token: mirrorToken }])
  const mirrorsArgument = await run(undefined, 'set', 'web-search.mirrors', '--json', mirrors)
  expect(mirrorsArgument.code).toBe(2)
  expectNoEcho(mirrorsArgument, mirrorToken)
  const mirrorsInput = await run(mirrors, 'set', 'web-search.mirrors', '--json')
  expect(mirrorsInput.code).toBe(0)
  expectNoEcho(mirrorsInput, mirrorToken)
  expect(stored(dir)['web-search'].mirrors).toEqual([{ url: 'https://m.example', token: mirrorToken }])

  // A typo: refused with the nearest declared name; --force stores the text, said to be unchecked.
  const typo = await run(undefined, 'set', 'web-search.limt', '30')
  expect(typo.code).toBe(1)
  expect(typo.err.join('\n')).toContain('web-search declares no such key (did you mean limit?)')
  expect(stored(dir)['web-search']).not.toHaveProperty('limt')
  const forced = await run(undefined, 'set', 'web-search.limt', '30', '--force')
  expect(forced.code).toBe(0)
  expect(forced.err.join('\n')).toContain('note: the schema does not declare web-search.limt: it was stored unchecked (--force), as text')
  expect(stored(dir)['web-search'].limt).toBe('30')
}

/** Refusals of text the field does not take, and of values that look like options: each names the field or the rule, never the value. */
async function noEchoRows(dir: string, run: Run): Promise<void> {
  const before = documentText(dir)
  const tag = randomBytes(5).toString('hex')
  const cases: { args: string[]; input?: string; value: string; code: number; says: string | RegExp }[] = [
    { args: ['web-search.limit', `sk-live-N${tag}`], value: `sk-live-N${tag}`, code: 1, says: 'web-search.limit expects a number' },
    { args: ['web-search.limit'], input: `*sk-live-O${tag}\n`, value: `*sk-live-O${tag}`, code: 1, says: 'web-search.limit expects a number' },
    { args: ['web-search.engine', `sk-live-P${tag}`], value: `sk-live-P${tag}`, code: 1, says: 'web-search.engine expects one of "bing", "google", "duckduckgo"' },
    { args: ['web-search.safeSearch.enabled', `!sk-live-Q${tag}`], value: `!sk-live-Q${tag}`, code: 1, says: 'web-search.safeSearch.enabled expects true or false' },
    { args: ['web-search.limit', '--json', `{sk: live-R${tag}}`], value: `{sk: live-R${tag}}`, code: 2, says: 'is not valid JSON' },
    { args: ['web-search.limit', '--json'], input: `[sk-live-S${tag}`, value: `[sk-live-S${tag}`, code: 2, says: 'is not valid JSON' },
    { args: ['web-search.limit', `--sk-live-T${tag}`], value: `--sk-live-T${tag}`, code: 2, says: 'goes after "--"' },
    { args: ['web-search.engine', `-sk-live-U${tag}`], value: `-sk-live-U${tag}`, code: 2, says: 'goes after "--"' },
    { args: ['web-search.apiKey', 'sk-live', `V${tag}`], value: `V${tag}`, code: 2, says: '1 argument too many' },
    { args: [`sk-live-w${tag}`, 'web-search.apiKey'], value: `sk-live-w${tag}`, code: 2, says: 'names a whole section' },
    { args: [`sk-live-z${tag}.key`, '1'], value: `sk-live-z${tag}`, code: 1, says: 'no plugin of the deployment registers that namespace' },
    { args: [`Sk-live-Y${tag}`, 'web-search.apiKey'], value: `Sk-live-Y${tag}`, code: 2, says: 'does not start with a namespace' },
    { args: [`web-search.apiKey=sk-live-X${tag}`], value: `sk-live-X${tag}`, code: 2, says: 'give the value as its own argument' },
    { args: ['web-search.limit', '987654'], value: '987654', code: 1, says: 'web-search.limit is invalid: expected number <= 50' },
  ]
  for (const { args, input, value, code, says } of cases) {
    const ran = await run(input, 'set', ...args)
    expect({ args, code: ran.code }).toEqual({ args, code })
    expect(ran.err.join('\n')).toMatch(typeof says === 'string' ? new RegExp(says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : says)
    expectNoEcho(ran, value)
  }
  expect(documentText(dir)).toBe(before)
}

describe('dsh settings set types values by the schema (the example deployment)', () => {
  it('through the provider, with no host running (the schemas a host recorded)', { timeout: 120_000 }, async () => {
    const dir = hosts.home('dsh-set-typed-', `${FIXTURES}/clean.yaml`)
    await recordCatalog(hosts, dir, EXAMPLE)
    await typedRows(dir, example(dir), 'via the provider')
    await noEchoRows(dir, example(dir))
  })

  it('through a running host', { timeout: 120_000 }, async () => {
    const dir = hosts.home('dsh-set-typed-host-', `${FIXTURES}/clean.yaml`)
    const host = await hosts.start(dir, EXAMPLE)
    await typedRows(dir, example(dir), 'via the running host')
    await noEchoRows(dir, example(dir))
    // The host's log holds none of it either.
    expect(host.output()).not.toMatch(/sk-live/)
  })
})

describe('dsh settings set with no schema known (no host has recorded one)', () => {
  it('stores the value unchecked, typed like the value it replaces, else as text, and says so; --json stores typed data', { timeout: 60_000 }, async () => {
    const dir = hosts.home('dsh-set-unchecked-', `${FIXTURES}/clean.yaml`)
    const run = example(dir)
    const number = await run(undefined, 'set', 'web-search.limit', '20')
    expect(number.code).toBe(0)
    expect(number.err.join('\n')).toContain('note: no schema is known for web-search: web-search.limit was stored unchecked, as a number, like the value it replaced')
    expect(stored(dir)['web-search'].limit).toBe(20)
    const text = await run(undefined, 'set', 'web-search.safeSearch.level', '007')
    expect(text.err.join('\n')).toContain('web-search.safeSearch.level was stored unchecked, as text')
    expect(stored(dir)['web-search'].safeSearch.level).toBe('007')
    expect((await run(undefined, 'set', 'web-search.safeSearch.level', '--json', '7')).code).toBe(0)
    expect(stored(dir)['web-search'].safeSearch.level).toBe(7)
  })
})

describe('dsh settings set on a plugin waiting for setup', () => {
  it('stores the text given for a string field as the string, and refuses a value the field refuses naming it', { timeout: 60_000 }, async () => {
    const dir = hosts.home('dsh-set-waiting-')
    await recordCatalog(hosts, dir, WAITING)
    const run = runner(dir, WAITING)
    const host = await run(undefined, 'set', 'bot.server.host', '12345')
    expect(host.code).toBe(0)
    expect(stored(dir).bot).toEqual({ server: { host: '12345' } })
    const before = documentText(dir)
    const port = await run(undefined, 'set', 'bot.server.port', 'sk-live-port')
    expect(port).toMatchObject({ code: 1, out: [] })
    expect(port.err.join('\n')).toContain('bot.server.port expects a number')
    const server = await run(undefined, 'set', 'bot.server', '--json', '{"port": "sk-live-port"}')
    expect(server).toMatchObject({ code: 1, out: [] })
    expect(server.err.join('\n')).toContain('bot.server.port is invalid: expected number')
    for (const ran of [port, server]) expectNoEcho(ran, 'sk-live-port')
    expect(documentText(dir)).toBe(before)
    // The token is a secret: from standard input only, and then the plugin's section is complete.
    expect((await run(undefined, 'set', 'bot.token', 'tok')).code).toBe(2)
    const token = await run('*tok #1\n', 'set', 'bot.token')
    expect(token.code).toBe(0)
    expect(token.err.filter((line) => line.includes('not in effect'))).toEqual([])
    expect(stored(dir).bot.token).toBe('*tok #1')
  })
})

describe('dsh settings set on a published adapter (Slack: protocols told apart by a constant)', () => {
  it('reads a field through the branch the stored protocol means, and lets the protocol switch branches', { timeout: 120_000 }, async () => {
    const dir = hosts.home('dsh-set-union-')
    const run = runner(dir, `${FIXTURES}/setup-journey.cordis.yml`)
    await hosts.start(dir, `${FIXTURES}/setup-journey.cordis.yml`)
    expect((await run(undefined, 'set', 'slack.protocol', 'http')).code).toBe(0)
    // Under http, the ws branch's retry settings are not declared.
    const retry = await run(undefined, 'set', 'slack.retryTimes', '3')
    expect(retry.code).toBe(1)
    expect(retry.err.join('\n')).toMatch(/slack declares no such key \(it declares .*signing/)
    const protocol = await run(undefined, 'set', 'slack.protocol', 'htp')
    expect(protocol.code).toBe(1)
    expect(protocol.err.join('\n')).toContain('slack.protocol expects one of "http", "ws"')
    // `signing` is a plain string of the http branch: a number-looking text stays text.
    expect((await run(undefined, 'set', 'slack.signing', '0042')).code).toBe(0)
    expect(stored(dir).slack.signing).toBe('0042')
    // Switching the protocol is judged by every branch, then the ws branch's fields are typed.
    expect((await run(undefined, 'set', 'slack.protocol', 'ws')).code).toBe(0)
    expect((await run(undefined, 'set', 'slack.retryTimes', '3')).code).toBe(0)
    expect(stored(dir).slack).toMatchObject({ protocol: 'ws', retryTimes: 3 })
    expect((await run(undefined, 'set', 'slack.token', 'xapp-1')).code).toBe(2)
  })
})
