import type { Logger } from 'cordis'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { bearerCheck } from './auth.ts'
import { decodeArgs, readBody } from './body.ts'
import { hasKnownStatus, RemoteError } from './error.ts'
import { EventHub } from './event-hub.ts'
import { Exposures, type Exposure } from './exposures.ts'
import { HELLO_PATH, helloKey, type HelloHost } from './hello.ts'
import { answerHello } from './hello-route.ts'
import { HostPolicy } from './hosts.ts'
import { listenInRange, type PortRange } from './ports.ts'
import { API_POLICY, PAGE_POLICY, sendError, sendJson, setCommonHeaders } from './respond.ts'
import { StaticAssets } from './static.ts'
import type { RemoteRequest } from './types.ts'

/** What a wire needs to listen. */
export interface WireOptions {
  host: string
  /** The ports to try, in order (`{ first: 0, last: 0 }`: any free port). */
  ports: PortRange
  allowedHosts: readonly string[]
  /** The page assets directory, if any. */
  static?: string
  pingIntervalMs: number
  logger: Logger
}

/** A call in flight: its abort switch and the response it will answer. */
interface Call {
  controller: AbortController
  response: ServerResponse
}

/** How long a stopping server waits for connections to finish their last response before cutting them. */
const CLOSE_GRACE_MS = 1000

/** Wildcard addresses: the server is reachable on loopback, so its URL names 127.0.0.1. */
const WILDCARDS = new Set(['0.0.0.0', '::', ''])

/**
 * The HTTP end of a remote server: one `node:http` server that checks every
 * request (host, origin, token, route, size, shape) before anything reaches
 * an exposed service, dispatches calls, keeps the event streams and serves
 * the page assets.
 */
export class RemoteWire {
  readonly exposures = new Exposures()
  private readonly calls = new Set<Call>()
  /** The configured page assets (`static`), which no plugin's page replaces. */
  private readonly configured: StaticAssets | undefined
  /** Page assets a plugin offered (see {@link RemoteWire.offerPage}), served when nothing is configured. */
  private offered: StaticAssets | undefined
  private server: Server | undefined
  private readonly hub: EventHub
  private policy: HostPolicy | undefined
  /** Whether a request's `Authorization` header carries this server's token; nothing passes before `listen`. */
  private authorized: (header: string | undefined) => boolean = () => false
  /** The token as the hello's HMAC key, and the deployment file the hello names; set by `listen`. */
  private hello: { key: CryptoKey; deployment: string | undefined } | undefined
  private base: string | undefined
  private closing = false
  /**
   * Every open connection and how many of its requests are unanswered. A
   * stopping server ends the connections with none at once: Node's own
   * `closeIdleConnections` leaves alone a connection that never sent a
   * request (clients open spare ones), and `close` would wait for it.
   */
  private readonly sockets = new Map<Socket, number>()

  constructor(private readonly options: WireOptions) {
    this.configured = options.static === undefined ? undefined : new StaticAssets(options.static)
    this.hub = new EventHub(options.pingIntervalMs)
  }

  /** The bound base URL, e.g. `http://127.0.0.1:5140`. */
  get url(): string {
    if (this.base === undefined) throw new Error('remote: the server is not listening')
    return this.base
  }

  /** How many event streams are open. */
  get streams(): number {
    return this.hub.size
  }

  /** Send one event to every open stream. */
  broadcast(event: string, payload: unknown): void {
    this.hub.broadcast(event, payload)
  }

  /**
   * Bind the server to the first free port of its range and start accepting
   * requests checked against `token`; the hello names `deployment` (the
   * realpath of the deployment file the host runs) when there is one.
   * @returns the bound base URL, and the ports of the range that were in use before it.
   * @throws {RemotePortError} `REMOTE_PORTS_BUSY` when every port of the range is in use;
   *   any other listen error (`EACCES`…) as it is.
   */
  async listen(token: string, { deployment }: { deployment?: string | undefined } = {}): Promise<{ url: string; busy: number[] }> {
    this.authorized = bearerCheck(token)
    this.hello = { key: await helloKey(token), deployment }
    // A missing Host is ours to refuse (403, like a foreign one), not Node's (a bare 400).
    const options = { requestTimeout: 30_000, headersTimeout: 10_000, requireHostHeader: false }
    const server = createServer(options, (request, response) => void this.handle(request, response))
    server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, 0)
      socket.on('close', () => this.sockets.delete(socket))
    })
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket))
    // The policy is set in the microtasks after binding, before any connection's data can be read.
    const { address, busy } = await listenInRange(server, this.options.host, this.options.ports)
    this.bound(address)
    this.server = server
    if (this.configured && !(await this.configured.exists())) {
      this.options.logger.warn('remote: the static directory %s does not exist; every page answers 404', this.options.static)
    }
    return { url: this.url, busy }
  }

  private bound({ address, port }: AddressInfo): void {
    const host = WILDCARDS.has(address) || address === '127.0.0.1' ? '127.0.0.1' : address.includes(':') ? `[${address}]` : address
    // A server bound to a specific non-loopback address answers to it as well, so the URL it prints works.
    const extra = host === '127.0.0.1' || host === '[::1]' ? this.options.allowedHosts : [...this.options.allowedHosts, host]
    this.policy = new HostPolicy(port, extra)
    this.base = `http://${host}:${port}`
  }

  /**
   * Stop: refuse new requests, abort every running call (answering it 503
   * `remote/unavailable`), end every stream cleanly, close the listener and
   * the connections.
   */
  async close(): Promise<void> {
    this.closing = true
    const stopping = new RemoteError('remote/unavailable', 'the server is stopping')
    for (const call of this.calls) {
      call.controller.abort(stopping)
      sendError(call.response, stopping)
    }
    this.calls.clear()
    this.hub.close()
    const server = this.server
    if (!server) return
    await new Promise<void>((resolve) => {
      const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS)
      server.close(() => {
        clearTimeout(cut)
        resolve()
      })
      for (const [socket, pending] of this.sockets) if (pending === 0) socket.end()
    })
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    setCommonHeaders(response)
    const socket = request.socket
    this.sockets.set(socket, (this.sockets.get(socket) ?? 0) + 1)
    response.on('close', () => {
      // The connection may be gone already (then it is off the map, and must stay off).
      if (!this.sockets.has(socket)) return
      const pending = this.sockets.get(socket)! - 1
      this.sockets.set(socket, pending)
      // While stopping, a connection that just sent its last answer has nothing left to do.
      if (this.closing && pending === 0) socket.end()
    })
    try {
      await this.route(request, response)
    } catch (error) {
      if (!(error instanceof RemoteError)) this.options.logger.warn('remote: a request failed: %s', describeError(error))
      if (error instanceof RemoteError && error.code === 'remote/too-large') {
        // The rest of the body is never read; closing the connection discards it.
        response.setHeader('Connection', 'close')
      }
      sendError(response, error)
    }
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.closing) throw new RemoteError('remote/unavailable', 'the server is stopping')
    // `listen` sets the policy before the first request; a request without one is refused outright.
    const policy = this.policy
    if (!policy) throw new RemoteError('remote/unavailable', 'the server is starting')
    if (!policy.allowsHost(request.headers.host)) throw new RemoteError('remote/forbidden', 'this server does not answer to that Host')
    if (!policy.allowsOrigin(request.headers.origin)) throw new RemoteError('remote/forbidden', 'requests from that Origin are refused')
    const target = request.url ?? ''
    if (!target.startsWith('/')) throw new RemoteError('remote/bad-request', 'the request target must be a path')
    const path = target.split('?', 1)[0]!
    if (path === HELLO_PATH) return this.greet(request, response)
    if (path === '/remote' || path.startsWith('/remote/')) return this.remote(request, response, path)
    return this.page(request, response, path)
  }

  /** `POST /remote/hello`, without a token: this server proves it holds it (see `hello.ts`). */
  private async greet(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const hello = this.hello
    if (!hello) throw new RemoteError('remote/unavailable', 'the server is starting')
    const host: HelloHost = { url: this.url, pid: process.pid, ...(hello.deployment === undefined ? {} : { deployment: hello.deployment }) }
    await answerHello(request, response, hello.key, host)
  }

  /** Everything under `/remote/`: the token first, then the route. */
  private async remote(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    if (!this.authorized(request.headers.authorization)) {
      response.setHeader('WWW-Authenticate', 'Bearer')
      throw new RemoteError('remote/unauthorized', 'a valid "Authorization: Bearer <token>" header is required')
    }
    if (path === '/remote/events') {
      if (request.method !== 'GET') throw methodNotAllowed(response, 'GET')
      this.hub.open(response)
      return
    }
    const segments = path.slice('/remote/'.length).split('/')
    if (segments.length !== 2) throw new RemoteError('remote/not-found', 'no such route: use POST /remote/<service>/<method> or GET /remote/events')
    if (request.method !== 'POST') throw methodNotAllowed(response, 'POST')
    const [service, method] = segments.map(decodeSegment) as [string, string]
    if (!this.exposures.get(service)?.handlers.has(method)) throw notFound()
    const args = decodeArgs(await readBody(request))
    // The body took time to arrive: the service may have been withdrawn meanwhile.
    const exposure = this.exposures.get(service)
    if (!exposure?.handlers.has(method)) throw notFound()
    await this.call(exposure, method, args, response)
  }

  private async call(exposure: Exposure, method: string, args: unknown[], response: ServerResponse): Promise<void> {
    const controller = new AbortController()
    const call: Call = { controller, response }
    this.calls.add(call)
    exposure.calls.add(controller)
    response.on('close', () => {
      if (!response.writableFinished) controller.abort(new RemoteError('remote/unavailable', 'the client went away'))
    })
    const label = `${exposure.service}.${method}`
    try {
      const value: unknown = await exposure.handlers.get(method)!.call(exposure.receiver, args, lazySignal(controller))
      let body: string
      try {
        body = JSON.stringify({ value: value === undefined ? null : value })
      } catch (error) {
        this.options.logger.warn(`remote: ${label} returned a value that is not JSON: %s`, describeError(error))
        sendError(response, undefined)
        return
      }
      sendJson(response, 200, body)
    } catch (error) {
      if (!(error instanceof RemoteError) && controller.signal.aborted) {
        // The handler stopped because we asked it to (client gone, service withdrawn, server stopping):
        // that is no fault of its own, and the abort reason says what happened.
        sendError(response, controller.signal.reason, exposure.errors)
        return
      }
      if (!(error instanceof RemoteError)) this.options.logger.warn(`remote: ${label} failed: %s`, describeError(error))
      else if (!hasKnownStatus(error, exposure.errors)) {
        // A forgotten registration would otherwise pass as a server fault without a word.
        this.options.logger.warn(`remote: ${label} failed with the code ${error.code}, which ${exposure.service} did not register; it answers 500`)
      }
      if (!sendError(response, error, exposure.errors)) this.options.logger.warn(`remote: ${label} failed with details that are not JSON`)
    } finally {
      this.calls.delete(call)
      exposure.calls.delete(controller)
    }
  }

  /** The page assets served now: the configured ones, else the offered ones. */
  private get assets(): StaticAssets | undefined {
    return this.configured ?? this.offered
  }

  /** Whether a page is configured (`static`): an offered page is then never served. */
  get pageConfigured(): boolean {
    return this.configured !== undefined
  }

  /**
   * Serve `dir` at `/` when no `static` is configured and no other page is
   * offered; answers a function that stops serving it, or `undefined` when
   * it is not served (the configured page, or an earlier offer, wins).
   */
  offerPage(dir: string): (() => void) | undefined {
    if (this.configured || this.offered) return undefined
    const offered = new StaticAssets(dir)
    this.offered = offered
    return () => {
      if (this.offered === offered) this.offered = undefined
    }
  }

  /** Everything outside `/remote/`: the page assets, when there are any. */
  private async page(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    // The page holds the token once opened: it may load only its own assets, and never inside a frame.
    response.setHeader('Content-Security-Policy', PAGE_POLICY)
    const assets = this.assets
    if (!assets) throw new RemoteError('remote/not-found', 'this server serves no page')
    if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(response, 'GET, HEAD')
    const found = await assets.lookup(path)
    if (found.kind === 'refused') throw new RemoteError('remote/forbidden', 'that path is refused')
    if (found.kind === 'missing') throw new RemoteError('remote/not-found', 'no such page asset')
    await assets.send(found, response, request.method === 'HEAD')
  }
}

/**
 * A call's request facts whose `signal` is made only when a handler reads it:
 * Node builds an `AbortSignal` lazily, and most handlers never look, so the
 * call pays for one only when it is used (or aborted).
 */
function lazySignal(controller: AbortController): RemoteRequest {
  return {
    get signal() {
      return controller.signal
    },
  }
}

function methodNotAllowed(response: ServerResponse, allow: string): RemoteError {
  response.setHeader('Allow', allow)
  return new RemoteError('remote/method-not-allowed', `this route takes ${allow}`)
}

/** The message names neither: a caller already knows what it asked for, and the path may hold anything. */
function notFound(): RemoteError {
  return new RemoteError('remote/not-found', 'no such service or method')
}

/** A path segment, percent-decoded; one that does not decode matches no name. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return ''
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error)
}

/**
 * Answer a request Node could not parse (bad framing, headers too large, a
 * timeout) with the same security headers as every other response.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, reason] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request']
  const body = JSON.stringify({ error: { code: 'remote/bad-request', message: reason.toLowerCase() } })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n` +
      `Content-Security-Policy: ${API_POLICY}\r\nConnection: close\r\n\r\n${body}`,
  )
}
