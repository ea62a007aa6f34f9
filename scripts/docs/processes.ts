/**
 * Child processes of the docs test: commands run to their end, and hosts
 * (`dsh start`) run in the background in a process group of their own, so a
 * signal reaches the host under any wrapper (`npx`, `pnpm`, a shell) and the
 * whole group can be ended by its id.
 */
import { spawn, type ChildProcess } from 'node:child_process'

/** What a finished command printed, stdout and stderr interleaved as they came. */
export interface Finished {
  code: number | null
  output: string
}

/** How long a documented command may run before the test gives up on it. */
const COMMAND_TIMEOUT_MS = 120_000

/** Send `signal` to the process group of `child`, if it is still there. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

/** A process started in its own group, its output collected as it comes. */
export class Background {
  output = ''
  readonly exited: Promise<number | null>
  private readonly child: ChildProcess

  /** Start `file args` in `cwd` with `env`, in a process group of its own. */
  constructor(file: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const collect = (chunk: string) => (this.output += chunk)
    this.child.stdout!.setEncoding('utf8').on('data', collect)
    this.child.stderr!.setEncoding('utf8').on('data', collect)
    this.exited = new Promise((done) => this.child.once('close', (code) => done(code)))
  }

  /** Whether the process has exited. */
  get done(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null
  }

  /**
   * Wait until `check` holds, polling; throws, with the output so far, when the
   * process exits first or `timeoutMs` passes (a deadline for a hung host, not a speed goal).
   */
  async waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (this.done) throw new Error(`exited before ${what}:\n${this.output}`)
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs / 1000} s:\n${this.output}`)
      await new Promise((done) => setTimeout(done, 50))
    }
  }

  /** Send SIGINT (Ctrl-C) to the group and wait for the exit code; SIGKILL after 30 s. */
  async interrupt(): Promise<number | null> {
    signalGroup(this.child, 'SIGINT')
    const timer = setTimeout(() => signalGroup(this.child, 'SIGKILL'), 30_000)
    try {
      return await this.exited
    } finally {
      clearTimeout(timer)
    }
  }

  /** End the group at once, for cleanup after a failure. */
  kill(): void {
    signalGroup(this.child, 'SIGKILL')
  }
}

/** Run `bash -c command` to its end in its own group, ended after {@link COMMAND_TIMEOUT_MS}. */
export async function runShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Finished> {
  const child = new Background('bash', ['-c', command], options)
  const timer = setTimeout(() => child.kill(), COMMAND_TIMEOUT_MS)
  try {
    return { code: await child.exited, output: child.output }
  } finally {
    clearTimeout(timer)
  }
}
