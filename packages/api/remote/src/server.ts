import { Service, type Context } from 'cordis'
import { expandHome, resolveHome } from 'dsh-settings-home'
import { resolve } from 'node:path'
import Schema from 'schemastery'
import { PING_INTERVAL_MS } from './event-hub.ts'
import { describeRange, portRange } from './ports.ts'
import { loadToken } from './token.ts'
import { HOST_FILE, writeHostRecord } from './host-record.ts'
import type { RemoteExposeOptions, RemoteHandlers } from './types.ts'
import { RemoteWire } from './wire.ts'

declare module 'cordis' {
  interface Context {
    remoteServer: RemoteServer
  }
}

/** A port as a number, or as the digit string a `${DSH_PORT:-5140}` interpolation produces. */
const Port: Schema<number | string, number> = Schema.union([
  Schema.natural().max(65535),
  Schema.transform(Schema.string().pattern(/^\d{1,5}$/), (text) => Number(text)),
])

/**
 * The deployment file the host runs, from the `deployment` property a loader
 * puts on the root context (`{ file }`, read by its shape: this package does
 * not depend on the loader); `undefined` when there is none.
 */
function deploymentFile(ctx: Context): string | undefined {
  const facts: unknown = ctx.get('deployment')
  const file = typeof facts === 'object' && facts !== null ? (facts as { file?: unknown }).file : undefined
  return typeof file === 'string' && file !== '' ? file : undefined
}

/**
 * The remote API's server, `ctx.remoteServer`: an HTTP endpoint on which
 * plugins expose services to other processes and browser pages, and an event
 * stream they broadcast on. Every request must name this server's host and
 * carry its bearer token; see the package README for the protocol.
 *
 * The service becomes available once the port is bound, so
 * `ctx.inject(['remoteServer'], …)` can read `ctx.remoteServer.url` at once.
 * Disposing it closes the server, ends every stream and aborts running calls.
 */
export class RemoteServer extends Service {
  /** The plugin's config schema; cordis validates the `cordis.yml` entry against it. */
  static readonly Config: Schema<RemoteServer.Options, RemoteServer.Config> = Schema.object({
    host: Schema.string().default('127.0.0.1').description('Address to bind. Keep the loopback default unless a proxy fronts it.'),
    port: Port.default(5140).description('First port to try; 0 picks any free one.'),
    maxPort: Port.description('Last port to try when the ones before it are in use; defaults to port + 9.'),
    home: Schema.string().description('Home for the token file (remote-token); defaults to $DSH_HOME, else ~/.dsh.'),
    token: Schema.string().role('secret').description('Bearer token; when unset, the token file is read or created.'),
    static: Schema.string().description('Directory of page assets served at / without a token.'),
    allowedHosts: Schema.array(Schema.string()).default([]).description('Extra Host names to answer to (name, or name:port).'),
    pingInterval: Schema.natural().min(1).default(PING_INTERVAL_MS).description('Milliseconds between ": ping" comments on event streams.'),
  }) as Schema<RemoteServer.Options, RemoteServer.Config>

  /** The HTTP machinery; an ordinary field, since calls to the service go through cordis's proxy. */
  private readonly wire: RemoteWire
  /** Whether a page is served at `/` besides the API. */
  private readonly serves: boolean
  private readonly home: string
  private readonly configuredToken: string | undefined
  /** The service's own context (inside a method `this.ctx` is the caller's). */
  private readonly own: Context
  /** The token in use once the server listens, for the line that announces an offered page. */
  private token: string | undefined

  constructor(ctx: Context, config: RemoteServer.Options = {}) {
    super(ctx, 'remoteServer')
    this.own = ctx
    this.home = resolveHome(config.home)
    this.configuredToken = config.token
    this.serves = config.static !== undefined
    const host = config.host ?? '127.0.0.1'
    const port = typeof config.port === 'string' ? Number(config.port) : (config.port ?? 5140)
    const maxPort = typeof config.maxPort === 'string' ? Number(config.maxPort) : config.maxPort
    this.wire = new RemoteWire({
      host,
      ports: portRange(host, port, maxPort),
      allowedHosts: config.allowedHosts ?? [],
      ...(config.static === undefined ? {} : { static: resolve(expandHome(config.static)) }),
      pingIntervalMs: config.pingInterval ?? PING_INTERVAL_MS,
      logger: ctx.logger('remote'),
    })
  }

  /** The bound base URL, e.g. `http://127.0.0.1:5140` (no trailing slash). */
  get url(): string {
    return this.wire.url
  }

  /** How many event streams are open right now (for diagnostics and tests). */
  get streams(): number {
    return this.wire.streams
  }

  /**
   * Read or create the token, bind the first free port of the range and print
   * the start line, which says what this server serves (its page when it has
   * `static`, and the remote API) and where, with the token in the fragment;
   * which services it carries is up to the plugins that expose them. Ports of
   * the range found in use are named in a line before it. The disposer stops the server.
   * @throws {RemotePortError} `REMOTE_PORTS_BUSY` when every port of the range is in use.
   */
  async [Service.init](): Promise<() => Promise<void>> {
    const logger = this.own.logger('remote')
    const { token, narrowed, file } = await loadToken(this.configuredToken, this.home)
    if (narrowed) logger.warn('remote: %s was readable by others; its mode is now 0600', file)
    const deployment = deploymentFile(this.own)
    const { url, busy } = await this.wire.listen(token, { deployment })
    this.token = token
    if (busy.length) logger.info(`remote: ${busy.length === 1 ? 'port %s is' : 'ports %s are'} in use; took the next free one`, describeRange({ first: busy[0]!, last: busy.at(-1)! }))
    logger.info(`${this.serves ? 'page and API' : 'API'}: %s`, `${url}/#token=${token}`)
    // A record that cannot be written costs only the way commands find this host: they go through the provider instead.
    const removeRecord = await writeHostRecord(this.home, url, deployment).catch((error: unknown) => {
      logger.warn('remote: cannot write %s in %s, so commands will not find this host:', HOST_FILE, this.home, error)
      return async () => {}
    })
    return async () => {
      await removeRecord()
      await this.wire.close()
    }
  }

  /**
   * Put a service on the wire: `POST /remote/<service>/<method>` calls
   * `handlers[method](args, { signal })` with `this` set to `handlers`. The
   * exposure is an effect on the caller's fiber: disposing the calling plugin
   * withdraws the service (and aborts its running calls). Only the handlers'
   * own enumerable methods at this moment are reachable.
   * @param service - a letter, then letters, digits, `_` or `-` (`events` and `then` are reserved).
   * @param options - `errors`: the service's own error codes and the HTTP status each answers with,
   *   used for a `RemoteError` its handlers throw without a `status` of its own.
   * @returns a function that withdraws the service early.
   * @throws {RemoteExposureError} for a bad name, handler or error code, or a name that is exposed already.
   */
  expose(service: string, handlers: RemoteHandlers, options: RemoteExposeOptions = {}): () => void {
    const wire = this.wire
    const dispose = this.ctx.effect(() => {
      const exposure = wire.exposures.add(service, handlers, options.errors)
      return () => wire.exposures.remove(exposure)
    }, `remoteServer.expose(${JSON.stringify(service)})`)
    return () => void dispose()
  }

  /**
   * Offer a page to serve at `/` (a directory of built assets, such as the
   * settings page's): served while the calling plugin lives, unless this
   * server has `static` configured or another plugin's page is served
   * already. The offer is an effect on the caller's fiber.
   * @returns whether the page is served.
   */
  offerPage(dir: string): boolean {
    const wire = this.wire
    let served = false
    this.ctx.effect(() => {
      const withdraw = wire.offerPage(resolve(dir))
      served = withdraw !== undefined
      return () => withdraw?.()
    }, 'remoteServer.offerPage()')
    // The page's address with the token, as the start line gives it when the page is configured.
    if (served) this.own.logger('remote').info('page and API: %s (the page from %s)', `${this.wire.url}/#token=${this.token}`, dir)
    return served
  }

  /**
   * Send one event to every open stream, as `id: <seq>`, `event: <event>`,
   * `data: <JSON of payload>`. Streams opened later never see it. The payload
   * leaves the process: it must not hold a secret.
   * @throws {TypeError} for an event name with a line break (or empty), or a payload that is not JSON.
   */
  broadcast(event: string, payload: unknown): void {
    this.wire.broadcast(event, payload)
  }
}

export namespace RemoteServer {
  /** The configuration as written (a port may be a digit string). */
  export interface Options {
    /** Address to bind; `127.0.0.1` by default. */
    host?: string
    /** First port to try; `5140` by default, `0` picks any free one. */
    port?: number | string
    /** Last port to try when the ones before it are in use; `port + 9` by default (ignored with `port` 0). */
    maxPort?: number | string
    /** Home of the token file; `resolveHome` rules (`$DSH_HOME`, else `~/.dsh`). */
    home?: string
    /** The bearer token; when unset, `<home>/remote-token` is read or created. */
    token?: string
    /** Directory of page assets, served at `/` without a token. */
    static?: string
    /** Extra `Host` values to accept: `name` (with or without `:<port>`) or `name:port`. */
    allowedHosts?: string[]
    /** Milliseconds between `: ping` comments on event streams; 15 000 by default. */
    pingInterval?: number
  }

  /** The configuration after the schema's defaults. */
  export interface Config extends Options {
    host: string
    port: number
    allowedHosts: string[]
    pingInterval: number
  }
}

export default RemoteServer
