import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { endChildren } from 'dsh-testing'

/** The checkout this test runs in (the tests folder is three levels below it). */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
/** Package names in a deployment resolve from its folder, so the temp cordis.yml lives under the workspace. */
const WORKSPACE_CACHE = join(WORKSPACE, 'node_modules/.cache/dsh-loader-tests')

/** A plugin module that logs when it is applied and when it is disposed. */
const PROBE = `
export const name = 'probe'
export function apply(ctx, config) {
  ctx.logger('probe').info('apply %s', config.id)
  ctx.effect(() => () => ctx.logger('probe').info('dispose %s', config.id))
}
`

interface Started {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await endChildren(children)
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function tempDir(parent: string, prefix: string): Promise<string> {
  await mkdir(parent, { recursive: true })
  const dir = await realpath(await mkdtemp(join(parent, prefix)))
  dirs.push(dir)
  return dir
}

/** Run the real start script on `file`, with environment variables set (a string) or removed (`undefined`). */
function startScript(file: string, env: Record<string, string | undefined>): Started {
  const childEnv: NodeJS.ProcessEnv = { ...process.env }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name]
    else childEnv[name] = value
  }
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(WORKSPACE, 'scripts/start.ts'), file], {
    cwd: WORKSPACE,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

/** Poll until `stdout` holds `text`, or fail with what the child printed. */
async function waitFor(started: Started, text: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let exited = false
  void started.exited.then(() => (exited = true))
  while (!started.stdout().includes(text)) {
    if (exited || Date.now() > deadline) {
      throw new Error(`the start script did not print ${JSON.stringify(text)}${exited ? ' before exiting' : ''}\nstdout:\n${started.stdout()}\nstderr:\n${started.stderr()}`)
    }
    await new Promise((done) => setTimeout(done, 50))
  }
}

/** A deployment folder (under the workspace) and a separate settings folder. */
async function deployment(): Promise<{ file: string; settingsDir: string }> {
  const deployDir = await tempDir(WORKSPACE_CACHE, 'start-')
  const settingsDir = await tempDir(tmpdir(), 'dsh-start-settings-')
  await writeFile(join(deployDir, 'plugin.mjs'), PROBE)
  const file = join(deployDir, 'cordis.yml')
  await writeFile(
    file,
    [
      'plugins:',
      '  dsh-settings-file:',
      '    path: ${DSH_START_SPEC_DIR}/settings.yaml',
      '  dsh-example-web-search:',
      '    engine: ${DSH_START_SPEC_ENGINE:-bing}',
      '    limit: 10',
      '  dsh-example-assistant:',
      '    model: ${DSH_START_SPEC_MODEL:-small}',
      '  ./plugin.mjs:',
      '    id: probe',
      '  scope:preset/coder:',
      '    dsh-example-web-search:',
      '      engine: duckduckgo',
      '      limit: 20',
      '',
    ].join('\n'),
  )
  return { file, settingsDir }
}

const leftovers = async (dir: string) => (await readdir(dir)).filter((name) => /\.(lock|tmp)$/.test(name))

describe('scripts/start.ts', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'boots the deployment, prints the settings document, and exits 0 on %s leaving no lock or temp files',
    { timeout: 60_000 },
    async (signal) => {
      const { file, settingsDir } = await deployment()
      const document = join(settingsDir, 'settings.yaml')
      const started = startScript(file, { DSH_START_SPEC_DIR: settingsDir, DSH_START_SPEC_ENGINE: 'google', DSH_START_SPEC_MODEL: undefined })
      await waitFor(started, `settings document: ${document}`)
      await waitFor(started, 'web-search ready: engine=duckduckgo limit=20')

      const out = started.stdout()
      // ${VAR} from the child's environment, ${VAR:-default} falling back where unset.
      expect(out).toContain('web-search ready: engine=google limit=10')
      expect(out).toContain('assistant ready: model=small')
      expect(out).toContain('probe apply probe')
      expect(out).toContain(`running ${file}`)

      process.kill(started.child.pid!, signal)
      const { code, signal: killedBy } = await started.exited
      expect({ code, signal: killedBy }).toEqual({ code: 0, signal: null })
      expect(started.stdout()).toContain(`${signal}: stopping`)
      expect(started.stdout()).toContain('probe dispose probe')
      expect(started.stdout()).not.toMatch(/^\[E\]/m)
      expect(await leftovers(settingsDir)).toEqual([])
      expect(await leftovers(join(file, '..'))).toEqual([])
    },
  )

  it('stops cleanly, exit 0, on a SIGINT that arrives while the deployment is still starting', { timeout: 60_000 }, async () => {
    const { file, settingsDir } = await deployment()
    // A plugin module that takes a while to load: the signal lands after the plugins before it run, while the
    // deployment is still starting.
    await writeFile(join(file, '..', 'slow.mjs'), `
console.log('slow module loading')
await new Promise((done) => setTimeout(done, 3000))
export const name = 'slow'
export function apply() {}
`)
    await writeFile(file, (await readFile(file, 'utf8')) + '  ./slow.mjs: {}\n')
    const started = startScript(file, { DSH_START_SPEC_DIR: settingsDir })
    await waitFor(started, 'slow module loading')
    expect(started.stdout()).not.toContain(`running ${file}`)
    process.kill(started.child.pid!, 'SIGINT')
    const { code, signal: killedBy } = await started.exited
    expect({ code, signal: killedBy }).toEqual({ code: 0, signal: null })
    expect(started.stdout()).toContain('SIGINT: stopping')
    expect(started.stdout()).toContain('probe dispose probe')
    expect(await leftovers(settingsDir)).toEqual([])
  })

  it('runs the default cordis.yml and serves the settings page, building it first when needed', { timeout: 90_000 }, async () => {
    const home = await tempDir(tmpdir(), 'dsh-start-home-')
    const started = startScript(join(WORKSPACE, 'cordis.yml'), { DSH_HOME: home, DSH_PORT: '0' })
    // The controller offers the page once it is up; the server then says so with its address.
    await waitFor(started, 'page and API: http://', 80_000)
    const url = /page and API: (http:\/\/[^/\s]+)\/#token=\S+/.exec(started.stdout())?.[1]
    expect(url).toBeDefined()
    const page = await fetch(`${url}/`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html).toContain('<title>Settings</title>')
    // Every asset the page names is served too.
    const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(2)
    for (const asset of assets) expect((await fetch(`${url}/${asset}`)).status).toBe(200)
    process.kill(started.child.pid!, 'SIGTERM')
    expect((await started.exited).code).toBe(0)
  })

  it('exits 1 naming the variable when the file uses an unset one without a fallback', { timeout: 60_000 }, async () => {
    const { file } = await deployment()
    const started = startScript(file, { DSH_START_SPEC_DIR: undefined })
    const { code } = await started.exited
    expect(code).toBe(1)
    expect(started.stderr()).toContain(`cannot start ${file}`)
    expect(started.stderr()).toContain('DSH_START_SPEC_DIR')
  })
})
