import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { RemoteError } from './error.ts'
import type { RemoteEventHandler, RemoteEventsOptions } from './types.ts'
import { errorFromResponse, unreachable, type FetchLike } from './transport.ts'

/** The first wait before reconnecting; it doubles after each failed attempt. */
export const RECONNECT_INITIAL_MS = 250
/** The longest wait between reconnection attempts. */
export const RECONNECT_MAX_MS = 5000

/** A refusal that retrying cannot fix (wrong token, foreign host, no such route); 408 and 429 are worth retrying. */
function isPermanent(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429
}

/**
 * Wait `ms`, or less if `signal` aborts; never rejects. Not `node:timers/promises`:
 * the settings page loads this module in the browser (see `client.ts`).
 */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/** A failure that ends the subscription: a permanent refusal, or a handler failure nobody asked to hear about. */
class Stop {
  constructor(readonly error: unknown) {}
}

/** Where and how to read the stream. */
export interface StreamTarget {
  fetch: FetchLike
  /** The base URL, without a trailing slash. */
  base: string
  token: string
}

/**
 * Read `GET /remote/events` with `fetch` (so the bearer header rides along,
 * which `EventSource` cannot do) until `options.signal` aborts, reconnecting
 * with backoff whenever the stream drops or cannot be opened.
 * @throws {RemoteError} for a permanent refusal (4xx), or whatever `handler` threw when `options.error` is absent.
 */
export async function readEvents(target: StreamTarget, handler: RemoteEventHandler, options: RemoteEventsOptions): Promise<void> {
  const { signal } = options
  let delay = RECONNECT_INITIAL_MS
  let connections = 0
  const report = (error: unknown) => options.error?.(error)
  while (!signal.aborted) {
    // One controller per connection, so a failing handler can close it without the caller's signal.
    const connection = new AbortController()
    const abort = () => connection.abort(signal.reason)
    signal.addEventListener('abort', abort, { once: true })
    try {
      let response: Response
      try {
        response = await target.fetch(`${target.base}/remote/events`, {
          headers: { authorization: `Bearer ${target.token}`, accept: 'text/event-stream' },
          signal: connection.signal,
        })
      } catch (error) {
        if (signal.aborted) return
        throw unreachable(target.base, error)
      }
      if (!response.ok || !response.body) {
        const error = await errorFromResponse(response)
        if (isPermanent(response.status)) throw new Stop(error)
        report(error)
      } else {
        connections++
        delay = RECONNECT_INITIAL_MS
        options.connected?.()
        if (connections > 1) options.reconnected?.()
        await pump(response.body, handler, options)
        if (signal.aborted) return
        report(new RemoteError('remote/unavailable', 'the event stream ended'))
      }
    } catch (error) {
      if (error instanceof Stop) throw error.error
      if (signal.aborted) return
      report(error instanceof RemoteError ? error : unreachable(target.base, error))
    } finally {
      signal.removeEventListener('abort', abort)
      connection.abort()
    }
    await sleep(delay, signal)
    delay = Math.min(delay * 2, RECONNECT_MAX_MS)
  }
}

/**
 * Read one connection's body to its end, dispatching every complete frame.
 * Each connection gets a fresh parser, so half a frame left by a dropped
 * connection is never completed by the next one.
 */
async function pump(body: ReadableStream<Uint8Array>, handler: RemoteEventHandler, options: RemoteEventsOptions): Promise<void> {
  const deliver = (message: EventSourceMessage) => {
    const event = message.event ?? 'message'
    let data: unknown
    try {
      data = JSON.parse(message.data)
    } catch {
      options.error?.(new RemoteError('remote/bad-request', `the event ${event} carried data that is not JSON`))
      return
    }
    try {
      handler({ id: Number(message.id), event, data })
    } catch (error) {
      // Thrown out through the parser's `feed` and this loop: the subscription ends.
      if (!options.error) throw new Stop(error)
      options.error(error)
    }
  }
  const parser = createParser({ onEvent: deliver })
  const reader = body.getReader()
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      parser.feed(decoder.decode(value, { stream: true }))
    }
  } finally {
    // Cancelling (not just releasing) tells fetch to drop the connection when a handler failure stops us early.
    await reader.cancel().catch(() => {})
  }
}
