/**
 * What a consumer does with our packages: exactly the install commands of
 * `docs/settings.md` ("Installing", then "Plugins in TypeScript"), our packages
 * given as their packed tarballs and the rest fetched by npm from the
 * registry, into a fresh ESM project with its own `cordis.yml`; then `npx dsh
 * settings check`, `npx dsh settings set` (through the provider, then through
 * the running host) and `npx dsh start`, which serves the settings page at `/`
 * with no `static` setting; and the TypeScript section's plugin, type-checked
 * with its tsconfig against the packed declarations and loaded by `dsh`
 * through the project's tsx.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { docBlocks } from '../docs/blocks.ts'
import { blockCommands, normalizeOutput, outputMismatch } from '../docs/compare.ts'
import { documentedInstalls, INSTALL_SECTION, specName, TYPESCRIPT_SECTION, type InstallCommand } from '../docs/install.ts'
import { TempDirs } from '../lib/temp-dirs.ts'
import { buildPackages, packPackage, runCommand, type Packed, type RunResult } from './packing.ts'
import { publishedPackages, readJson, REPOSITORY_URL, ROOT, type Manifest } from './workspace.ts'

const PLUGIN = `import Schema from 'schemastery'
export const name = 'demo'
export const inject = ['settings']
export function apply(ctx) {
  const demo = ctx.settings.register('demo', Schema.object({
    limit: Schema.natural().max(50).default(10),
    token: Schema.string().role('secret'),
  }))
  ctx.logger('demo').info('limit=%s', demo.get().limit)
}
`

const DEPLOYMENT = `plugins:
  dsh-settings-file:
    home: .dsh
  dsh-remote:
    home: .dsh
    port: 0
  dsh-settings-controller:
    home: .dsh
  ./plugin.mjs: {}
`

const SECRET = 'consumer-secret-4b1d'

/** The install commands the docs give a deployment, in order. */
const INSTALLS: InstallCommand[] = [...documentedInstalls(INSTALL_SECTION), ...documentedInstalls(TYPESCRIPT_SECTION)]

/** The blocks of the docs' TypeScript section. */
const typescriptBlocks = () => docBlocks(readFileSync(join(ROOT, 'docs', 'settings.md'), 'utf8'), 'docs/settings.md').filter((block) => block.section === TYPESCRIPT_SECTION)

/**
 * Our packages a deployment of `names` needs: each one's dependencies and
 * required peers among our packages, transitively (optional peers left out).
 */
function closure(names: readonly string[], packed: readonly Packed[]): Set<string> {
  const byName = new Map(packed.map((entry) => [entry.manifest.name, entry.manifest]))
  const needed = new Set<string>()
  const visit = (name: string) => {
    const manifest = byName.get(name)
    if (!manifest || needed.has(name)) return
    needed.add(name)
    const optional = (manifest as Manifest & { peerDependenciesMeta?: Record<string, { optional?: boolean }> }).peerDependenciesMeta ?? {}
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) if (!optional[dependency]?.optional) visit(dependency)
  }
  for (const name of names) visit(name)
  return needed
}

describe('a consumer project installed from the packed tarballs', () => {
  const temp = new TempDirs('dsh-consumer')
  let app: string
  let packed: Packed[] = []

  /** `npx dsh <args>` in the consumer project, with npm's own environment. */
  const npx = (...args: string[]): Promise<RunResult> => runCommand('npx', ['--no-install', 'dsh', ...args], app, { ...process.env, NODE_OPTIONS: '' })

  /** Run the host once, until its catalog records the plugin's schema (what a command with no host judges by); then stop it. */
  const recordCatalog = async (): Promise<void> => {
    const child = spawn('npx', ['--no-install', 'dsh', 'start'], { cwd: app, env: { ...process.env, NODE_OPTIONS: '' }, stdio: 'ignore', detached: true })
    const exited = new Promise((done) => child.once('exit', done))
    const catalog = join(app, '.dsh', 'settings-catalog.json')
    const record = join(app, '.dsh', 'remote-host.json')
    try {
      for (const until = Date.now() + 60_000; !(existsSync(record) && existsSync(catalog) && readFileSync(catalog, 'utf8').includes('"demo"')); ) {
        if (child.exitCode !== null || Date.now() > until) throw new Error('npx dsh start recorded no catalog')
        await new Promise((done) => setTimeout(done, 100))
      }
      process.kill((JSON.parse(readFileSync(record, 'utf8')) as { pid: number }).pid, 'SIGTERM')
      await exited
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
    }
  }

  beforeAll(async () => {
    const build = await buildPackages()
    if (!build.ok) throw new Error(`tsc -b failed:\n${build.stdout}\n${build.stderr}`)
    const root = temp.create('project')
    packed = await Promise.all(publishedPackages().map((pkg) => packPackage(pkg, join(root, 'tarballs'), join(root, 'extracted'))))
    const tarballs = new Map(packed.map((entry) => [entry.manifest.name, entry.tarball]))
    app = join(root, 'app')
    mkdirSync(app, { recursive: true })
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'dsh-consumer', private: true, type: 'module' }, null, 2)}\n`)
    writeFileSync(join(app, 'plugin.mjs'), PLUGIN)
    writeFileSync(join(app, 'cordis.yml'), DEPLOYMENT)
    // The documented commands as a user runs them, each of our names given as its tarball (they are not on the registry).
    for (const install of INSTALLS) {
      const args = install.specs.map((spec) => tarballs.get(specName(spec)) ?? spec)
      const installed = await runCommand('npm', ['install', ...(install.dev ? ['--save-dev'] : []), '--no-audit', '--no-fund', '--loglevel=error', ...args], app)
      if (!installed.ok) throw new Error(`npm install ${install.specs.join(' ')} failed:\n${installed.stdout}\n${installed.stderr}`)
    }
  }, 600_000)

  afterAll(() => temp.removeAll())

  it('installs every package of ours from its tarball, and the documented list is what the deployment needs', () => {
    const listed = INSTALLS.filter((install) => !install.dev).flatMap((install) => install.packages)
    const ours = listed.filter((name) => packed.some((entry) => entry.manifest.name === name))
    for (const name of ours) {
      const manifest = readJson<Manifest>(join(app, 'node_modules', name, 'package.json'))
      expect({ name, repository: manifest.repository?.url, version: manifest.version }).toEqual({ name, repository: REPOSITORY_URL, version: packed.find((entry) => entry.manifest.name === name)!.manifest.version })
    }
    // The plugins the deployment names, the page and the command, and all of ours they need: no more, no fewer.
    const named = ['dsh', 'dsh-settings-file', 'dsh-remote', 'dsh-settings-controller', 'dsh-settings-page-assets']
    expect(new Set(ours)).toEqual(closure(named, packed))
    expect(listed.filter((name) => !ours.includes(name)).sort()).toEqual(['cordis', 'schemastery'])
  })

  it('has a dsh executable that prints its usage', async () => {
    const help = await npx('--help')
    expect(help.ok).toBe(true)
    expect(help.stdout).toMatch(/^usage: dsh <command>/)
    const unknown = await npx('settings', 'set', '--frobnicate')
    expect(unknown.ok).toBe(false)
    expect(unknown.stderr).toContain('usage: dsh settings set')
  })

  it('sets a value through the provider, checks the document, and reads it back with the secret as (set)', { timeout: 120_000 }, async () => {
    // With no host running, values are judged by the schemas a host recorded: run it once, as a user does.
    await recordCatalog()
    expect((await npx('settings', 'set', 'demo.limit', '5')).stdout).toContain('via the provider')
    // A secret goes on standard input, never as an argument.
    expect((await runCommand('sh', ['-c', 'printf %s "$DSH_TEST_SECRET" | npx --no-install dsh settings set demo.token'], app, { ...process.env, NODE_OPTIONS: '', DSH_TEST_SECRET: SECRET })).ok).toBe(true)
    // The secret goes to the store beside the document (secrets: file, the default); the document names it.
    const stored = readFileSync(join(app, '.dsh', 'settings.yaml'), 'utf8')
    expect(stored).toMatch(/^demo:\n {2}limit: 5\n {2}token: !secret demo\.token\n/m)
    expect(stored).not.toContain(SECRET)
    expect(readFileSync(join(app, '.dsh', 'secrets.yaml'), 'utf8')).toContain(SECRET)
    const check = await npx('settings', 'check')
    expect(check.ok).toBe(true)
    expect(check.stdout).toContain('settings check: no problems in .dsh/settings.yaml against cordis.yml (namespaces: demo')
    const got = await npx('settings', 'get', 'demo', '--json')
    expect(JSON.parse(got.stdout)).toEqual({ limit: 5, token: { secret: true, set: true, source: 'store', reference: 'demo.token' } })
    const refused = await npx('settings', 'set', 'demo.limit', '987654')
    expect(refused.ok).toBe(false)
    // What dsh printed (runCommand appends the failed command line, which holds the value as typed).
    const printed = new Set(refused.stderr.split('\n').filter((line) => line.startsWith('dsh ')))
    expect(printed).toEqual(new Set(['dsh settings set: demo.limit is invalid: expected number <= 50']))
  })

  it('starts the deployment with npx dsh start, serves the page at /, takes a set through the host, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    // Its own process group, so the signal reaches dsh itself and not only npm's wrapper.
    const child = spawn('npx', ['--no-install', 'dsh', 'start'], { cwd: app, env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    try {
      const record = join(app, '.dsh', 'remote-host.json')
      const deadline = Date.now() + 60_000
      while (!existsSync(record)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npx dsh start did not start:\n${output}`)
        await new Promise((done) => setTimeout(done, 100))
      }
      const { url, pid } = JSON.parse(readFileSync(record, 'utf8')) as { url: string; pid: number }
      // The server says where it runs before the controller has offered it the page: wait for the offer.
      let page = await fetch(`${url}/`)
      for (const until = Date.now() + 20_000; page.status === 404 && Date.now() < until; page = await fetch(`${url}/`)) {
        await page.body?.cancel()
        await new Promise((done) => setTimeout(done, 100))
      }
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>Settings</title>')
      expect(output).toContain('page and API:')
      const set = await npx('settings', 'set', 'demo.limit', '7')
      expect(set.stdout).toContain(`via the running host at ${url}`)
      expect(readFileSync(join(app, '.dsh', 'settings.yaml'), 'utf8')).toContain('  limit: 7\n')
      // SIGTERM to dsh itself (npm's wrapper does not pass signals on): it stops, and npx exits with its code.
      process.kill(pid, 'SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
    }
    expect(existsSync(join(app, '.dsh', 'remote-host.json'))).toBe(false)
  })

  it('type-checks the TypeScript section against the packed declarations, and dsh runs its plugin through the project’s tsx', { timeout: 120_000 }, async () => {
    const dir = join(app, 'typescript')
    mkdirSync(dir, { recursive: true })
    const blocks = typescriptBlocks()
    for (const block of blocks.filter((candidate) => candidate.name)) writeFileSync(join(dir, block.name!), `${block.body}\n`)
    expect(existsSync(join(dir, 'tsconfig.json')) && existsSync(join(dir, 'cordis.yml'))).toBe(true)
    const env = { ...process.env, NODE_OPTIONS: '' }
    const commands = blocks.filter((block) => block.lang === 'console').flatMap(blockCommands)
    expect(commands.map((command) => command.line)).toEqual(['npx tsc', 'npx dsh settings check'])
    for (const command of commands) {
      const [, ...args] = command.line.split(' ')
      // Both streams on one descriptor, in the order printed, as a terminal shows them (a `note:` goes to standard error).
      const result = await runCommand('sh', ['-c', 'exec npx --no-install "$@" 2>&1', 'sh', ...args], dir, env)
      expect(result.ok, `${command.line}\n${result.stdout}\n${result.stderr}`).toBe(true)
      if (command.expected) expect(outputMismatch(command.expected, normalizeOutput(result.stdout))).toBeUndefined()
    }
  })
})