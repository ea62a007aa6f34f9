/**
 * What the command's specs share: temp homes, and hosts started as a person
 * starts one (`dsh start <deployment>` in a child process, a free port), each
 * removed or stopped after its test by the hooks {@link useHosts} installs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import { runDsh } from '../src/main.ts'

/** The repository root, where the fixtures' deployment paths are relative to. */
export const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')

/** A running host: its process, and everything it printed so far. */
export interface Host {
  child: ChildProcess
  output(): string
}

/** What {@link useHosts} gives a spec. */
export interface Hosts {
  /** A fresh temp home (removed after the test), holding a copy of `seed` (a path under the workspace) as `settings.yaml` when given. */
  home(prefix: string, seed?: string): string
  /**
   * Start `dsh start <deployment>` with `DSH_HOME=dir` on a free port, and wait
   * until its record is written and its deployment plugged (signals stop it
   * cleanly from then on). Stopped after the test if still running.
   */
  start(dir: string, deployment: string, env?: Record<string, string>): Promise<Host>
}

/** Install the cleanup hooks and answer the helpers; call once at the top of a spec file. */
export function useHosts(): Hosts {
  const temps: string[] = []
  const hosts: ChildProcess[] = []
  afterEach(async () => {
    for (const host of hosts.splice(0)) {
      if (host.exitCode !== null || host.signalCode !== null) continue
      const exited = new Promise((done) => host.once('exit', done))
      host.kill('SIGTERM')
      await exited
    }
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return {
    home(prefix, seed) {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
      temps.push(dir)
      if (seed) copyFileSync(join(WORKSPACE, seed), join(dir, 'settings.yaml'))
      return dir
    },
    async start(dir, deployment, env = {}) {
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/tools/dsh/src/bin.ts', 'start', deployment], {
        cwd: WORKSPACE,
        env: { ...process.env, DSH_HOME: dir, DSH_PORT: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      hosts.push(child)
      let output = ''
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
      const deadline = Date.now() + 60_000
      while (!existsSync(join(dir, 'remote-host.json')) || !output.includes('(edit it to re-plug changed entries; Ctrl-C stops)')) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the host did not start:\n${output}`)
        await new Promise((done) => setTimeout(done, 50))
      }
      return { child, output: () => output }
    },
  }
}

/** What a command printed, and how it exited. */
export interface Ran {
  code: number
  out: string[]
  err: string[]
}

/** Run `dsh <args>` in process, as `pnpm dsh` runs it, with `DSH_HOME=dir`: exit code and output lines. */
export function dsh(dir: string, ...args: string[]): Promise<Ran> {
  return dshIn(dir, args)
}

/** `dsh(dir, ...args)`, with `stdin` as its standard input when given (never a terminal). */
export async function dshIn(dir: string, args: readonly string[], stdin?: NodeJS.ReadableStream): Promise<Ran> {
  const out: string[] = []
  const err: string[] = []
  const code = await runDsh([...args], {
    out: (line) => out.push(...line.split('\n')),
    err: (line) => err.push(...line.split('\n')),
    cwd: WORKSPACE,
    env: { DSH_HOME: dir, DSH_PORT: '0' },
    conditions: ['source'],
    stdin,
  })
  return { code, out, err }
}
