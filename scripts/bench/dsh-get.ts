/**
 * `dsh settings get <namespace>.<key>` as a user runs it (issue 35: at most
 * 150 ms median): the installed bin of a consumer project made from the
 * packed tarballs (`scripts/pack/packing.ts`: built, packed, laid out as an
 * install would, `node_modules/.bin/dsh` linked as npm links it), run as a
 * process of its own, with no host running (values from the catalog its host
 * recorded once and the document) and with the host running (over its wire,
 * after it proves itself). Beside it, on this machine in the same run:
 * `npm config get <key>` in the same project and `git config --get <key>` in
 * a temp repository. Runs alternate between the commands; one unrecorded run
 * of each comes first (the file cache), then the medians of {@link RUNS}.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assembleConsumer, buildPackages, packPackage } from '../pack/packing.ts'
import { publishedPackages } from '../pack/workspace.ts'
import { removeTemp, tempDir, type Row } from './harness.ts'
import { median, now, summarize } from './stats.ts'

const RUNS = 21
const TARGET_MS = 150

const PLUGIN = `import Schema from 'schemastery'
export const name = 'demo'
export const inject = ['settings']
export function apply(ctx, config) {
  ctx.settings.register('demo', Schema.object({
    limit: Schema.natural().max(50).default(10),
    engine: Schema.union(['bing', 'google']).default('bing'),
    token: Schema.string().role('secret'),
  }), { base: config })
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
  ./plugin.mjs:
    engine: google
`

/** The environment every command runs with: nothing of this process's loaders or options. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  delete env.DSH_HOME
  delete env.DSH_PORT
  return env
}

/** One run of `file args` in `cwd`: its wall time from spawn to exit, and what it printed. */
function timeRun(file: string, args: string[], cwd: string): { ms: number; stdout: string } {
  const begin = now()
  const result = spawnSync(file, args, { cwd, env: cleanEnv(), encoding: 'utf8' })
  const ms = now() - begin
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`)
  return { ms, stdout: result.stdout.trim() }
}

/** The consumer project: our packed packages laid out as installed, its deployment and plugin, the bin linked. */
async function consumer(root: string): Promise<string> {
  const build = await buildPackages()
  if (!build.ok) throw new Error(`tsc -b failed:\n${build.stdout}\n${build.stderr}`)
  const packed = await Promise.all(publishedPackages().map((pkg) => packPackage(pkg, join(root, 'tarballs'), join(root, 'extracted'))))
  const { app } = assembleConsumer(root, packed)
  writeFileSync(join(app, 'plugin.mjs'), PLUGIN)
  writeFileSync(join(app, 'cordis.yml'), DEPLOYMENT)
  writeFileSync(join(app, '.npmrc'), 'dsh-bench-key=dsh-bench-value\n')
  mkdirSync(join(app, 'node_modules', '.bin'), { recursive: true })
  // As npm links a package's bin: to the file its manifest names, made executable.
  const { bin } = JSON.parse(readFileSync(join(app, 'node_modules', 'dsh', 'package.json'), 'utf8')) as { bin: { dsh: string } }
  chmodSync(join(app, 'node_modules', 'dsh', bin.dsh), 0o755)
  symlinkSync(join('..', 'dsh', bin.dsh), join(app, 'node_modules', '.bin', 'dsh'))
  return app
}

/** Start `dsh start` in `app` and resolve once its record is written and its catalog has the plugin's kind; `stop` ends it. */
async function startHost(app: string): Promise<{ stop(): Promise<void> }> {
  const child = spawn(join(app, 'node_modules', '.bin', 'dsh'), ['start'], { cwd: app, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const catalog = join(app, '.dsh', 'settings-catalog.json')
  const deadline = Date.now() + 60_000
  while (!existsSync(join(app, '.dsh', 'remote-host.json')) || !existsSync(catalog) || !readFileSync(catalog, 'utf8').includes('"demo"')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`dsh start did not start:\n${output}`)
    await new Promise((done) => setTimeout(done, 100))
  }
  return {
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((done) => child.once('exit', done))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Medians of `RUNS` alternating runs of each command (after one unrecorded run of each). */
function alternate(commands: Record<string, () => { ms: number }>): Record<string, number[]> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]))
  for (const run of Object.values(commands)) run()
  for (let index = 0; index < RUNS; index++) for (const [name, run] of Object.entries(commands)) samples[name]!.push(run().ms)
  return samples
}

/** The rows: `dsh settings get` with no host and with one running, each beside npm and git. */
export async function benchDshGet(): Promise<Row[]> {
  const root = await tempDir('dsh-get')
  try {
    const app = await consumer(root)
    const repo = join(root, 'repo')
    mkdirSync(repo)
    spawnSync('git', ['init', '-q'], { cwd: repo })
    spawnSync('git', ['config', '--local', 'dsh.limit', '10'], { cwd: repo })
    const dsh = join(app, 'node_modules', '.bin', 'dsh')
    const get = () => timeRun(dsh, ['settings', 'get', 'demo.limit'], app)
    const npm = () => timeRun('npm', ['config', 'get', 'dsh-bench-key'], app)
    const git = () => timeRun('git', ['config', '--get', 'dsh.limit'], repo)
    // The host records the catalog once; its first start also writes the document's folder.
    await (await startHost(app)).stop()
    if (get().stdout !== '10') throw new Error('dsh settings get demo.limit did not print 10 with no host running')
    const noHost = alternate({ dsh: get, npm, git })
    const host = await startHost(app)
    let withHost: Record<string, number[]>
    try {
      if (get().stdout !== '10') throw new Error('dsh settings get demo.limit did not print 10 through the host')
      withHost = alternate({ dsh: get, npm, git })
    } finally {
      await host.stop()
    }
    const row = (id: string, way: string, samples: Record<string, number[]>): Row => {
      const ours = median(samples.dsh!)
      return {
        id,
        measurement: `dsh settings get demo.limit, installed bin, ${way}`,
        ours,
        comparison: median(samples.npm!),
        comparisonLabel: `npm config get <key> (git config --get: ${median(samples.git!).toFixed(1)} ms)`,
        unit: 'ms',
        ratio: ours / median(samples.npm!),
        ratioKind: 'ours/comparison',
        target: `≤ ${TARGET_MS} ms median`,
        met: ours <= TARGET_MS,
        detail: { runs: RUNS, dsh: summarize(samples.dsh!), npm: summarize(samples.npm!), git: summarize(samples.git!) },
      }
    }
    return [row('dsh-get-no-host', 'no host running', noHost), row('dsh-get-host', 'host running', withHost)]
  } finally {
    await removeTemp(root)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await benchDshGet()
  console.log(JSON.stringify(rows, null, 2))
}
