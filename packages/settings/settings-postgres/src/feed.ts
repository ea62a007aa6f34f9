import pg from 'pg'

/** How long the first reconnect waits; each failure doubles it up to {@link MAX_BACKOFF_MS}. */
export const MIN_BACKOFF_MS = 100
export const MAX_BACKOFF_MS = 5_000

/** The next wait after a failed attempt. */
export function nextBackoff(previous: number): number {
  return Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, previous * 2))
}

/** What the feed needs from its owner. */
export interface ChangeFeedOptions {
  connection: pg.ClientConfig
  channel: string
  /** The document this host follows; notifications for other documents on the channel are ignored. */
  document: string
  /** Called when the store may hold something newer: a notification, a reconnect, the periodic re-check. */
  hint(reason: 'notify' | 'reconnect' | 'recheck'): void
  /** Period of the re-check; 0 turns it off. */
  recheckMs: number
  /** Told about a lost or failed connection (for a warning); never about a notification's content. */
  failed(error: unknown): void
}

/**
 * The change feed: one dedicated connection that `LISTEN`s on the channel.
 * A notification is only a hint (the owner re-reads the store), because
 * notifications are lost while disconnected; so every reconnect and a periodic
 * re-check hint too. The connection comes back with backoff until `stop()`.
 */
export class ChangeFeed {
  private client: pg.Client | undefined
  private stopped = false
  private backoff = 0
  private retry: ReturnType<typeof setTimeout> | undefined
  private readonly recheck: ReturnType<typeof setInterval> | undefined
  private connecting: Promise<void> | undefined

  constructor(private readonly options: ChangeFeedOptions) {
    if (options.recheckMs > 0) {
      this.recheck = setInterval(() => options.hint('recheck'), options.recheckMs)
      this.recheck.unref?.()
    }
  }

  /** Connect and listen; resolves once listening, or rejects with the first connection's failure (the feed keeps retrying). */
  start(): Promise<void> {
    this.connecting = this.connect(false)
    return this.connecting
  }

  /** Whether the listening connection is up. */
  get live(): boolean {
    return this.client !== undefined
  }

  private async connect(reconnecting: boolean): Promise<void> {
    if (this.stopped) return
    const client = new pg.Client(this.options.connection)
    client.on('error', (error) => this.lost(client, error))
    client.on('end', () => this.lost(client, new Error('connection ended')))
    client.on('notification', (message) => {
      if (message.channel !== this.options.channel) return
      try {
        const payload = JSON.parse(message.payload ?? '') as { document?: unknown }
        if (payload.document !== this.options.document) return
      } catch {
        // Not ours to read: still only a hint, so read the store.
      }
      this.options.hint('notify')
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${pg.escapeIdentifier(this.options.channel)}`)
    } catch (error) {
      client.removeAllListeners('end')
      await client.end().catch(() => {})
      // The first connection's failure is the owner's to report (its load fails); later ones retry.
      if (!reconnecting) throw error
      this.options.failed(error)
      this.schedule()
      return
    }
    if (this.stopped) {
      await client.end().catch(() => {})
      return
    }
    this.client = client
    this.backoff = 0
    // Whatever was committed while this host was not listening is read now.
    if (reconnecting) this.options.hint('reconnect')
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return
    this.client = undefined
    client.removeAllListeners('end')
    void client.end().catch(() => {})
    if (this.stopped) return
    this.options.failed(error)
    this.schedule()
  }

  private schedule(): void {
    if (this.stopped || this.retry) return
    this.backoff = nextBackoff(this.backoff)
    this.retry = setTimeout(() => {
      this.retry = undefined
      void this.connect(true)
    }, this.backoff)
  }

  /** Stop listening, stop retrying and re-checking, and close the connection. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.retry)
    clearInterval(this.recheck)
    await this.connecting?.catch(() => {})
    const client = this.client
    this.client = undefined
    if (client) {
      client.removeAllListeners('end')
      await client.end().catch(() => {})
    }
  }
}
