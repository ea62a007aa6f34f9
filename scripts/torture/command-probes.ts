/**
 * What the command row works with: raw `node:http` listeners that record every
 * request (and answer the hello with a forged proof, or relay everything to a
 * real host), real `dsh` processes whose `/proc/<pid>/cmdline` is sampled
 * while they run, a real host (`dsh start`), and a book of secrets searched
 * for whole or as any 8-character slice, never printed.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sleep, track } from './harness.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = 'packages/tools/dsh/src/bin.ts'

/** A listener that keeps every request it gets, as text. */
export interface Recorder {
  url: string
  port: number
  /** Each request: method, target, every header line and the body. */
  requests: string[]
  /** How many requests carried an `Authorization` header. */
  authorized: number
  close(): Promise<void>
}

/** Start a recorder on `host`:`port` (any free port by default); `relayTo` passes every request on to that port of 127.0.0.1. */
export async function startRecorder(options: { port?: number; host?: string; deployment?: string; relayTo?: number } = {}): Promise<Recorder> {
  const requests: string[] = []
  const recorder = { url: '', port: 0, requests, authorized: 0 } as Recorder
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const body = Buffer.concat(chunks)
      requests.push([`${incoming.method} ${incoming.url}`, ...incoming.rawHeaders, body.toString('utf8')].join('\n'))
      if (incoming.headers.authorization !== undefined) recorder.authorized++
      if (options.relayTo !== undefined) {
        const forward = httpRequest({ host: '127.0.0.1', port: options.relayTo, path: incoming.url, method: incoming.method, headers: { ...incoming.headers, host: `127.0.0.1:${options.relayTo}` } }, (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(outgoing)
        })
        forward.on('error', () => outgoing.destroy())
        forward.end(body)
      } else if (incoming.url === '/remote/hello') {
        const host = { url: recorder.url, pid: process.pid, ...(options.deployment ? { deployment: options.deployment } : {}) }
        outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: { host, proof: randomBytes(32).toString('base64url') } }))
      } else {
        // Answer as a host would to an unknown service, so a client that got this far would keep trying.
        outgoing.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"remote/not-found","message":"no such service or method"}}')
      }
    })
  })
  await new Promise<void>((done, fail) => {
    server.once('error', fail)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', done)
  })
  recorder.port = (server.address() as AddressInfo).port
  recorder.url = `http://127.0.0.1:${recorder.port}`
  recorder.close = async () => {
    server.closeAllConnections()
    await new Promise((done) => server.close(done))
  }
  return recorder
}

/** What a command process printed, how it exited, and what its command line looked like while it ran. */
export interface CommandRun {
  code: number | null
  out: string[]
  err: string[]
  /** Each distinct `/proc/<pid>/cmdline` read while it ran (NULs as spaces). */
  cmdlines: string[]
  /** How many times the command line was read. */
  samples: number
}

/** Run `dsh <args>` from the repository root with `DSH_HOME=home`, `stdin` written to it; `/proc/<pid>/cmdline` read every few ms. */
export async function runCommand(home: string, args: readonly string[], stdin = ''): Promise<CommandRun> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', BIN, ...args], { cwd: ROOT, env: { ...process.env, DSH_HOME: home, DSH_PORT: '0' }, stdio: ['pipe', 'pipe', 'pipe'] })
  track(child)
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  child.stdin.on('error', () => {})
  child.stdin.end(stdin)
  const cmdlines = new Set<string>()
  let samples = 0
  const sample = () => {
    try {
      cmdlines.add(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replace(/\0/g, ' '))
      samples++
    } catch {}
  }
  sample()
  const timer = setInterval(sample, 5)
  const code = await new Promise<number | null>((done) => child.once('close', done))
  clearInterval(timer)
  const lines = (text: string) => text.split('\n').filter((line) => line !== '')
  return { code, out: lines(out), err: lines(err), cmdlines: [...cmdlines], samples }
}

/** A host run as a person runs one: `dsh start <deployment>` with `DSH_HOME=home`. */
export interface HostProcess {
  pid: number
  /** The record it wrote, as text. */
  record: string
  url: string
  /** Everything it printed so far. */
  output(): string
  /** SIGKILL it and wait for it to be gone. */
  kill(): Promise<void>
}

/** Start a host and wait until its record is written and its deployment plugged. */
export async function startHost(home: string, deployment: string): Promise<HostProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', BIN, 'start', deployment], { cwd: ROOT, env: { ...process.env, DSH_HOME: home, DSH_PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  track(child)
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  const deadline = Date.now() + 60_000
  let record: string | undefined
  for (;;) {
    record = readRecord(home)
    if (record && output.includes('(edit it to re-plug changed entries; Ctrl-C stops)')) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the host did not start (exit ${child.exitCode})`)
    await sleep(50)
  }
  const url = (JSON.parse(record) as { url: string }).url
  return {
    pid: child.pid!,
    record,
    url,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}

/** The host record in `home`, as text; `undefined` when there is none. */
export function readRecord(home: string): string | undefined {
  try {
    return readFileSync(join(home, 'remote-host.json'), 'utf8')
  } catch {
    return undefined
  }
}

/** Every secret of a run, by a label that says what it is (never the value). */
export class SecretBook {
  private readonly secrets: { label: string; slices: string[] }[] = []

  /** Keep `value` to search for under `label`: itself, and each 8-character slice (of its base64 too). */
  add(label: string, value: string): void {
    const slices = new Set<string>()
    for (const form of [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('base64url')]) {
      for (let start = 0; start + 8 <= form.length; start++) slices.add(form.slice(start, start + 8))
    }
    this.secrets.push({ label, slices: [...slices] })
  }

  get count(): number {
    return this.secrets.length
  }

  /** The labels of the secrets `text` holds, whole or in part. */
  find(text: string): string[] {
    return this.secrets.filter((secret) => secret.slices.some((slice) => text.includes(slice))).map((secret) => secret.label)
  }
}
