import type { Context } from 'cordis'
import pg from 'pg'
import Schema from 'schemastery'
import { changedSections, SettingsProvider, SettingsSnapshot, type SettingsDocument, type SettingsSectionVersion, type SettingsTransaction } from 'dsh-settings'
import { SettingsDatabaseError } from './errors.ts'
import { ChangeFeed } from './feed.ts'
import { applyRows, rowsFor, versionsOf, withRows, type SectionRow } from './rows.ts'
import { migrations, SCHEMA_VERSION, statements, TABLE_PREFIX_PATTERN, tablesFor, type Tables } from './sql.ts'
import { databaseLabel } from './target.ts'

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
 * a missed one.
 */
export class PostgresSettingsProvider extends SettingsProvider {
  static readonly Config: Schema<PostgresSettingsProvider.Config> = Schema.object({
    url: Schema.string().required().role('secret').description('libpq connection string (postgres://user:pass@host:5432/db?sslmode=...).'),
    document: Schema.string().min(1).default('default').description('Id of the settings document inside the database, so several deployments can share one database.'),
    table: Schema.string().pattern(TABLE_PREFIX_PATTERN).default('dsh_settings').description('Name prefix of the provider’s tables (created on first start, migrated by version).'),
    recheckMs: Schema.natural().default(5000).description('Period of the catch-up query that heals a missed notification (0 turns it off).'),
    timeoutMs: Schema.natural().min(1).default(5000).description('Connect, lock and statement timeout of one write.'),
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

  constructor(ctx: Context, config: PostgresSettingsProvider.Config) {
    super(ctx)
    const table = config.table ?? 'dsh_settings'
    if (!TABLE_PREFIX_PATTERN.test(table)) throw new TypeError(`dsh-settings-postgres: table prefix must match ${TABLE_PREFIX_PATTERN}`)
    this.config = { document: 'default', table, recheckMs: 5000, timeoutMs: 5000, ...config }
    this.database = databaseLabel(config.url)
    this.tables = tablesFor(table)
    this.sql = statements(this.tables)
  }

  /** Whether this host's connection may write (learned at start: a standby, a read-only session or role cannot). */
  override get writable(): boolean {
    return this.canWrite
  }

  private connection(): pg.ClientConfig {
    const { url, timeoutMs } = this.config
    return { connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'dsh-settings-postgres' }
  }

  protected override async open(): Promise<void> {
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
      await feed.start()
    } catch (error) {
      await feed.stop()
      await pool.end().catch(() => {})
      this.pool = undefined
      throw error instanceof SettingsDatabaseError ? error : new SettingsDatabaseError(this.database, 'be reached to load the settings document', error)
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
      const present = (await client.query<{ present: boolean }>(this.sql.migrationsExist, [this.tables.migrations])).rows[0]?.present
      if (!present) await client.query(this.sql.createMigrations)
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

  protected async load(): Promise<SettingsSnapshot> {
    const rows = await this.read('load the settings document', 0)
    this.cache = applyRows({}, rows)
    this.versions = withRows(new Map(), rows)
    this.seen = rows.reduce((max, row) => Math.max(max, row.version), 0)
    return new SettingsSnapshot(this.cache, this.versions.values())
  }

  /** Every section row of the document newer than `since`, in one consistent read. */
  private async read(action: string, since: number, client?: pg.PoolClient): Promise<SectionRow[]> {
    try {
      const result = await (client ?? this.pool!).query<RawSectionRow>(this.sql.sectionsSince, [this.config.document, since])
      return result.rows.map(sectionRow)
    } catch (error) {
      throw new SettingsDatabaseError(this.database, action, error)
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
    if (!rows.length) return
    this.cache = applyRows(this.cache, rows)
    this.versions = withRows(this.versions, rows)
    this.seen = Math.max(this.seen, ...rows.map((row) => row.version))
    // Every version, not only these rows': the seam may not have taken an earlier publish yet (it waits out a running write).
    this.publish(new SettingsSnapshot(this.cache, [...this.versions.values()]))
  }

  protected override transact(transaction: SettingsTransaction): Promise<void> {
    return this.exclusive(async () => {
      let stored: { next: SettingsDocument; rows: SectionRow[]; versions: Map<string, SettingsSectionVersion>; seen: number; changed: boolean } | undefined
      await this.inTransaction('store a settings write', async (client) => {
        const locked = await client.query<{ version: string }>(this.sql.lockDocument, [this.config.document])
        const version = Number(locked.rows[0]?.version ?? 0)
        // What other hosts committed since this one last read: folded in before the writes are judged.
        const newer = version > this.seen ? await this.read('read the latest changes', this.seen, client) : []
        const current = newer.length ? applyRows(this.cache, newer) : this.cache
        const versions = withRows(this.versions, newer)
        // The version of every section: whatever the seam has not taken yet (a publish it holds back) it takes here.
        const next = transaction.apply(new SettingsSnapshot(current, versions.values()))
        const seen = Math.max(this.seen, version)
        if (next === current) {
          stored = { next: current, rows: newer, versions, seen, changed: false }
          return
        }
        const rows = rowsFor(next, changedSections(current, next), seen + 1)
        await client.query(this.sql.upsertSections, [
          this.config.document,
          rows.map((row) => row.scope),
          rows.map((row) => row.ns),
          rows.map((row) => (row.data === null ? null : JSON.stringify(row.data))),
          seen + 1,
        ])
        await client.query(this.sql.advanceDocument, [this.config.document, seen + 1])
        await client.query(this.sql.notify, [this.tables.channel, JSON.stringify({ document: this.config.document, version: seen + 1 })])
        stored = { next, rows, versions: withRows(versions, rows), seen: seen + 1, changed: true }
      })
      // Committed in the database: now this host's cache, then the seam.
      const { next, rows, versions, seen, changed } = stored!
      this.cache = next
      this.versions = versions
      this.seen = seen
      transaction.commit(changed ? versionsOf(rows) : undefined)
    })
  }

  /** Run `body` in one database transaction with this provider's timeouts; failures become {@link SettingsDatabaseError}. */
  private async inTransaction(action: string, body: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    if (!this.pool) throw new SettingsDatabaseError(this.database, action, new Error('connection closed'))
    let client: pg.PoolClient
    try {
      client = await this.pool.connect()
    } catch (error) {
      throw new SettingsDatabaseError(this.database, action, error)
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
    if (failure instanceof SettingsDatabaseError || (failure as { code?: unknown }).code === 'SETTINGS_PROVIDER_CONTRACT') throw failure
    throw new SettingsDatabaseError(this.database, action, failure)
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
    /** Connect, lock and statement timeout of one write. */
    timeoutMs?: number
  }
}
