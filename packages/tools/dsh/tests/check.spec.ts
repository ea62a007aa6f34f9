/**
 * `dsh settings check`: the fixture deployment (packages/tools/dsh/tests/fixtures/cordis.yml, the example
 * plugins web-search and assistant, web-search also in preset/coder) against a clean document, a
 * document with every kind of problem planted, and one that does not parse; a deployment whose
 * plugins fare badly; the positions module on its own; and the real command in child processes.
 */
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { checkSettings, formatPath, ruleOf, scrubMessage } from '../src/check/check.ts'
import { runDsh } from '../src/main.ts'
import { PositionedText } from '../src/check/positions.ts'

/** The checkout (this file is two levels below it). */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/cordis.yml`

/** Every secret value the fixtures plant: none may reach any output. */
function plantedSecrets(...files: string[]): string[] {
  const secrets = files.flatMap((file) => [...readFileSync(join(WORKSPACE, file), 'utf8').matchAll(/\b(?:apiKey|token): (\S+)/g)].map((match) => match[1]!))
  expect(secrets.length).toBeGreaterThan(0)
  return secrets
}

const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-settings-check-')))
  temps.push(dir)
  return dir
}

/** Run `dsh settings check <args>` in process: exit code and output lines. */
async function check(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runDsh(['settings', 'check', ...args], {
    out: (line) => out.push(...line.split('\n')),
    err: (line) => err.push(...line.split('\n')),
    cwd: WORKSPACE,
    env: {},
    // In process, under vitest, the workspace's packages resolve to their sources only with this condition.
    conditions: ['source'],
  })
  return { code, out, err }
}

describe('dsh settings check: the example deployment', () => {
  it('passes a clean document: exit 0, no problem lines, only the summary', async () => {
    const { code, out, err } = await check(DEPLOYMENT, `${FIXTURES}/clean.yaml`)
    expect(err).toEqual([])
    expect(out).toEqual([
      `settings check: no problems in ${FIXTURES}/clean.yaml against ${DEPLOYMENT} (namespaces: web-search, assistant; scopes: preset/coder, preset/writer)`,
    ])
    expect(code).toBe(0)
  })

  it('finds every planted problem at its line and column, never echoing a value, and exits 1', async () => {
    const file = `${FIXTURES}/problems.yaml`
    const { code, out, err } = await check(DEPLOYMENT, file)
    expect(out).toEqual([
      // Unknown enum value, out of range, a required field missing from a list item (pointed at the item).
      `${file}:2:11: web-search $.engine: expected "bing" | "google" | "duckduckgo" [invalid-value]`,
      `${file}:3:10: web-search $.limit: expected number <= 50 [invalid-value]`,
      `${file}:6:7: web-search $.mirrors[0].url: missing required value [invalid-value]`,
      // Wrong type; a required field missing from a dict entry (pointed at the entry's key).
      `${file}:8:16: assistant $.temperature: expected number [invalid-value]`,
      `${file}:10:5: assistant $.providers.openai.baseUrl: missing required value [invalid-value]`,
      `${file}:12:1: unknown-plugin: unknown namespace: no plugin of the deployment registers it [unknown-namespace]`,
      `${file}:14:1: key "Bad_Key": not a namespace: a namespace must match /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/ [bad-namespace]`,
      // Scoped sections, judged over the global ones once those resolve.
      `${file}:19:16: web-search in preset/coder $.safeSearch.level: expected "moderate" | "strict" [invalid-value]`,
      `${file}:21:20: assistant in preset/coder $.temperature: expected number <= 2 [invalid-value]`,
      `${file}:25:5: ghost-plugin in preset/coder: unknown namespace: no plugin of the deployment registers it [unknown-namespace]`,
      `${file}:26:5: key "Bad.Key" in preset/coder: not a namespace: a namespace must match /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/ [bad-namespace]`,
      `${file}:27:3: scope "preset/Not Valid": not a scope id: a scope id must be <kind>/<id>, matching /^[a-z0-9][a-z0-9-]*\\/[a-z0-9][a-z0-9-]*$/ [bad-scope]`,
      // A scope no plugin is mounted in is judged too: the section there is not even an object.
      `${file}:30:17: web-search in preset/writer $: the stored section must be an object of keys [invalid-section]`,
      `${file}:31:3: scope preset/empty: a scope must be a map of namespace sections [bad-scopes]`,
      `settings check: 14 problems in ${file} against ${DEPLOYMENT} (namespaces: web-search, assistant; scopes: preset/coder, preset/writer)`,
    ])
    expect(err).toEqual([])
    expect(code).toBe(1)
    const output = [...out, ...err].join('\n')
    for (const secret of plantedSecrets(file)) expect(output).not.toContain(secret)
  })

  it('reports a document that does not parse at each place yaml stops, and checks nothing else', async () => {
    const file = `${FIXTURES}/broken.yaml`
    const { code, out } = await check(DEPLOYMENT, file)
    expect(out).toEqual([
      `${file}:5:3: document: not valid YAML (DUPLICATE_KEY) [bad-yaml]`,
      // An unterminated quoted string: yaml notices at the end of the text.
      `${file}:8:1: document: not valid YAML (MISSING_CHAR) [bad-yaml]`,
      `settings check: 2 problems in ${file} against ${DEPLOYMENT} (the document cannot be read, so nothing else was checked)`,
    ])
    expect(code).toBe(1)
    expect(out.join('\n')).not.toContain('broken-secret-7d2a')
  })

  it('reads a JSON document (JSON is YAML) with positions', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.json')
    writeFileSync(file, '{\n  "web-search": { "limit": "ten", "apiKey": "json-secret-0a1b" },\n  "scopes": { "preset/coder": { "web-search": { "mirrors": [{ "url": "u" }, { "url": 3 }] } } }\n}\n')
    const { code, out } = await check(DEPLOYMENT, file)
    expect(out.slice(0, -1)).toEqual([
      `${file}:2:28: web-search $.limit: expected number [invalid-value]`,
      `${file}:3:86: web-search in preset/coder $.mirrors[1].url: expected string [invalid-value]`,
    ])
    expect(code).toBe(1)
    expect(out.join('\n')).not.toContain('json-secret-0a1b')
  })

  it('answers usage errors with exit code 2', async () => {
    expect(await runDsh(['settings'], { out: () => {}, err: () => {}, cwd: WORKSPACE })).toBe(2)
    expect((await check('--verbose')).code).toBe(2)
    expect((await check('a.yml', 'b.yaml', 'c.yaml')).code).toBe(2)
    const missingDeployment = await check(`${FIXTURES}/nothing-here.yml`)
    expect(missingDeployment).toMatchObject({ code: 2, out: [] })
    expect(missingDeployment.err[0]).toMatch(/cannot read the deployment file .*nothing-here\.yml: ENOENT/)
    const missingDocument = await check(DEPLOYMENT, `${FIXTURES}/nothing-here.yaml`)
    expect(missingDocument).toMatchObject({ code: 2, out: [] })
    expect(missingDocument.err[0]).toMatch(/cannot read the settings document .*nothing-here\.yaml: ENOENT/)
    // The PostgreSQL deployment keeps no local document: it must be named.
    const out: string[] = []
    const err: string[] = []
    const code = await runDsh(['settings', 'check', 'cordis.postgres.yml'], { out: (line) => out.push(line), err: (line) => err.push(line), cwd: WORKSPACE, env: { DSH_DATABASE_URL: 'postgres://x' }, conditions: ['source'] })
    expect(code).toBe(2)
    expect(err[0]).toContain('keeps its settings with dsh-settings-postgres, not in a file: name the document to check')
    expect(await runDsh(['settings', 'check', '--help'], { out: () => {}, err: () => {}, cwd: WORKSPACE })).toBe(0)
  })
})

describe('dsh settings check: cordis 4 list form', () => {
  it('finds in a document exactly what it finds against the same deployment written as a plugins: map', async () => {
    const file = `${FIXTURES}/problems.yaml`
    const map = await check(DEPLOYMENT, file)
    const listed = await check(`${FIXTURES}/list.cordis.yml`, file)
    expect(listed.code).toBe(1)
    expect(listed.out.slice(0, -1)).toEqual(map.out.slice(0, -1))
    expect(listed.out.at(-1)).toBe(map.out.at(-1)!.replace(DEPLOYMENT, `${FIXTURES}/list.cordis.yml`))
  })
})

describe('dsh settings check: plugins that fare badly', () => {
  it('reports failed plugins in the deployment file, runs again to reach later registrations, and notes what did not start', async () => {
    const deployment = `${FIXTURES}/plugins.cordis.yml`
    const file = `${FIXTURES}/plugins.yaml`
    const { code, out, err } = await check(deployment, file)
    expect(out).toEqual([
      // Its config quoted in its message: every string of the config and of the document is redacted.
      `${deployment}:12:3: plugin ./plugins/throws.mjs: failed to start: cannot reach [redacted] with token [redacted] [plugin-failed]`,
      `${deployment}:15:3: plugin ./plugins/missing.mjs: could not be loaded: Cannot find module '${join(WORKSPACE, FIXTURES, 'plugins/missing.mjs')}' imported from ${join(WORKSPACE, FIXTURES)}/ [plugin-failed]`,
      // cordis refuses the config; the value it got is cut out of the message.
      `${deployment}:17:3: plugin dsh-example-web-search: failed to start: invalid config: $.limit expected number <= 50 (at limit) [plugin-failed]`,
      `${file}:2:10: first-ns $.count: expected number >= 0 [invalid-value]`,
      // second-ns is registered after first-ns, which fails: found on the second run, over the repaired document.
      `${file}:3:1: second-ns $: was refused by its owner's check: this label is not allowed [invalid-section]`,
      `${file}:5:9: second-ns $.size: expected number <= 10 [invalid-value]`,
      `${file}:9:13: second-ns in preset/ops $.size: expected number [invalid-value]`,
      `${file}:11:20: assistant in preset/ops $.temperature: expected number <= 2 [invalid-value]`,
      // A required field makes the base alone unresolvable, so describe blames no section: what the plugin's own
      // registration threw is put on the section that holds the refused field.
      `${file}:18:12: endpoint $.retries: expected number <= 3 [invalid-value]`,
      `settings check: 9 problems in ${file} against ${deployment} (namespaces: first-ns, endpoint, assistant, second-ns; scopes: preset/ops)`,
    ])
    expect(err).toEqual([
      'note: plugin ./plugins/needs-remote.mjs did not start: it waits for remoteServer, which nothing the check runs provides (it leaves dsh-remote and dsh-settings-controller out); a namespace it would register is reported as unknown',
    ])
    expect(code).toBe(1)
    const output = [...out, ...err].join('\n')
    for (const secret of [...plantedSecrets(file), 'deploy-token-93ab', 'hidden-path']) expect(output).not.toContain(secret)
  })

  it('does not report what only taking a refused field out caused', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    // The global provider entry lacks its baseUrl; the scoped one relies on the global entry for it.
    writeFileSync(file, 'assistant:\n  providers:\n    main:\n      apiKey: global-key-11aa\nscopes:\n  preset/coder:\n    assistant:\n      providers:\n        main:\n          apiKey: scoped-key-22bb\n')
    const result = await checkSettings({ deployment: DEPLOYMENT, document: file, env: {}, conditions: ['source'] })
    expect(result.problems.map(({ line, column, subject, rule }) => `${line}:${column} ${subject}: ${rule}`)).toEqual(['3:5 assistant $.providers.main.baseUrl: missing required value'])
  })
})

describe('dsh settings check: reading the document as the provider does', () => {
  /** `web-search:` with `count` keys, one per line from line 2, then `tail` lines. */
  function manyKeys(count: number, ...tail: string[]): string {
    const lines = ['web-search:']
    for (let index = 0; index < count; index++) lines.push(`  key${index}: value${index}`)
    return [...lines, ...tail, ''].join('\n')
  }

  it('parses like the provider, in linear time: 80,000 keys with a refused value and then a duplicate, each at its place', { timeout: 60_000 }, async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    writeFileSync(file, manyKeys(80_000, '  limit: 500'))
    const { code, out } = await check(DEPLOYMENT, file)
    expect(out[0]).toBe(`${file}:80002:10: web-search $.limit: expected number <= 50 [invalid-value]`)
    expect(code).toBe(1)
    // No timing assertion: with yaml's own duplicate-key scan (quadratic per map), 80,000 keys took over a minute, past this timeout.
    writeFileSync(file, manyKeys(80_000, '  key40000: repeated-value-91c3'))
    const duplicate = await check(DEPLOYMENT, file)
    expect(duplicate.out.slice(0, -1)).toEqual([`${file}:80002:3: document: not valid YAML (DUPLICATE_KEY) [bad-yaml]`])
    expect(duplicate.out.join('\n')).not.toContain('repeated-value-91c3')
  })

  it('refuses a document over the default size cap before reading it: nothing past the cap is parsed', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    // Past the cap the text does not parse: a check that parsed it would report that instead.
    writeFileSync(file, `web-search:\n  notes: ${'x'.repeat(8 * 1024 * 1024)}\n  bad: [unclosed\n`)
    const bytes = readFileSync(file).length
    const { code, out } = await check(DEPLOYMENT, file)
    expect(out).toEqual([
      `${file}:1:1: document: the document is ${bytes} bytes, over the file provider's size cap of ${8 * 1024 * 1024} (maxDocumentBytes), so it refuses to load it; it was not read [bad-document]`,
      `settings check: 1 problem in ${file} against ${DEPLOYMENT} (the document cannot be read, so nothing else was checked)`,
    ])
    expect(code).toBe(1)
  })

  it('takes the cap from the deployment\'s maxDocumentBytes when it sets one', async () => {
    const dir = tempDir()
    const deployment = `${FIXTURES}/capped.cordis.yml`
    const file = join(dir, 'settings.yaml')
    writeFileSync(file, 'web-search:\n  engine: google\n  limit: 20\n  apiKey: capped-secret-5e6f\n')
    const { code, out } = await check(deployment, file)
    expect(out[0]).toBe(`${file}:1:1: document: the document is 70 bytes, over the file provider's size cap of 64 (maxDocumentBytes), so it refuses to load it; it was not read [bad-document]`)
    expect(code).toBe(1)
    writeFileSync(file, 'web-search:\n  limit: 20\n')
    expect((await check(deployment, file)).code).toBe(0)
  })

  it('reports what the provider refuses in a document that parses, at its position', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c]', ''].join('\n')
    const cases: [string, RegExp][] = [
      ['a: *nowhere\n', /^document: the document has an alias to an anchor it does not define \(before the alias\) \[bad-document\]$/],
      ['a: &a [1, *a]\n', /^document: the document holds an alias that contains itself \[bad-document\]$/],
      [bomb, /^document: the document uses too many aliases .*\[bad-document\]$/],
      ['- web-search\n- assistant\n', /^document: the document is not a map of namespace sections.*\[bad-document\]$/],
    ]
    for (const [text, rule] of cases) {
      writeFileSync(file, text)
      const { code, out } = await check(DEPLOYMENT, file)
      expect(out).toHaveLength(2)
      expect(out[0]!.startsWith(`${file}:1:1: `)).toBe(true)
      expect(out[0]!.slice(`${file}:1:1: `.length)).toMatch(rule)
      expect(code).toBe(1)
    }
    writeFileSync(file, '{\n  "web-search": {"limit": 2,}\n}\n')
    const json = join(dir, 'settings.json')
    writeFileSync(json, '{\n  "web-search": {"limit": 2,}\n}\n')
    expect((await check(DEPLOYMENT, json)).out[0]).toMatch(new RegExp(`^${json.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: document: not valid JSON \\[bad-yaml\\]$`))
  })

  it.each([
    ['a FIFO', (path: string) => void execFileSync('mkfifo', [path]), 'FIFO'],
    ['a directory', (path: string) => mkdirSync(path), 'directory'],
    ['/dev/null through a symlink', (path: string) => symlinkSync('/dev/null', path), 'character device'],
  ])('refuses %s at the document path at once, with exit code 2', async (_name, make, kind) => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    make(file)
    const { code, out, err } = await check(DEPLOYMENT, file)
    expect({ code, out, err }).toEqual({ code: 2, out: [], err: [`dsh settings check: cannot read the settings document ${file}: it is a ${kind}, not a regular file`] })
  })

  it('refuses a FIFO as the deployment file at once, with exit code 2', async () => {
    const dir = tempDir()
    const deployment = join(dir, 'cordis.yml')
    execFileSync('mkfifo', [deployment])
    const { code, err } = await check(deployment, `${FIXTURES}/clean.yaml`)
    expect(code).toBe(2)
    expect(err[0]).toBe(`dsh settings check: cannot read the deployment file ${deployment}: it is a FIFO, not a regular file`)
  })
})

describe('positions', () => {
  const text = PositionedText.parse(
    ['defaults: &defaults', '  limit: 5', 'web-search:', '  <<: *defaults', '  engine: bing', '  empty:', '  list:', '    - url: a', '    - {url: b}', 'alias: *defaults', ''].join('\n'),
  )

  it('points at a scalar value, and at the key of a collection or an empty value', () => {
    expect(text.locate(['web-search', 'engine'])).toEqual({ line: 5, column: 11 })
    expect(text.locate(['web-search', 'engine'], 'key')).toEqual({ line: 5, column: 3 })
    expect(text.locate(['web-search', 'empty'])).toEqual({ line: 6, column: 3 })
    expect(text.locate(['web-search', 'list'])).toEqual({ line: 7, column: 3 })
    expect(text.locate(['web-search', 'list', '1', 'url'])).toEqual({ line: 9, column: 13 })
    expect(text.locate(['web-search'])).toEqual({ line: 3, column: 1 })
  })

  it('falls back to the nearest ancestor the text holds', () => {
    expect(text.locate(['web-search', 'list', '5', 'url'])).toEqual({ line: 7, column: 3 })
    expect(text.locate(['web-search', 'missing', 'deep'])).toEqual({ line: 3, column: 1 })
    expect(text.locate(['web-search', 'engine', 'below-a-scalar'])).toEqual({ line: 5, column: 3 })
    expect(text.locate(['nowhere'])).toEqual({ line: 1, column: 1 })
  })

  it('follows merges and aliases to where the data comes from', () => {
    expect(text.locate(['web-search', 'limit'])).toEqual({ line: 2, column: 10 })
    expect(text.locate(['alias'])).toEqual({ line: 10, column: 8 })
    expect(text.locate(['alias', 'limit'])).toEqual({ line: 2, column: 10 })
  })

  it('gives syntax errors as codes with positions, duplicate keys as the provider finds them', () => {
    expect(PositionedText.parse('a:\n\tb: 1\n').errors).toEqual([{ code: 'TAB_AS_INDENT', position: { line: 2, column: 1 } }])
    expect(PositionedText.parse('a: 1\nb:\n  c: 1\n  c: 2\n').errors).toEqual([{ code: 'DUPLICATE_KEY', position: { line: 4, column: 3 } }])
    expect(PositionedText.parse('').errors).toEqual([])
  })
})

describe('messages', () => {
  it('keep the rule and drop the section the line already names', () => {
    expect(ruleOf('settings "web-search" in scope preset/coder is invalid at $.mirrors[0]["odd key"]: expected string')).toBe('expected string')
    expect(ruleOf('settings "web-search" was refused by its owner\'s check: too many')).toBe("was refused by its owner's check: too many")
    expect(ruleOf('the stored section must be an object of keys')).toBe('the stored section must be an object of keys')
    expect(formatPath(['mirrors', '0', 'odd key', 'a-b'])).toBe('$.mirrors[0]["odd key"].a-b')
  })

  it('cut schemastery\'s "but got" and every known value out of a plugin\'s message', () => {
    expect(scrubMessage(new Error('invalid config:\n  - $.limit expected number <= 50 but got 500 (at limit)\n  - $.key expected string but got sk-123'))).toBe(
      'invalid config: $.limit expected number <= 50 (at limit); $.key expected string',
    )
    expect(scrubMessage(new Error('token sk-live-abcdef rejected'), ['sk-live-abcdef'])).toBe('token [redacted] rejected')
    // A part of a value is cut out too: V8's JSON.parse quotes the first 10 characters of a longer text.
    const token = 'Zq8XkP2mVt7Yw3RnB5cLa9F2kQrT'
    let quoted = ''
    try {
      JSON.parse(token)
    } catch (error) {
      quoted = scrubMessage(error, [token])
    }
    expect(quoted).toBe(`Unexpected token 'Z', "[redacted]"... is not valid JSON`)
    expect(scrubMessage(new Error('cannot reach api.example.com (from https://api.example.com/v1)'), ['https://api.example.com/v1'])).toBe('cannot reach [redacted] (from [redacted])')
    // Shorter shared runs are words and path parts, kept.
    expect(scrubMessage(new Error('cannot load ./plugins/x.mjs'), ['plugins-secret-51c0'])).toBe('cannot load ./plugins/x.mjs')
  })
})

describe('the command in a child process', () => {
  /** Run `node --conditions=source --import tsx packages/tools/dsh/src/bin.ts settings <args>` from the workspace. */
  function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const started = Date.now()
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/tools/dsh/src/bin.ts', 'settings', ...args], {
      cwd: WORKSPACE,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started })))
  }

  it('checks the default document under $DSH_HOME (exit 1), a clean one (exit 0), one not written yet as empty (exit 0), and exits by itself', { timeout: 90_000 }, async () => {
    const home = tempDir()
    copyFileSync(join(WORKSPACE, FIXTURES, 'problems.yaml'), join(home, 'settings.yaml'))
    const empty = join(home, 'empty-home')
    mkdirSync(empty)
    const [found, clean, missing] = await Promise.all([
      spawnCli(['check', DEPLOYMENT], { DSH_HOME: home }),
      spawnCli(['check', DEPLOYMENT, `${FIXTURES}/clean.yaml`], { DSH_HOME: home }),
      spawnCli(['check', DEPLOYMENT], { DSH_HOME: empty }),
    ])

    const document = join(home, 'settings.yaml')
    const lines = found.stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(15)
    expect(lines[0]).toBe(`${document}:2:11: web-search $.engine: expected "bing" | "google" | "duckduckgo" [invalid-value]`)
    expect(lines.slice(0, -1).every((line) => /^\/.+:\d+:\d+: .+: .+ \[[a-z-]+\]$/.test(line))).toBe(true)
    expect(lines.at(-1)).toBe(`settings check: 14 problems in ${document} against ${DEPLOYMENT} (namespaces: web-search, assistant; scopes: preset/coder, preset/writer)`)
    expect(found.code).toBe(1)
    for (const secret of plantedSecrets(`${FIXTURES}/problems.yaml`)) expect(found.stdout + found.stderr).not.toContain(secret)

    expect(clean.stdout).toBe(`settings check: no problems in ${FIXTURES}/clean.yaml against ${DEPLOYMENT} (namespaces: web-search, assistant; scopes: preset/coder, preset/writer)\n`)
    expect(clean.code).toBe(0)

    // The example plugins require nothing, so a document not written yet has no problem; a note says it was read as empty.
    const unwritten = join(empty, 'settings.yaml')
    expect(missing.stdout).toBe(`settings check: no problems in ${unwritten} against ${DEPLOYMENT} (namespaces: web-search, assistant; scopes: preset/coder)\n`)
    expect(missing.stderr).toBe(`note: the settings document ${unwritten} does not exist yet (the file provider writes it at its first write): checked as an empty document, each problem at line 1, column 1\n`)
    expect(missing.code).toBe(0)

    // Nothing kept the process alive: it ended on its own, well before the 2 s safety net would have said so.
    for (const run of [found, clean, missing]) {
      expect(run.stderr).not.toContain('still running')
      expect(run.ms).toBeLessThan(45_000)
    }
  })
})

describe('dsh settings check: empty sections read as the seam reads them', () => {
  it('passes a document whose sections, scopes map and scope entries are empty (null)', async () => {
    const dir = tempDir()
    const file = join(dir, 'settings.yaml')
    writeFileSync(file, ['web-search:', '  # engine: bing', 'assistant: ~', 'scopes:', '  preset/coder:', '  preset/writer: ~', ''].join('\n'))
    const { code, out, err } = await check(DEPLOYMENT, file)
    expect(err).toEqual([])
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^settings check: no problems in /)
    expect(code).toBe(0)

    writeFileSync(file, 'scopes: ~\n')
    expect((await check(DEPLOYMENT, file)).code).toBe(0)
  })
})
