/**
 * What the host-trust specs share: a raw `node:http` listener that records
 * every request (headers and body) and answers the hello with a forged proof,
 * or passes everything on to a real host; `dsh` run as a real child process
 * (its notes go to its own stderr); planting records and token files; and the
 * search for a secret, whole or as any 8-character slice, in any encoding a
 * request could carry it in. Each listener is closed by {@link useListeners}'s hook.
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, renameSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'
import { WORKSPACE } from './hosts.ts'

/** One request a listener received, as it arrived. */
export interface Recorded {
  method: string
  url: string
  /** Header names and values as sent (`rawHeaders`). */
  headers: string[]
  body: string
}

/** A listener started by {@link useListeners}. */
export interface Listener {
  url: string
  port: number
  /** Every request so far. */
  requests: Recorded[]
  /** Everything received, as one text to search. */
  text(): string
}

/** How a listener answers. */
export interface ListenerOptions {
  /** Listen on this port (a port a killed host left); any free one by default. */
  port?: number
  /** The address to bind; 127.0.0.1 by default. */
  host?: string
  /** Pass every request on to this port on 127.0.0.1, its Host rewritten so a real host takes it. */
  relayTo?: number
  /** The deployment a forged hello answer names (the one asked about, so only the proof can give it away). */
  deployment?: string
}

/** Install the hook that closes every listener after its test; answers the starter. */
export function useListeners(): (options?: ListenerOptions) => Promise<Listener> {
  const servers: Server[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections()
      await new Promise((done) => server.close(done))
    }
  })
  return async (options = {}) => {
    const requests: Recorded[] = []
    let url = ''
    const server = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        const body = Buffer.concat(chunks)
        requests.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.rawHeaders, body: body.toString('utf8') })
        if (options.relayTo !== undefined) return relay(options.relayTo, incoming.method ?? 'GET', incoming.url ?? '/', incoming.headers, body, outgoing)
        if (incoming.url === '/remote/hello') {
          // A forged answer of the right shape: everything but a proof made with the token.
          const host = { url, pid: process.pid, ...(options.deployment ? { deployment: options.deployment } : {}) }
          outgoing.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value: { host, proof: randomBytes(32).toString('base64url') } }))
          return
        }
        outgoing.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"remote/not-found","message":"nothing here"}}')
      })
    })
    servers.push(server)
    await new Promise<void>((done, fail) => {
      server.once('error', fail)
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', done)
    })
    const port = (server.address() as AddressInfo).port
    url = `http://127.0.0.1:${port}`
    return { url, port, requests, text: () => requests.map((request) => [request.method, request.url, ...request.headers, request.body].join('\n')).join('\n\n') }
  }
}

/** Pass one request on to 127.0.0.1:`port` and its answer back. */
function relay(port: number, method: string, path: string, headers: NodeJS.Dict<string | string[]>, body: Buffer, outgoing: import('node:http').ServerResponse): void {
  const forward = httpRequest({ host: '127.0.0.1', port, path, method, headers: { ...headers, host: `127.0.0.1:${port}` } }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(outgoing)
  })
  forward.on('error', () => outgoing.destroy())
  forward.end(body)
}

/** Every form a secret could travel in: as it is, base64 and base64url, hex and URL-encoded. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  return [...new Set([secret, bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), encodeURIComponent(secret)])]
}

/** Whether `text` holds `secret` in any form of {@link forms}, whole or as any slice of 8 or more characters of it. */
export function holdsSlice(text: string, secret: string): boolean {
  for (const form of forms(secret)) {
    for (let start = 0; start + 8 <= form.length; start++) if (text.includes(form.slice(start, start + 8))) return true
  }
  return false
}

/** What a command printed, and how it exited. */
export interface ChildRun {
  code: number | null
  out: string[]
  err: string[]
}

/** Run `dsh <args>` as a real process (`pnpm dsh` does the same) with `DSH_HOME=dir`, `stdin` written to it. */
export function dshProcess(dir: string, args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<ChildRun> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'packages/tools/dsh/src/bin.ts', ...args], {
    cwd: WORKSPACE,
    env: { ...process.env, DSH_HOME: dir, DSH_PORT: '0', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  child.stdin.on('error', () => {})
  child.stdin.end(options.stdin ?? '')
  const lines = (text: string) => text.split('\n').filter((line) => line !== '')
  return new Promise((done) => child.once('close', (code) => done({ code, out: lines(out), err: lines(err) })))
}

/** Write `text` at `path` with `mode`, atomically (through a temp file renamed into place). */
export function plant(path: string, text: string, mode = 0o600): void {
  const temp = `${path}.${randomBytes(4).toString('hex')}.plant`
  writeFileSync(temp, text, { mode })
  chmodSync(temp, mode)
  renameSync(temp, path)
}

/** Whether this process can plant a file owned by another user (it runs as root). */
export const CAN_PLANT_AS_ANOTHER = process.getuid?.() === 0

/** Write `text` at `path` as the user `nobody`, mode 0600 (the folder must let them: mode 0777). Root only. */
export function plantAsNobody(path: string, text: string): void {
  execFileSync('runuser', ['-u', 'nobody', '--', 'sh', '-c', 'umask 077 && cat > "$1"', 'sh', path], { input: text })
}
