import type { RemoteErrorStatuses } from './error.ts'

/** What a handler learns about the call besides its arguments. */
export interface RemoteRequest {
  /** Aborted when the client goes away (or the server stops) before the call settles. */
  signal: AbortSignal
}

/** One exposed method: it receives the decoded argument array. Throw `RemoteError` to refuse. */
export type RemoteHandler = (args: unknown[], request: RemoteRequest) => unknown

/** The methods a service exposes, by name. Only these are reachable on the wire. */
export type RemoteHandlers = Record<string, RemoteHandler>

/** Options of `remoteServer.expose(service, handlers, options)`. */
export interface RemoteExposeOptions {
  /**
   * The service's own error codes and the HTTP status each answers with, e.g.
   * `{ 'echo/empty': 422 }`. dsh-remote's own codes (`remote/*`,
   * `internal`) cannot be re-mapped; a code nobody registered answers 500.
   */
  errors?: RemoteErrorStatuses
}

/** One event as the stream delivers it. */
export interface RemoteEvent {
  /** Sequence number, increasing per server. */
  id: number
  /** The event name, e.g. `settings/document-updated`. */
  event: string
  data: unknown
}

/**
 * The parameters a client passes: the method's own, less a trailing
 * `AbortSignal` (required or optional), which the server supplies. An empty
 * list is settled first, because `[]` also matches the optional-signal pattern
 * with `Rest` inferred as `unknown[]`, which would let a zero-parameter method
 * take any arguments.
 */
type StripSignal<A extends unknown[]> = A extends []
  ? []
  : A extends [...infer Rest, AbortSignal]
    ? Rest
    : A extends [...infer Rest, (AbortSignal | undefined)?]
      ? Rest
      : A

/** The client-side shape of one method: the server supplies the `AbortSignal`, every call is async. */
export type RemoteMethod<F> = F extends (...args: infer A) => infer R ? (...args: StripSignal<A>) => Promise<Awaited<R>> : never

/** The client-side shape of a service's exposed methods `K`, derived from the service's class. */
export type RemoteService<T, K extends keyof T> = { [M in K]: RemoteMethod<T[M]> }

/**
 * The services a client-side cordis app reaches through `ctx.remote`, by name.
 * Empty here; a package that exposes a service adds its client type:
 * `declare module 'dsh-remote' { interface RemoteServices { settings: SettingsRemote } }`.
 */
export interface RemoteServices {}

/** Called with each event the stream delivers. */
export type RemoteEventHandler = (event: RemoteEvent) => void

/** Options of `remote.events(handler, options)`. */
export interface RemoteEventsOptions {
  /** Aborting it closes the stream and resolves the `events` promise. */
  signal: AbortSignal
  /** Called after every successful connection, the first one included: from now on no event is missed. */
  connected?: () => void
  /**
   * Called after each successful reconnection. Events sent while the stream
   * was down are lost (there is no replay), so refetch what you show here.
   */
  reconnected?: () => void
  /**
   * Called with every failure the stream recovers from: a dropped or refused
   * connection (a `RemoteError`, retried with backoff) and an exception thrown
   * by `handler`. Without it, a throwing handler rejects the `events` promise.
   */
  error?: (error: unknown) => void
}

/** The stream half of a client: `remote.events(handler, options)`. */
export interface RemoteEvents {
  /**
   * Read the server's event stream until `options.signal` aborts, reconnecting
   * with backoff (250 ms doubling to 5 s) when it drops.
   * @throws {RemoteError} when the server refuses the stream for good (a 4xx: wrong token, foreign host).
   */
  events(handler: RemoteEventHandler, options: RemoteEventsOptions): Promise<void>
}

/** A client: `remote.<service>.<method>(...args)` per service of `S`, plus `remote.events`. */
export type Remote<S = RemoteServices> = { readonly [K in Exclude<keyof S, 'events'>]: S[K] } & RemoteEvents
