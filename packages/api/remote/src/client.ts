/**
 * The client end of the remote wire, for Node 20 and browsers alike: only
 * `fetch`, `TextDecoder`, streams and Web Crypto (for the hello), no Node imports.
 */
import { RemoteError } from './error.ts'
import { errorFrom, postOver, unreachable, type FetchLike, type PostLike } from './transport.ts'
import type { Remote, RemoteEventHandler, RemoteEventsOptions } from './types.ts'

export { RemoteError, REMOTE_STATUS, type RemoteErrorCode, type RemoteErrorEnvelope, type RemoteErrorOptions } from './error.ts'
export { postOver, type FetchLike, type PostLike, type PostRequest } from './transport.ts'
export { HELLO_PATH, HELLO_PURPOSE, helloKey, helloProof, isNonce, newNonce, verifyHost, WEB_CRYPTO, type HelloAnswer, type HelloCrypto, type HelloHost, type HostCheck, type HostRefusal } from './hello.ts'
export { greetHost, HostProofError, type GreetOptions, type HostProofCode } from './greet.ts'
export type { Remote, RemoteEvent, RemoteEventHandler, RemoteEventsOptions, RemoteEvents, RemoteMethod, RemoteService, RemoteServices } from './types.ts'

/** Where a client connects. */
export interface RemoteClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:5140` (a trailing slash is ignored). */
  url: string
  /** The bearer token. */
  token: string
  /** The `fetch` to use; the global one by default. */
  fetch?: FetchLike
  /** How method calls POST, instead of `fetch` (a Node tool's `node:http`, say); the event stream still reads through `fetch`. See {@link PostLike}. */
  post?: PostLike
}

/** The shape a client takes when nothing more precise is known: any service, any method. */
export type UntypedServices = Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>

/**
 * Trailing `undefined` arguments are left off, so an omitted optional
 * parameter arrives as absent rather than as `null` (JSON has no
 * `undefined`; one in the middle becomes `null`).
 */
function trimTrailingUndefined(args: unknown[]): unknown[] {
  let end = args.length
  while (end > 0 && args[end - 1] === undefined) end--
  return args.slice(0, end)
}

/** A JSON answer's value, or `undefined` when it is not JSON. */
function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** Property reads that must not look like methods: a proxy answering `then` would be taken for a promise. */
function isInert(prop: string | symbol): prop is symbol {
  return typeof prop === 'symbol' || prop === 'then' || prop === 'toJSON'
}

/**
 * Build a client: `remote.<service>.<method>(...args)` POSTs
 * `{ "args": [...] }` to `/remote/<service>/<method>` and resolves with the
 * answer's `value`, or rejects with the `RemoteError` its envelope describes
 * (`remote/unavailable` when the server cannot be reached).
 * `remote.events(handler, options)` reads the event stream.
 *
 * Type it with the services you call: `createRemote<{ settings: SettingsRemote }>(…)`.
 */
export function createRemote<S extends object = UntypedServices>(options: RemoteClientOptions): Remote<S> {
  const base = options.url.replace(/\/+$/, '')
  const { token } = options
  // Browsers refuse a `fetch` called on anything but the global object, so never call it as a method.
  const fetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const post: PostLike = options.post ?? postOver(fetch)

  const call = async (service: string, method: string, args: unknown[]): Promise<unknown> => {
    let body: string
    try {
      body = JSON.stringify({ args: trimTrailingUndefined(args) })
    } catch (error) {
      throw new RemoteError('remote/bad-request', `the arguments of ${service}.${method} are not JSON: ${(error as Error).message}`)
    }
    let answer: { status: number; text: string | undefined }
    try {
      answer = await post(`${base}/remote/${encodeURIComponent(service)}/${encodeURIComponent(method)}`, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      })
    } catch (error) {
      throw unreachable(base, error)
    }
    const payload = parseJson(answer.text)
    if (answer.status >= 200 && answer.status < 300 && typeof payload === 'object' && payload !== null && 'value' in payload) return (payload as { value: unknown }).value
    throw errorFrom(answer.status, payload)
  }

  // The stream's reader is loaded with the first stream: a client that only calls methods never pays for it.
  const events = async (handler: RemoteEventHandler, eventOptions: RemoteEventsOptions): Promise<void> => (await import('./event-stream.ts')).readEvents({ fetch, base, token }, handler, eventOptions)

  const serviceProxy = (service: string): object => {
    const methods = new Map<string, (...args: unknown[]) => Promise<unknown>>()
    return new Proxy(Object.create(null) as object, {
      get(_target, method) {
        if (isInert(method)) return undefined
        let bound = methods.get(method)
        if (!bound) methods.set(method, (bound = (...args: unknown[]) => call(service, method, args)))
        return bound
      },
      set: () => false,
    })
  }

  const services = new Map<string, object>()
  return new Proxy(Object.create(null) as object, {
    get(_target, service) {
      if (isInert(service)) return undefined
      if (service === 'events') return events
      let proxy = services.get(service)
      if (!proxy) services.set(service, (proxy = serviceProxy(service)))
      return proxy
    },
    set: () => false,
  }) as Remote<S>
}
