import type { ServerResponse } from 'node:http'

/** How often every open stream gets a `: ping` comment, so proxies and clients see it is alive. */
export const PING_INTERVAL_MS = 15_000

/**
 * A stream whose unsent output passes this many bytes is dropped: a client
 * that stopped reading must not grow the server's memory. It reconnects and
 * refetches what it shows, as after any drop.
 */
const MAX_BACKLOG_BYTES = 1024 * 1024

/** An event name goes on one `event:` line, so it must not break the framing. */
const EVENT_NAME = /^[^\r\n:][^\r\n]{0,199}$/

/**
 * The open Server-Sent Events streams of one server. Each broadcast is one
 * frame (`id:`, `event:`, `data:`) written to every stream; there is no
 * replay, so a stream sees only what is broadcast while it is open.
 */
export class EventHub {
  private readonly streams = new Set<ServerResponse>()
  private sequence = 0
  /** Runs only while a stream is open. */
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(private readonly pingIntervalMs = PING_INTERVAL_MS) {}

  /** How many streams are open. */
  get size(): number {
    return this.streams.size
  }

  /** Start a stream on `response` (the caller has set the common headers) and keep it until it closes. */
  open(response: ServerResponse): void {
    response.statusCode = 200
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8')
    response.setHeader('Connection', 'keep-alive')
    // Reverse proxies that buffer would hold events back.
    response.setHeader('X-Accel-Buffering', 'no')
    response.flushHeaders()
    this.streams.add(response)
    response.on('close', () => this.drop(response))
    if (!this.timer) {
      this.timer = setInterval(() => this.writeAll(': ping\n\n'), this.pingIntervalMs)
      // The pings must not keep a process alive that has nothing else to do.
      this.timer.unref()
    }
  }

  /**
   * Send one event to every open stream.
   * @throws {TypeError} for an event name that is empty, has a line break or starts with `:`,
   *   or a payload that `JSON.stringify` cannot encode.
   */
  broadcast(event: string, payload: unknown): void {
    if (typeof event !== 'string' || !EVENT_NAME.test(event)) {
      throw new TypeError('remote: an event name must be 1-200 characters without line breaks, not starting with ":"')
    }
    let data: string
    try {
      data = JSON.stringify(payload === undefined ? null : payload)
    } catch (error) {
      throw new TypeError(`remote: the payload of ${event} is not JSON: ${(error as Error).message}`)
    }
    if (data === undefined) throw new TypeError(`remote: the payload of ${event} is not JSON`)
    // JSON.stringify escapes every line break, so `data` is one line.
    this.writeAll(`id: ${++this.sequence}\nevent: ${event}\ndata: ${data}\n\n`)
  }

  /** End every stream cleanly (so `curl` exits 0) and stop pinging. */
  close(): void {
    for (const stream of [...this.streams]) {
      this.drop(stream)
      stream.end()
    }
  }

  private drop(stream: ServerResponse): void {
    this.streams.delete(stream)
    if (this.streams.size === 0 && this.timer) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }

  private writeAll(frame: string): void {
    for (const stream of [...this.streams]) {
      if (stream.writableLength > MAX_BACKLOG_BYTES) {
        this.drop(stream)
        stream.destroy()
        continue
      }
      stream.write(frame)
    }
  }
}
