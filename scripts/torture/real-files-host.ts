/**
 * A settings host of the real-files torture in its own process
 * (children/files-host.ts), as the parent sees it: its boot, its wire (every
 * call with a deadline, every answer kept as text for the leak scan), its log
 * lines, and a stop by SIGTERM that must end it before a deadline. A host may
 * run as another user (`uid`/`gid`). Hosts still running when this process
 * exits are SIGKILLed, by their own pid.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { CHILD_SAFETY_MS } from './harness.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SCRIPT = fileURLToPath(new URL('./children/files-host.ts', import.meta.url))

/** How long a boot (tsx, cordis, every plugin) may take on a busy two-core box before it counts as hung. */
export const BOOT_MS = 20_000
/** How long one wire call may take before the host counts as no longer answering. */
export const CALL_MS = 10_000
/** How long a SIGTERM may take to stop a host. */
export const STOP_MS = 10_000

const live = new Set<ChildProcess>()

/** SIGKILL `child` (by its pid) should this process exit while it still runs. */
export function killOnExit(child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
}

process.once('exit', () => {
  for (const child of live) {
    try {
      process.kill(child.pid!, 'SIGKILL')
    } catch {}
  }
})

/** What a host is started with. */
export interface HostOptions {
  /** The document path the file provider is given. */
  file: string
  /** The remote server's and the controller's home. */
  home: string
  /** Run as this user (and group); this process's own when absent. */
  uid?: number
  gid?: number
  /** Extra environment (HOME for another user). */
  env?: Record<string, string>
}

/** How one plugin ended its boot, as the host reported it. */
export interface PluginOutcome {
  state: 'ok' | 'failed' | 'pending'
  message?: string
}

/** A wire call's outcome. */
export type CallResult =
  | { kind: 'value'; value: any }
  | { kind: 'error'; status: number; code: string; message: string }
  /** No answer before the deadline. */
  | { kind: 'wedged' }
  /** No server to call (it failed, or the host is gone). */
  | { kind: 'unreachable'; message: string }

/** A running host. */
export class FilesHost {
  readonly logs: string[] = []
  /** Every wire answer's body, as text. */
  readonly answers: string[] = []
  provider: { ok: true } | { ok: false; code: string; message: string } | undefined
  readonly plugins = new Map<string, PluginOutcome>()
  url: string | undefined
  token = ''
  remoteFailure: string | undefined
  private readonly child: ChildProcess
  private readonly closed: Promise<number | null>
  private exited = false
  private ready = false
  private stderrText = ''

  constructor(readonly options: HostOptions) {
    this.child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', SCRIPT, options.file, options.home, String(CHILD_SAFETY_MS)], {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
    })
    killOnExit(this.child)
    this.child.stdin!.on('error', () => {})
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (this.stderrText = (this.stderrText + chunk).slice(-4096)))
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.hear(line))
    this.closed = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        this.exited = true
        resolve(code)
      })
      this.child.once('error', (error) => {
        this.exited = true
        this.stderrText += `\nspawn failed: ${error.message}`
        resolve(-1)
      })
    })
  }

  /** The last 4 kB of the host's stderr. */
  stderr(): string {
    return this.stderrText
  }

  private hear(line: string): void {
    const [tag, ...rest] = line.split(' ')
    const json = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as string))
    if (tag === 'log') this.logs.push(json(rest.join(' '))!)
    else if (tag === 'url') [this.url, this.token] = [rest[0], rest[1] ?? '']
    else if (tag === 'remote') this.remoteFailure = `${rest[1]} ${json(rest.slice(2).join(' '))}`
    else if (tag === 'provider') this.provider = rest[0] === 'ok' ? { ok: true } : { ok: false, code: rest[1]!, message: json(rest.slice(2).join(' ')) ?? '' }
    else if (tag === 'plugin') this.plugins.set(rest[0]!, { state: rest[1] as PluginOutcome['state'], message: json(rest.slice(2).join(' ') || undefined) })
    else if (tag === 'ready') this.ready = true
  }

  /**
   * Wait until the host reported its boot: `ready` (every plugin said how it
   * ended, and the server listens or failed), `exited`, or `wedged` when the
   * deadline passed first.
   */
  async booted(deadlineMs = BOOT_MS): Promise<'ready' | 'exited' | 'wedged'> {
    const deadline = Date.now() + deadlineMs
    while (Date.now() < deadline) {
      if (this.ready && (this.url !== undefined || this.remoteFailure !== undefined)) return 'ready'
      if (this.exited) return 'exited'
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return 'wedged'
  }

  /** Call `settings.<method>(...args)` on the wire; the answer's text is kept for the leak scan. */
  async call(method: string, args: unknown[], deadlineMs = CALL_MS): Promise<CallResult> {
    if (this.url === undefined) return { kind: 'unreachable', message: this.remoteFailure ?? 'the host has no server' }
    let response: Response
    let body: string
    try {
      response = await fetch(`${this.url}/remote/settings/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ args }),
        signal: AbortSignal.timeout(deadlineMs),
      })
      body = await response.text()
    } catch (error) {
      const name = (error as Error).name
      if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'wedged' }
      return { kind: 'unreachable', message: (error as Error).message }
    }
    this.answers.push(body)
    let parsed: { value?: unknown; error?: { code: string; message: string } }
    try {
      parsed = JSON.parse(body) as typeof parsed
    } catch {
      return { kind: 'error', status: response.status, code: 'unparsable', message: body.slice(0, 200) }
    }
    if (parsed.error) return { kind: 'error', status: response.status, code: parsed.error.code, message: parsed.error.message }
    return { kind: 'value', value: parsed.value }
  }

  /** Whether the host's process is still running. */
  alive(): boolean {
    return !this.exited
  }

  /**
   * Stop the host as a user does (SIGTERM, or Ctrl-C's SIGINT) and wait for it
   * to exit. `wedged` when it is still running at the deadline; it is then SIGKILLed.
   */
  async stop(signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM', deadlineMs = STOP_MS): Promise<'stopped' | 'wedged'> {
    if (this.exited) return 'stopped'
    this.signal(signal)
    const outcome = await Promise.race([this.closed.then(() => 'stopped' as const), new Promise<'wedged'>((resolve) => setTimeout(() => resolve('wedged'), deadlineMs))])
    if (outcome === 'wedged') await this.kill()
    return outcome
  }

  /** SIGKILL the host (by its pid) and wait until it is gone; false when it had exited already. */
  async kill(): Promise<boolean> {
    if (this.exited) return false
    this.signal('SIGKILL')
    await this.closed
    return true
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      process.kill(this.child.pid!, signal)
    } catch {}
  }
}
