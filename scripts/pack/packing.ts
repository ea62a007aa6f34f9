/**
 * Build, pack and install the published packages the way a consumer would get
 * them, for `pack.spec.ts`: `tsc -b` into each package's dist, `pnpm pack` (which
 * applies `publishConfig.exports` and turns `workspace:` ranges into versions),
 * then a consumer project assembled offline from the tarballs and the
 * third-party packages the workspace install already holds.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { installedDependency, listFiles, readJson, ROOT, type Manifest, type WorkspacePackage } from './workspace.ts'

const run = promisify(execFile)

/** Output of a child process, and whether it failed. */
export interface RunResult {
  ok: boolean
  stdout: string
  stderr: string
}

/** Run `file args` in `cwd`, collecting its output instead of throwing on a non-zero exit. */
export async function runCommand(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 })
    return { ok: true, stdout, stderr }
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    return { ok: false, stdout: failed.stdout ?? '', stderr: `${failed.stderr ?? ''}\n${failed.message}` }
  }
}

/** Whether the process that holds the build lock at `lock` is gone (or never wrote its pid). */
function lockHolderGone(lock: string): boolean {
  let pid: number
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'))
  } catch {
    // Made but no pid yet: its maker is writing it, unless that was long ago.
    return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 10_000
  }
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/** Run `task` while holding a lock shared by every process of this checkout (a folder made exclusively). */
async function withBuildLock<T>(task: () => Promise<T>): Promise<T> {
  const lock = join(ROOT, 'node_modules', '.cache', 'dsh-build.lock')
  mkdirSync(dirname(lock), { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (statSync(lock, { throwIfNoEntry: false }) && lockHolderGone(lock)) rmSync(lock, { recursive: true, force: true })
      else await new Promise((done) => setTimeout(done, 200))
    }
  }
  try {
    return await task()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * `tsc -b` over the root project references: the packages' part of `pnpm build`
 * (the settings page's assets are no package's). Incremental, so a fresh dist
 * costs a few seconds; it writes in place and never removes a dist. Test files
 * that build run at once under `pnpm test`: they take turns, so no build
 * rewrites a dist another one is already running (the later ones find it fresh
 * and write nothing).
 */
export function buildPackages(): Promise<RunResult> {
  return withBuildLock(() => runCommand(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], ROOT))
}

/** One packed package. */
export interface Packed {
  pkg: WorkspacePackage
  /** The tarball's path. */
  tarball: string
  /** The folder the tarball was extracted into (its `package/` prefix stripped). */
  dir: string
  /** Every file in the tarball, relative to the package root. */
  files: string[]
  /** The manifest as published. */
  manifest: Manifest
}

/** `pnpm pack` one package into `destination`, and extract the tarball into `extractRoot/<name>`. */
export async function packPackage(pkg: WorkspacePackage, destination: string, extractRoot: string): Promise<Packed> {
  const packed = await runCommand('pnpm', ['pack', '--pack-destination', destination, '--json'], pkg.path)
  if (!packed.ok) throw new Error(`pnpm pack failed in ${pkg.dir}:\n${packed.stdout}\n${packed.stderr}`)
  // Lifecycle scripts may print before the JSON report; it starts on a line of its own.
  const start = packed.stdout.search(/^\{/m)
  if (start < 0) throw new Error(`pnpm pack printed no JSON report in ${pkg.dir}:\n${packed.stdout}`)
  const report = JSON.parse(packed.stdout.slice(start)) as { filename: string }
  const tarball = report.filename.startsWith('/') ? report.filename : join(destination, report.filename)
  const dir = join(extractRoot, pkg.manifest.name)
  mkdirSync(dir, { recursive: true })
  const extracted = await runCommand('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], extractRoot)
  if (!extracted.ok) throw new Error(`could not extract ${tarball}:\n${extracted.stderr}`)
  return { pkg, tarball, dir, files: listFiles(dir), manifest: readJson<Manifest>(join(dir, 'package.json')) }
}

/** Create a symlink at `link` to `target`, making the parent folders (for scoped names) first. */
function linkInto(link: string, target: string): void {
  mkdirSync(dirname(link), { recursive: true })
  symlinkSync(target, link, 'dir')
}

/** What {@link assembleConsumer} resolved for each installed package, for the checks to read. */
export interface ConsumerLayout {
  /** The consumer project: its `node_modules` holds our packages and their third-party peers. */
  app: string
  /** Per packed package, each declared dependency or peer and the real folder it resolves to. */
  links: Map<string, Map<string, string>>
}

/**
 * Lay out a consumer project under `root` as an isolated install would: each
 * packed package in its own folder whose `node_modules` holds exactly what its
 * published manifest declares (`dependencies` and `peerDependencies`), so an
 * undeclared import fails; our own packages link to the one extracted copy,
 * third-party ones to the folder the workspace install put them in (the
 * lockfile's versions). The app's `node_modules` holds every packed package
 * plus the third-party peers, one copy each, as an app installing them would.
 * Throws when a declared dependency is neither packed nor installed.
 */
export function assembleConsumer(root: string, packed: Packed[]): ConsumerLayout {
  const byName = new Map(packed.map((entry) => [entry.manifest.name, entry]))
  const links = new Map<string, Map<string, string>>()
  const peersOfApp = new Map<string, string>()
  for (const entry of packed) {
    const resolved = new Map<string, string>()
    const declared = { ...entry.manifest.dependencies, ...entry.manifest.peerDependencies }
    for (const name of Object.keys(declared)) {
      const ours = byName.get(name)
      const target = ours ? ours.dir : installedDependency(entry.pkg, name)
      if (target === undefined) throw new Error(`${entry.manifest.name} declares ${name}, which is neither packed nor installed in the workspace`)
      linkInto(join(entry.dir, 'node_modules', name), target)
      resolved.set(name, target)
      if (!ours && entry.manifest.peerDependencies?.[name] !== undefined) peersOfApp.set(name, target)
    }
    links.set(entry.manifest.name, resolved)
  }
  const app = join(root, 'app')
  mkdirSync(app, { recursive: true })
  const dependencies: Record<string, string> = {}
  for (const entry of packed) {
    linkInto(join(app, 'node_modules', entry.manifest.name), entry.dir)
    dependencies[entry.manifest.name] = entry.manifest.version
  }
  for (const [name, target] of peersOfApp) {
    linkInto(join(app, 'node_modules', name), target)
    dependencies[name] = readJson<Manifest>(join(target, 'package.json')).version
  }
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'dsh-pack-consumer', private: true, type: 'module', dependencies }, null, 2)}\n`)
  return { app, links }
}

/**
 * Run an ES module script in plain Node from `cwd`: no `source` condition, no
 * tsx, no inherited NODE_OPTIONS, so only what the packages ship is loaded.
 */
export function runPlainNode(script: string, cwd: string, args: string[] = []): Promise<RunResult> {
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return runCommand(process.execPath, ['--input-type=module', '-e', script, ...args], cwd, env)
}
