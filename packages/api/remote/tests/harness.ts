import { Context, Logger, type Fiber } from 'cordis'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RemoteServer } from '../src/server.ts'
import type { RemoteExposeOptions, RemoteHandlers } from '../src/types.ts'

export { deferred } from 'dsh-testing'

/** One captured log line, formatted as an exporter would print it. */
export interface LogLine {
  type: string
  text: string
}

/** A live server on 127.0.0.1 with a temp home and captured logs. */
export interface LiveServer {
  root: Context
  fiber: Fiber
  server: RemoteServer
  url: string
  port: number
  token: string
  home: string
  logs: LogLine[]
  /** Expose `handlers` (with `options`) from a fresh plugin; disposing its fiber withdraws them. */
  expose(service: string, handlers: RemoteHandlers, options?: RemoteExposeOptions): Promise<Fiber>
  /** Stop the server (idempotent). */
  stop(): Promise<void>
  /** Stop the server and remove the home. */
  cleanup(): Promise<void>
}

/** A fresh temp directory (realpath'd); remove it with `rm(dir, { recursive: true, force: true })`. */
export async function tempDir(prefix = 'dsh-remote-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)))
}

/** Capture every log line of `root`, at every level, formatted as the console exporter would. */
export function captureLogs(root: Context): LogLine[] {
  const logs: LogLine[] = []
  const exporter = {
    colors: false as const,
    levels: { default: 3 },
    export: (message: Parameters<typeof Logger.format>[1]) => logs.push({ type: message.type, text: Logger.format(exporter, message) }),
  }
  root.logger.exporter(exporter)
  return logs
}

/** The server's start line: what it serves (`page and API`, or `API` alone), then its URL with the token. */
export const START_LINE = /^(page and API|API): (\S+)\/#token=(\S+)$/

/**
 * Plug `RemoteServer` into a fresh root and wait until it is listening.
 * `home` defaults to a fresh temp dir (removed by `cleanup`).
 */
export async function startServer(config: RemoteServer.Options = {}, root = new Context(), logs = captureLogs(root)): Promise<LiveServer> {
  const ownHome = config.home === undefined ? await tempDir() : undefined
  const home = config.home ?? ownHome!
  const fiber = root.plugin(RemoteServer, { port: 0, ...config, home })
  await fiber
  let server!: RemoteServer
  await root.inject(['remoteServer'], (ctx) => {
    server = ctx.remoteServer
  })
  const line = logs.map((log) => START_LINE.exec(log.text)).findLast(Boolean)
  if (!line) throw new Error(`the server did not print its start line: ${JSON.stringify(logs)}`)
  const url = server.url
  let stopped: Promise<void> | undefined
  const stop = () => (stopped ??= fiber.dispose())
  return {
    root,
    fiber,
    server,
    url,
    port: Number(new URL(url).port),
    token: line[3]!,
    home,
    logs,
    async expose(service, handlers, options) {
      const plugin = root.plugin({
        inject: ['remoteServer'],
        apply(ctx: Context) {
          ctx.remoteServer.expose(service, handlers, options)
        },
      })
      await plugin
      return plugin
    },
    stop,
    async cleanup() {
      await stop()
      if (ownHome) await rm(ownHome, { recursive: true, force: true })
    },
  }
}

/** A raw answer. */
export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Options of {@link raw}. */
export interface RawOptions {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  /** Leave out the default `Host` header (node:http adds one otherwise). */
  noHost?: boolean
}

/**
 * A request through `node:http`, which (unlike `fetch`) lets a test send any
 * `Host` and `Origin` and a raw, unnormalized path.
 */
export function raw(server: { port: number }, path: string, options: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        method: options.method ?? 'GET',
        // An explicit length: Node would send a DELETE or OPTIONS body without any framing.
        headers: { ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }), ...options.headers },
        setHost: !options.noHost && !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'host'),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
        response.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(options.body)
  })
}

/** Headers of a well-formed call with the right token. */
export function authorized(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra }
}

/** Wait until `check` holds, polling every few milliseconds. */
export async function until(check: () => boolean, timeoutMs = 5000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

