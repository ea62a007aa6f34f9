/**
 * One source session of the secret scan: a settings host (secret-host.ts) in
 * a child process of its own, started with the environment, document and
 * `secrets` mode the session needs (and, for the keychain, inside a fresh
 * session bus with an unlocked gnome-keyring), driven over the wire. Every
 * answer the wire client got, every event frame, every line the host printed
 * (log lines, stderr) is kept for the scan to search.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRemote, TOKEN_FILE, type Remote } from 'dsh-remote'
import type { SettingsRemote } from 'dsh-settings-controller'
import { sleep } from './harness.ts'
import type { Answer } from './stack.ts'

const HOST = fileURLToPath(new URL('secret-host.ts', import.meta.url))
/** The host exits by itself after this long, whatever happens (a guard against a stuck session, not a speed goal). */
const SAFETY_MS = 60_000
/** How long the host may take to boot, answer a move or stop. */
const WAIT_MS = 30_000

/** How to start a session's host. */
export interface SessionOptions {
  dir: string
  mode: 'file' | 'keyring' | 'inline'
  document: string
  /** Variables added to the host's environment (the `!env` values). */
  env?: Record<string, string>
  /** Run the host in a fresh session bus with an unlocked gnome-keyring, HOME and the XDG folders under `dir`. */
  keyring?: boolean
}

/** A running host session; see the module comment. */
export interface HostSession {
  file: string
  remote: Remote<{ settings: SettingsRemote }>
  answers: Answer[]
  /** Every line the host printed: its log lines as the console prints them, then anything else (stderr included). */
  lines(): string[]
  /** The event stream's text so far. */
  frames(): string
  /** Send one command line to the host and wait for the line starting with one of `answers` (`undefined` on timeout). */
  command(line: string, answers: string[]): Promise<string | undefined>
  /** Stop the host (and its session bus); resolves once it exited. */
  stop(): Promise<void>
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

function startHost(options: SessionOptions, file: string, home: string): ChildProcess {
  const argv = [process.execPath, '--conditions=source', '--import', 'tsx', HOST, file, home, options.mode, String(SAFETY_MS)]
  if (!options.keyring) return spawn(argv[0]!, argv.slice(1), { env: { ...process.env, ...options.env }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
  const { dir } = options
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_RUNTIME_DIR: join(dir, 'run'), ...options.env }
  const script = `echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; exec ${argv.map(quote).join(' ')}`
  return spawn('dbus-run-session', ['--', 'bash', '-c', script], { env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
}

/** The host's output, line by line: log lines apart from the rest, and a wait for a line with a given start. */
function hostOutput(child: ChildProcess) {
  const logs: string[] = []
  const other: string[] = []
  const waiters = new Set<{ tags: string[]; done(line: string | undefined): void }>()
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    for (let at = out.indexOf('\n'); at >= 0; at = out.indexOf('\n')) {
      const line = out.slice(0, at)
      out = out.slice(at + 1)
      if (line.startsWith('log ')) logs.push(JSON.parse(line.slice(4)) as string)
      else other.push(line)
      for (const waiter of waiters) if (waiter.tags.some((tag) => line.startsWith(tag))) waiter.done(line)
    }
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void other.push(chunk))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const waitFor = (tags: string[]) =>
    new Promise<string | undefined>((resolve) => {
      const waiter = { tags, done: (line: string | undefined) => (waiters.delete(waiter), clearTimeout(timer), resolve(line)) }
      const timer = setTimeout(() => waiter.done(undefined), WAIT_MS)
      waiters.add(waiter)
      void exited.then(() => waiter.done(undefined))
    })
  return { logs, other, exited, waitFor }
}

/** Open `/remote/events` and keep its text until `signal` aborts. */
async function readEvents(url: string, token: string, signal: AbortSignal): Promise<() => string> {
  let frames = ''
  const events = await globalThis.fetch(`${url}/remote/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal })
  void (async () => {
    const decoder = new TextDecoder()
    const reader = events.body!.getReader()
    for (let read = await reader.read(); !read.done; read = await reader.read()) frames += decoder.decode(read.value, { stream: true })
  })().catch(() => {})
  return () => frames
}

/** Start a host as `options` say and connect to it; rejects (the host stopped) when it does not come up. */
export async function openSession(options: SessionOptions): Promise<HostSession> {
  const file = join(options.dir, 'settings.yaml')
  const home = join(options.dir, 'home')
  await mkdir(options.dir, { recursive: true })
  for (const sub of ['home', ...(options.keyring ? ['data', 'cache', 'config', 'run'] : [])]) await mkdir(join(options.dir, sub), { mode: 0o700 })
  await writeFile(file, options.document, { mode: 0o600 })
  const child = startHost(options, file, home)
  const { logs, other, exited, waitFor } = hostOutput(child)
  const abort = new AbortController()
  const stop = async () => {
    abort.abort()
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end('stop\n')
      await Promise.race([exited, sleep(WAIT_MS)])
    }
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {}
    await Promise.race([exited, sleep(1000)])
  }
  try {
    if (!(await waitFor(['ready']))) throw new Error(`the secret host (${options.mode}${options.keyring ? ', keyring' : ''}) did not come up: ${other.join('\n').slice(-400)}`)
    const url = other.find((line) => line.startsWith('url '))!.split(' ')[1]!
    const token = (await readFile(join(home, TOKEN_FILE), 'utf8')).trim()
    const answers: Answer[] = []
    // Record every answer's raw text before the client parses it, as the main stack does.
    const recording = async (input: string, init: RequestInit): Promise<Response> => {
      const response = await globalThis.fetch(input, init)
      answers.push({ url: input, status: response.status, body: await response.clone().text() })
      return response
    }
    const frames = await readEvents(url, token, abort.signal)
    return {
      file,
      remote: createRemote<{ settings: SettingsRemote }>({ url, token, fetch: recording }),
      answers,
      lines: () => [...logs, ...other],
      frames,
      command: (line, tags) => {
        const answer = waitFor(tags)
        child.stdin!.write(`${line}\n`)
        return answer
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
