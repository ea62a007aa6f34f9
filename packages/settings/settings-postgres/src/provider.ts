import type { Context } from 'cordis'
import pg from 'pg'
import Schema from 'schemastery'
import {
  readsHoldVersions,
  SettingsChanges,
  SettingsProvider,
  SettingsSnapshot,
  SettingsStoreError,
  type JsonObject,
  type SectionKey,
  type SettingsDocument,
  type SettingsSecretOrigin,
  type SettingsSectionVersion,
  type SettingsStoreResult,
  type SettingsTransaction,
} from 'dsh-settings'
import { SettingsDatabaseCannotHoldError, SettingsDatabaseError, SettingsDatabaseTablesMissingError } from './errors.ts'
import { ChangeFeed } from './feed.ts'
import { unholdablePlace } from './holdable.ts'
import { applyRows, changesOf, rowsFor, versionKey, versionsOf, withRows, type SectionRow } from './rows.ts'
import { migrations, SCHEMA_VERSION, statements, TABLE_PREFIX_PATTERN, tableNames, tablesFor, type Tables } from './sql.ts'
import { RowSecrets } from './secrets.ts'
import { retryUntilStarted } from './start.ts'
import { databaseLabel, databaseUser } from './target.ts'

/** A row as the driver hands it back: `bigint` columns arrive as strings. */
interface RawSectionRow {
  scope: string
  ns: string
  data: unknown
  version: string | number
}

function sectionRow(raw: RawSectionRow): SectionRow {
  return { scope: raw.scope, ns: raw.ns, data: raw.data, version: Number(raw.version) }
}

/**
 * Provides `ctx.settings` from a PostgreSQL database that several hosts
 * share. Each raw section is one row with the store version that last changed
 * it; those versions are the seam's revisions, identical on every host. A write
 * is one database transaction under the document row's lock; a `NOTIFY` tells
 * the other hosts, which read what is newer than what they saw (a notification
 * is a hint, never the data), and a periodic re-check and every reconnect heal
 * a missed one. A database it cannot use at start is retried with backoff,
 * one log line per attempt, until it can or the provider is disposed; the
 * service (and every plugin that injects it) starts only then.
 */
export class PostgresSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<PostgresSettingsProvider.Config> = Schema.object({
    url: Schema.string().required().role('secret').description('libpq connection string (postgres://user:pass@host:5432/db?sslmode=...).'),
    document: Schema.string().min(1).default('default').description('Id of the settings document inside the database, so several deployments can share one database.'),
    table: Schema.string().pattern(TABLE_PREFIX_PATTERN).default('dsh_settings').description('Name prefix of the provider’s tables (created on first start, migrated by version).'),
    recheckMs: Schema.natural().default(5000).description('Period of the catch-up query that heals a missed notification (0 turns it off).'),
    timeoutMs: Schema.natural().min(1).default(5000).description('Connect, lock and statement timeout of one write, and of one start attempt.'),
  })

  private readonly config: Required<PostgresSettingsProvider.Config>
  private readonly database: string
  private readonly tables: Tables
  private readonly sql: ReturnType<typeof statements>
  private pool: pg.Pool | undefined
  private feed: ChangeFeed | undefined
  /** The document as this host last read or wrote it, and the store version that is newest in it. */
  private cache: SettingsDocument = {}
  /** The store version of every section in the cache (tombstones too), as the seam must be told them. */
  private versions = new Map<string, SettingsSectionVersion>()
  private seen = 0
  /** Writes and catch-ups run one at a time, so the cache moves forward in version order. */
  private chain: Promise<void> = Promise.resolve()
  private catchingUp = false
  private closed = false
  private canWrite = true
  /** Set once the seam took the loaded document: a hint before that waits for it. */
  private serving = false
  private missedHint = false
  /** Aborted when this provider's fiber is disposed, so a start that is still retrying stops at once. */
  private readonly starting = new AbortController()
  /** The last start attempt's failure, until an attempt succeeds. */
  private lastStartFailure: SettingsStoreError | undefined
  /** Secrets in rows: boxes opened and references resolved on this host, sealed and written back on a write. */
  private readonly secrets: RowSecrets

  constructor(ctx: Context, config: PostgresSettingsProvider.Config) {
    super(ctx)
    const table = config.table ?? 'dsh_settings'
    if (!TABLE_PREFIX_PATTERN.test(table)) throw new TypeError(`dsh-settings-postgres: table prefix must match ${TABLE_PREFIX_PATTERN}`)
    this.config = { document: 'default', table, recheckMs: 5000, timeoutMs: 5000, ...config }
    this.database = databaseLabel(config.url)
    this.tables = tablesFor(table)
    this.sql = statements(this.tables)
    this.secrets = new RowSecrets({ document: this.config.document, database: this.database, env: this.environment, warn: (message) => ctx.logger('settings').warn(message) })
    // cordis lets a service's start finish before it runs the effects of its disposal: the disposal itself is heard
    // here, so a start still retrying stops at once instead of holding the disposal (and the host's exit) forever.
    ctx.on('internal/plugin', (fiber) => {
      if (fiber === ctx.fiber && fiber.uid === null) this.starting.abort()
    })
  }

  /**
   * This host's environment, read once at construction for the at-rest key
   * (`DSH_SETTINGS_SECRET_KEY`) and at every read for `$env` references:
   * `process.env`. A subclass may give another (an embedding host, a test).
   */
  protected get environment(): Readonly<Record<string, string | undefined>> {
    return process.env
  }

  /** While the start is still retrying, why: the last attempt's failure (database named, never its password). */
  override get startFailure(): SettingsStoreError | undefined {
    return this.serving ? undefined : this.lastStartFailure
  }

  /** Whether this host's connection may write (learned at start: a standby, a read-only session or role cannot). */
  override get writable(): boolean {
    return this.canWrite
  }

  private connection(): pg.ClientConfig {
    const { url, timeoutMs } = this.config
    return { connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'dsh-settings-postgres' }
  }

  /**
   * Connect, create or check the tables, listen and read the document; retried
   * until it works (0.5 s doubling to 30 s, with jitter; one warning per
   * attempt, naming the database and user), or until the provider is disposed.
   */
  protected override async open(): Promise<void> {
    const logger = this.ctx.logger('settings')
    const user = databaseUser(this.config.url)
    let failures = 0
    await retryUntilStarted({
      attempt: () => this.connect(),
      signal: this.starting.signal,
      failed: (error, attempt, waitMs) => {
        failures = attempt
        this.lastStartFailure = error instanceof SettingsStoreError ? error : new SettingsDatabaseError(this.database, 'start', error)
        logger.warn(`${this.lastStartFailure.message} (${user === undefined ? '' : `user ${user}; `}attempt ${attempt}, next in ${(waitMs / 1000).toFixed(1)} s)`)
      },
    })
    if (failures && this.pool) logger.info(`PostgreSQL at ${this.database} answered after ${failures} failed attempt${failures > 1 ? 's' : ''}: the settings document is loaded`)
  }

  /** One start attempt. Leaves nothing open when it fails; a failure is a {@link SettingsStoreError}. */
  private async connect(): Promise<void> {
    const pool = new pg.Pool({ ...this.connection(), max: 2, idleTimeoutMillis: 30_000 })
    // An idle connection the server dropped (a restart) errors here; the next query takes a fresh one.
    pool.on('error', () => {})
    // A connection dropped while a write holds it rejects that write's query, and also emits `error` on the
    // client: unheard, that event would end the process.
    pool.on('connect', (client) => void client.on('error', () => {}))
    this.pool = pool
    const feed = new ChangeFeed({
      connection: this.connection(),
      channel: this.tables.channel,
      document: this.config.document,
      recheckMs: this.config.recheckMs,
      hint: () => this.hint(),
      failed: (error) => this.ctx.logger('settings').warn(new SettingsDatabaseError(this.database, 'keep the change feed connected (reconnecting)', error).message),
    })
    try {
      await this.migrate()
      // Listening before the read: a change committed after it is announced, one before it is in it.
      await feed.start()
      const stored = await this.read('load the settings document', 0)
      const rows = await this.secrets.reveal(stored)
      this.cache = {}
      applyRows(this.cache, rows)
      this.versions = new Map()
      withRows(this.versions, rows)
      this.seen = stored.reduce((max, row) => Math.max(max, row.version), 0)
    } catch (error) {
      await feed.stop()
      await pool.end().catch(() => {})
      this.pool = undefined
      throw error instanceof SettingsStoreError ? error : new SettingsDatabaseError(this.database, 'be reached to load the settings document', error)
    }
    this.feed = feed
  }

  protected override async close(): Promise<void> {
    this.closed = true
    await this.feed?.stop()
    await this.chain
    await this.pool?.end().catch(() => {})
  }

  /**
   * Create or upgrade the tables one host at a time (an advisory lock), make
   * sure the document row exists, and learn whether this connection may write.
   * A connection with read-only rights on current tables changes nothing here.
   */
  private async migrate(): Promise<void> {
    await this.inTransaction('create or migrate its tables', async (client) => {
      await client.query(this.sql.lockMigrations, [this.tables.migrationLock])
      const { missing, present } = await this.tablesFound(client)
      // Some tables but not all: one was dropped. Recreating it would quietly start its settings over, so say so instead.
      if (present.length && missing.length) throw new SettingsDatabaseTablesMissingError(this.database, missing, present)
      if (!present.includes(this.tables.migrations)) await client.query(this.sql.createMigrations)
      const applied = Number((await client.query<{ version: number }>(this.sql.appliedVersion)).rows[0]?.version ?? 0)
      const steps = migrations(this.tables)
      for (let version = applied + 1; version <= SCHEMA_VERSION; version++) {
        for (const statement of steps[version] ?? []) await client.query(statement)
        await client.query(this.sql.recordMigration, [version])
      }
      const writable = (await client.query<{ writable: boolean }>(this.sql.canWrite, [this.tables.sections, this.tables.documents])).rows[0]?.writable === true
      this.canWrite = writable
      if (writable && !(await client.query(this.sql.documentExists, [this.config.document])).rowCount) await client.query(this.sql.ensureDocument, [this.config.document])
    })
  }

  /** The document `open()` read (empty when the provider was disposed before any attempt succeeded). */
  protected load(): SettingsSnapshot {
    this.serving = true
    // A change announced while the start was still under way is read now that the seam takes publishes.
    if (this.missedHint) this.hint()
    return new SettingsSnapshot(this.cache, this.versions.values())
  }

  /** Which of this prefix's tables exist and which do not. */
  private async tablesFound(client: pg.ClientBase | pg.Pool): Promise<{ present: string[]; missing: string[] }> {
    const names = tableNames(this.tables)
    const found = new Set((await client.query<{ name: string }>(this.sql.tablesPresent, [names])).rows.map((row) => row.name))
    return { present: names.filter((name) => found.has(name)), missing: names.filter((name) => !found.has(name)) }
  }

  /**
   * The error for a failed statement: a missing table (SQLSTATE 42P01, one
   * dropped under this running host) is named with the remedy when a quick
   * look finds which; anything else is a {@link SettingsDatabaseError}.
   */
  private async failure(action: string, error: unknown): Promise<SettingsStoreError> {
    if ((error as { code?: unknown } | null)?.code === '42P01' && this.pool) {
      const found = await this.tablesFound(this.pool).catch(() => undefined)
      if (found?.missing.length) return new SettingsDatabaseTablesMissingError(this.database, found.missing, found.present)
    }
    return new SettingsDatabaseError(this.database, action, error)
  }

  /** Every section row of the document newer than `since`, in one consistent read. */
  private async read(action: string, since: number, client?: pg.PoolClient): Promise<SectionRow[]> {
    try {
      const result = await (client ?? this.pool!).query<RawSectionRow>(this.sql.sectionsSince, [this.config.document, since])
      return result.rows.map(sectionRow)
    } catch (error) {
      // Inside a transaction the caller reports it, once its connection is released.
      if (client) throw error
      throw await this.failure(action, error)
    }
  }

  /** Run `body` alone against the cache (writes and catch-ups), in order. */
  private exclusive<T>(body: () => Promise<T>): Promise<T> {
    const run = this.chain.then(body)
    this.chain = run.then(
      () => {},
      () => {},
    )
    return run
  }

  /** The store may hold something newer: read it, unless a catch-up is already queued. */
  private hint(): void {
    if (!this.serving) {
      this.missedHint = true
      return
    }
    if (this.catchingUp || this.closed) return
    this.catchingUp = true
    void this.exclusive(async () => {
      this.catchingUp = false
      if (this.closed) return
      try {
        await this.catchUp()
      } catch (error) {
        this.ctx.logger('settings').warn((error as Error).message)
      }
    })
  }

  /** Fold in the sections newer than the last version this host saw, and publish them with their versions. */
  private async catchUp(): Promise<void> {
    const rows = await this.read('read the latest changes', this.seen)
    await this.take(rows)
  }

  /** Fold rows another host stored into this host's cache (secrets read on this host), then hand them to the seam with their versions. */
  private async take(stored: readonly SectionRow[]): Promise<void> {
    if (!stored.length) return
    const rows = await this.secrets.reveal(stored)
    applyRows(this.cache, rows)
    withRows(this.versions, rows)
    this.seen = Math.max(this.seen, ...rows.map((row) => row.version))
    this.publish(new SettingsChanges(changesOf(rows)))
  }

  /** A string or key `jsonb` cannot store (a NUL, an unpaired surrogate) refuses its write alone, before any SQL runs. */
  protected override cannotHold(key: SectionKey, section: JsonObject): SettingsStoreError | undefined {
    const place = unholdablePlace(section)
    if (place) return new SettingsDatabaseCannotHoldError(this.database, key, place)
    return this.secrets.refusal(key, section, section === undefined ? [] : this.secretPaths(key.ns, section))
  }

  /** A value the row takes from this host (`$env`, `$file`) is described with its reference. */
  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    return this.secrets.source(key, path)
  }

  /**
   * Store a transaction's changes in one database transaction holding the
   * document row's lock: what other hosts stored since this host last read is
   * taken first (and published); if it moved a section the writes read, nothing
   * is stored and the seam derives the writes again.
   */
  protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
    return this.exclusive(async () => {
      let newer: SectionRow[] = []
      let written: SectionRow[] | undefined
      await this.inTransaction('store a settings write', async (client) => {
        const locked = await client.query<{ version: string }>(this.sql.lockDocument, [this.config.document])
        const version = Number(locked.rows[0]?.version ?? 0)
        newer = version > this.seen ? await this.read('read the latest changes', this.seen, client) : []
        const moved = new Map(newer.map((row) => [versionKey(row.ns, row.scope), row.version]))
        const versionOf = (ns: string, scope?: string) => moved.get(versionKey(ns, scope)) ?? this.versions.get(versionKey(ns, scope))?.version ?? 0
        if (!readsHoldVersions(transaction.reads, versionOf)) return
        written = []
        if (!transaction.changes.length) return
        const next = Math.max(this.seen, version) + 1
        const rows = rowsFor(transaction.changes, next)
        // A secret is sealed and a reference written back before any row leaves: never a plain secret in the table.
        const atRest = rows.map((row) => this.secrets.conceal(row, row.data === null ? [] : this.secretPaths(row.ns, row.data)))
        await client.query(this.sql.upsertSections, [
          this.config.document,
          atRest.map((row) => row.scope),
          atRest.map((row) => row.ns),
          atRest.map((row) => (row.data === null ? null : JSON.stringify(row.data))),
          next,
        ])
        await client.query(this.sql.advanceDocument, [this.config.document, next])
        await client.query(this.sql.notify, [this.tables.channel, JSON.stringify({ document: this.config.document, version: next })])
        written = rows
      })
      // Committed in the database: other hosts' rows first (the seam takes them before this transaction's), then ours.
      await this.take(newer)
      if (!written) return { moved: true }
      if (!written.length) return undefined
      this.secrets.stored(written)
      applyRows(this.cache, written)
      withRows(this.versions, written)
      this.seen = Math.max(this.seen, written[0]!.version)
      return { versions: versionsOf(written) }
    })
  }

  /** Run `body` in one database transaction with this provider's timeouts; failures become {@link SettingsDatabaseError}. */
  private async inTransaction(action: string, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    if (!this.pool) throw new SettingsDatabaseError(this.database, action, new Error('connection closed'))
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw new SettingsDatabaseError(this.database, `be reached to ${action}`, error)
    }
    let failure: unknown
    try {
      const ms = Math.floor(this.config.timeoutMs)
      await client.query('BEGIN')
      await client.query(`SET LOCAL lock_timeout = ${ms}`)
      await client.query(`SET LOCAL statement_timeout = ${ms}`)
      await body(client)
      await client.query('COMMIT')
    } catch (error) {
      failure = error
      await client.query('ROLLBACK').catch(() => {})
    } finally {
      // A connection that failed is not handed to the next write.
      client.release(failure !== undefined)
    }
    if (failure === undefined) return
    if (failure instanceof SettingsStoreError || (failure as { code?: unknown }).code === 'SETTINGS_PROVIDER_CONTRACT') throw failure
    throw await this.failure(action, failure)
  }
}

export namespace PostgresSettingsProvider {
  export interface Config {
    /** libpq connection string; in a deployment file, `${DSH_DATABASE_URL}`. */
    url: string
    /** Id of the settings document inside the database. */
    document?: string
    /** Name prefix of the provider's tables. */
    table?: string
    /** Period of the catch-up query that heals a missed notification; 0 turns it off. */
    recheckMs?: number
    /** Connect, lock and statement timeout of one write, and of one start attempt. */
    timeoutMs?: number
  }
}
