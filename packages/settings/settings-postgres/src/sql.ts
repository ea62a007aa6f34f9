/**
 * The provider's tables and statements. Table names come from the `table`
 * prefix, checked to be a plain lowercase identifier, so they are spliced into
 * SQL as they are; every value travels as a parameter.
 */

/** What a `table` prefix may be: a lowercase identifier short enough for PostgreSQL's 63-byte names with our suffixes. */
export const TABLE_PREFIX_PATTERN = /^[a-z_][a-z0-9_]{0,39}$/

/** The schema version this code writes; {@link MIGRATIONS} brings older tables up to it. */
export const SCHEMA_VERSION = 1

/** The names of one prefix's tables and notification channel. */
export interface Tables {
  documents: string
  sections: string
  migrations: string
  /** The `NOTIFY` channel: one per prefix, the payload names the document. */
  channel: string
  /** The key of the advisory lock that runs migrations one host at a time. */
  migrationLock: string
}

/** The table names of a prefix. */
export function tablesFor(prefix: string): Tables {
  return {
    documents: `${prefix}_documents`,
    sections: `${prefix}_sections`,
    migrations: `${prefix}_migrations`,
    channel: `${prefix}_changes`,
    migrationLock: `dsh-settings-postgres:${prefix}`,
  }
}

/** Every table of a prefix: version 1 creates them together, so either all exist or the schema was damaged. */
export function tableNames(t: Tables): string[] {
  return [t.documents, t.sections, t.migrations]
}

/** The DDL of each schema version, applied in order inside one transaction. */
export function migrations(t: Tables): Record<number, string[]> {
  return {
    1: [
      // One row per settings document: its version advances with every committed transaction, and a writer locks it.
      `CREATE TABLE ${t.documents} (id text PRIMARY KEY, version bigint NOT NULL DEFAULT 0)`,
      // One row per raw section; a removed section keeps its row with NULL data, so readers of "newer than" see the removal.
      `CREATE TABLE ${t.sections} (
        document text NOT NULL REFERENCES ${t.documents} (id) ON DELETE CASCADE,
        scope text NOT NULL,
        ns text NOT NULL,
        data jsonb,
        version bigint NOT NULL,
        PRIMARY KEY (document, scope, ns)
      )`,
      `CREATE INDEX ${t.sections}_by_version ON ${t.sections} (document, version)`,
    ],
  }
}

/** Statements the provider runs, by purpose. */
export function statements(t: Tables) {
  return {
    migrationsExist: `SELECT to_regclass($1) IS NOT NULL AS present`,
    // Which of the named tables exist (in the connection's search path, as every other statement finds them).
    tablesPresent: `SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL`,
    createMigrations: `CREATE TABLE ${t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    documentExists: `SELECT 1 FROM ${t.documents} WHERE id = $1`,
    // Whether this connection may write: not a standby, not a read-only session, and allowed to change both tables.
    canWrite: `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'
      AND has_table_privilege($1, 'INSERT, UPDATE') AND has_table_privilege($2, 'UPDATE') AS writable`,
    lockMigrations: `SELECT pg_advisory_xact_lock(hashtext($1))`,
    appliedVersion: `SELECT coalesce(max(version), 0) AS version FROM ${t.migrations}`,
    recordMigration: `INSERT INTO ${t.migrations} (version) VALUES ($1)`,
    ensureDocument: `INSERT INTO ${t.documents} (id) VALUES ($1) ON CONFLICT (id) DO NOTHING`,
    lockDocument: `SELECT version FROM ${t.documents} WHERE id = $1 FOR UPDATE`,
    documentVersion: `SELECT version FROM ${t.documents} WHERE id = $1`,
    sectionsSince: `SELECT scope, ns, data, version FROM ${t.sections} WHERE document = $1 AND version > $2 ORDER BY version`,
    // Every changed section of a transaction in one statement: parallel arrays of scopes, namespaces and JSON texts (NULL: removed).
    upsertSections: `INSERT INTO ${t.sections} (document, scope, ns, data, version)
      SELECT $1, scope, ns, data::jsonb, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS row (scope, ns, data)
      ON CONFLICT (document, scope, ns) DO UPDATE SET data = excluded.data, version = excluded.version`,
    advanceDocument: `UPDATE ${t.documents} SET version = $2 WHERE id = $1`,
    notify: `SELECT pg_notify($1, $2)`,
  }
}
