/**
 * Bundle the `dsh` executable (run after `tsc -b`: by `pnpm build`, and by the
 * dsh package's `prepack`, so every tarball carries it): the package's `bin`,
 * `packages/tools/dsh/dist/bin.cjs` (`src/launch.ts`); `dist/get.bundle.cjs`,
 * the whole `dsh settings get` path as one CommonJS file (`src/get-main.ts`);
 * and `dist/get.bundle.cache`, the V8 code cache of a real `get`, recorded
 * here once (a host of the default deployment started on a temp home, so a
 * catalog is written, then a `get` with no host).
 *
 * Measured here, where `node -e 0` alone takes 85-100 ms: Node's ESM loader
 * costs about 15 ms to start and about 1.5 ms a module, and a `get` reached
 * some seventy modules; compiling them costs most of the rest. As one file
 * with its code cache, a `get` spends about 25 ms on itself. What the bundle
 * holds only reads files and talks to a host. It makes no `import()` on its
 * way (a script run with a code cache cannot): what a `get` may need rarely
 * (YAML printing, the full parse for a document the fast readers cannot take)
 * is bundled, evaluated only when reached. The modules of writes (which start
 * the deployment's own provider and packages) are named only, never reached
 * by a `get`; every other command runs `dist/bin.js` as `tsc` emitted it.
 *
 *   node --import tsx scripts/pack/bundle-bin.ts
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type BuildOptions, type Plugin } from 'esbuild'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const DSH = join(ROOT, 'packages/tools/dsh')

/** The dsh modules a `get` never runs, which its command table names: kept as `import()`s of their emitted files. */
const NEVER_REACHED = ['values/set.ts', 'values/provider-way.ts', 'values/session.ts']

/** Keep {@link NEVER_REACHED} modules out of the bundle. */
const keepOut: Plugin = {
  name: 'dsh-keep-out',
  setup(builder) {
    builder.onResolve({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith('.')) return undefined
      const inSource = relative(join(DSH, 'src'), resolve(args.resolveDir, args.path))
      if (!NEVER_REACHED.includes(inSource)) return undefined
      return { path: `./${inSource.replace(/\.ts$/, '.js')}`, external: true }
    })
  },
}

/**
 * Native modules a bundle cannot hold: loaded from dsh's own dependencies when reached (the keychain
 * binding only for a `!secret` reference under `secrets: keyring`).
 */
const NATIVE = ['@napi-rs/keyring']

/** What every bundle here is built with. */
const COMMON: BuildOptions = {
  bundle: true,
  external: NATIVE,
  // ES modules where a package has both (jsonc-parser's CommonJS entry is a UMD wrapper that requires its parts at run time).
  mainFields: ['module', 'main'],
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // The workspace's packages from their sources, as the tests run them.
  conditions: ['source'],
  // Fewer bytes to read at every start; names kept, so errors and stack frames still read as in the source.
  minify: true,
  keepNames: true,
  logLevel: 'warning',
}

/** Bundle the `get` path and the launcher over what `tsc -b` emitted; answers their paths. */
export async function bundleBin(): Promise<{ bundle: string; bin: string }> {
  const bundle = join(DSH, 'dist/get.bundle.cjs')
  const bin = join(DSH, 'dist/bin.cjs')
  if (!existsSync(join(DSH, 'dist/bin.js'))) throw new Error('packages/tools/dsh/dist/bin.js is missing: run tsc -b before bundling')
  await build({ ...COMMON, entryPoints: [join(DSH, 'src/get-main.ts')], outfile: bundle, plugins: [keepOut], banner: { js: '// Bundled by scripts/pack/bundle-bin.ts from src/get-main.ts; run by bin.cjs.' } })
  // Only the never-reached modules may be imported: anything else the route needs must be inside.
  const imports = [...readFileSync(bundle, 'utf8').matchAll(/\bimport\((["'`])([^"'`]*)\1\)/g)].map((match) => match[2]!)
  const stray = imports.filter((specifier) => !NATIVE.includes(specifier) && !NEVER_REACHED.some((module) => specifier === `./${module.replace(/\.ts$/, '.js')}`))
  if (stray.length) throw new Error(`the get bundle imports ${stray.join(', ')} at run time: bundle it`)
  await build({ ...COMMON, entryPoints: [join(DSH, 'src/launch.ts')], outfile: bin, banner: { js: '// Bundled by scripts/pack/bundle-bin.ts from src/launch.ts.' } })
  return { bundle, bin }
}

/** Wait until `check` holds, polling; throw with `why` after `ms`. */
async function until(check: () => boolean, ms: number, why: () => string): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(why())
    await new Promise((done) => setTimeout(done, 50))
  }
}

/**
 * Record the code cache of a `get` with no host running, over a catalog a host
 * of the repository's default deployment wrote on a temp home.
 * @throws when the host does not start or the `get` fails: a tarball is never packed with a cache of a failed run.
 */
export async function recordCodeCache(bin: string): Promise<string> {
  const cache = join(DSH, 'dist/get.bundle.cache')
  rmSync(cache, { force: true })
  const home = mkdtempSync(join(tmpdir(), 'dsh-code-cache-'))
  const env = { ...process.env, DSH_HOME: home, DSH_PORT: '0', NODE_OPTIONS: '' }
  try {
    let output = ''
    const host = spawn(process.execPath, [join(DSH, 'dist/bin.js'), 'start', 'cordis.yml'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    host.stdout.on('data', (chunk: Buffer) => (output += chunk))
    host.stderr.on('data', (chunk: Buffer) => (output += chunk))
    const exited = new Promise((done) => host.once('exit', done))
    try {
      await until(() => existsSync(join(home, 'settings-catalog.json')) || host.exitCode !== null, 60_000, () => `no catalog within 60 s:\n${output}`)
      if (host.exitCode !== null) throw new Error(`the host exited ${host.exitCode}:\n${output}`)
      // The catalog is gathered a moment after start: give it its final content before the host goes.
      await new Promise((done) => setTimeout(done, 500))
    } finally {
      host.kill('SIGINT')
      await exited
    }
    const get = spawnSync(process.execPath, [bin, 'settings', 'get', 'web-search.limit'], { cwd: ROOT, env: { ...env, DSH_RECORD_CODE_CACHE: cache }, encoding: 'utf8' })
    if (get.status !== 0 || !existsSync(cache)) throw new Error(`the recording get failed (${get.status}):\n${get.stdout}${get.stderr}`)
    return cache
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { bundle, bin } = await bundleBin()
  const cache = await recordCodeCache(bin)
  console.log(`bundled ${relative(ROOT, bundle)} and ${relative(ROOT, bin)}; recorded ${relative(ROOT, cache)}`)
}
