/**
 * What every torture scenario shares: child processes that are always killed
 * (by their own pid) when this process ends, temp directories and tmpfs mounts
 * that are always removed, and small timing helpers.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { TempDirs } from '../lib/temp-dirs.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A random integer in [min, max]. */
export const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1))

/** How long a child may live before it exits by itself, whatever the parent does: the longest scenario plus slack. */
export const CHILD_SAFETY_MS = 10 * 60_000

// ---- children ----------------------------------------------------------------------

const live = new Set<ChildProcess>()

/** A child script of scripts/torture/children, speaking one `tag rest` line per event on stdout. */
export interface Child {
  readonly pid: number
  /** Resolves once the child exited and its stdout was read to the end. */
  readonly closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Whether the child has not exited yet. */
  alive(): boolean
  /** What the child printed on stderr (the last 4 kB). */
  stderr(): string
  /** Send one line on stdin (a child that already died is ignored). */
  send(line: string): void
  /** SIGKILL this child, by its pid; false when it had already exited. */
  kill(): boolean
}

/** Spawn `children/<script>.ts` through tsx with the `source` condition; `onLine` gets each stdout line. */
export function spawnChild(script: string, args: readonly string[], onLine: (line: string) => void): Child {
  const path = fileURLToPath(new URL(`./children/${script}.ts`, import.meta.url))
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', path, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  live.add(child)
  let exited = false
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => void (stderr = (stderr + chunk).slice(-4096)))
  // Writing to a child that just died must not crash the run.
  child.stdin!.on('error', () => {})
  createInterface({ input: child.stdout! }).on('line', onLine)
  // 'close' comes after the child's stdout ended: every line it printed before dying has been seen.
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', () => {
      exited = true
      live.delete(child)
    })
    child.once('close', (code, signal) => resolve({ code, signal }))
    child.once('error', (error) => {
      exited = true
      live.delete(child)
      stderr += `\nspawn failed: ${error.message}`
      resolve({ code: -1, signal: null })
    })
  })
  return {
    pid: child.pid ?? -1,
    closed,
    alive: () => !exited,
    stderr: () => stderr,
    send: (line) => void (exited || child.stdin!.write(`${line}\n`)),
    kill: () => {
      if (exited || child.pid === undefined) return false
      try {
        process.kill(child.pid, 'SIGKILL')
        return true
      } catch {
        return false
      }
    },
  }
}

/** Have a process a scenario spawned itself killed by its pid when this run ends, as the children above are. */
export function track(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return
  live.add(child)
  child.once('exit', () => live.delete(child))
}

// ---- files ----------------------------------------------------------------------------

/**
 * What a writer or a lock could have left in `dir`: every name but `expected`,
 * plus temp, lock and claim files inside `history/` (which otherwise holds kept
 * versions and the journal), but for the standing lock record of the writer
 * that runs as pid `liveWriter` (a provider running in this process).
 */
export async function strayFiles(dir: string, expected: readonly string[], liveWriter?: number): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => !expected.includes(name))
  const history = await readdir(join(dir, 'history')).catch(() => [] as string[])
  // A provider still running keeps its lock record standing in history/ (named like its temps, with its pid): not a leftover.
  const standing = liveWriter === undefined ? undefined : new RegExp(`^\\..+\\.lock\\.[0-9a-f]{8}\\.${liveWriter}\\.(\\d+|x)\\.[0-9a-f]{12}\\.tmp$`)
  const stray = history.filter((name) => /\.tmp$|\.lock|\.claim-/.test(name) && !standing?.test(name))
  return [...names, ...stray.map((name) => `history/${name}`)]
}

// ---- temp directories and mounts ------------------------------------------------------

const temps = new TempDirs('dsh-torture')
const mounts = new Set<string>()

/** A fresh temp directory (realpath'd, so it compares equal to the provider's canonical paths). */
export async function tempDir(name: string): Promise<string> {
  return temps.create(name)
}

/** A temp directory for the lock scenarios: the document path its lock guards, and the lockers' marker folder. */
export async function lockWorkspace(name: string): Promise<{ dir: string; file: string; markerDir: string }> {
  const dir = await tempDir(name)
  const markerDir = join(dir, 'markers')
  await mkdir(markerDir)
  return { dir, file: join(dir, 'settings.yaml'), markerDir }
}

/** Remove one temp directory now. */
export async function removeTemp(dir: string): Promise<void> {
  temps.remove(dir)
}

/** Mount a tmpfs of `size` on `dir` (throws with mount's message when that is not possible here). */
export function mountTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] })
  mounts.add(dir)
}

/** Unmount what {@link mountTmpfs} mounted; lazily when it is still busy, so a failure never leaves it behind. */
export function unmount(dir: string): void {
  if (!mounts.has(dir)) return
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' })
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
  }
  mounts.delete(dir)
}

/**
 * Kill every child still running, unmount, and remove every temp directory.
 * Synchronous, so it also runs from the 'exit' handler and after a signal.
 */
export function cleanUpNow(): void {
  for (const child of live) {
    if (child.pid !== undefined) {
      try {
        process.kill(child.pid, 'SIGKILL')
      } catch {}
    }
  }
  live.clear()
  for (const dir of mounts) {
    try {
      unmount(dir)
    } catch {}
  }
  temps.removeAll()
}

process.once('exit', cleanUpNow)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\ntorture: ${signal}, cleaning up\n`)
    cleanUpNow()
    process.exit(130)
  })
}
