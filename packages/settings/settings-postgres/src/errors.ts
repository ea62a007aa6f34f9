import { formatPath, SettingsStoreError } from 'dsh-settings'
import type { UnholdablePlace, UnholdableReason } from './holdable.ts'

/** SQLSTATE classes that mean the data or the request is at fault, not the database's availability. */
const REJECTED_CLASSES = new Set(['22', '23', '42', '54'])

/** What an operator most often meets at start, by SQLSTATE, in words of our own (a server message may quote data). */
const SQLSTATE_TEXT: Readonly<Record<string, string>> = {
  '28000': 'the server refused this role',
  '28P01': 'password authentication failed',
  '3D000': 'no such database',
  '42501': 'permission denied',
  '42P01': 'a table is missing',
  '53300': 'too many connections',
  '57P03': 'the server is starting up or shutting down',
}

/** A short, content-free reason for a driver or server failure: an SQLSTATE, a socket code, or a timeout. */
export function failureReason(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown failure'
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `SQLSTATE ${code}${SQLSTATE_TEXT[code] ? ` (${SQLSTATE_TEXT[code]})` : ''}`
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code
  // The driver's own messages for a connection that never came or a query that hung; they quote nothing stored.
  if (typeof message === 'string' && /timeout|timed out|terminated|ended|closed/i.test(message)) return message.slice(0, 120)
  return 'connection failure'
}

/** Whether the same write may succeed later (`unavailable`) or not as it stands (`rejected`). */
export function refusalOf(error: unknown): 'rejected' | 'unavailable' {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && REJECTED_CLASSES.has(code.slice(0, 2)) ? 'rejected' : 'unavailable'
}

/**
 * The database refused or could not take a write or a read. The message names
 * the database (host, port, name) and a content-free reason, never the
 * password and never stored data; `refusal` is `unavailable` for a database
 * that is down, unreachable, restarting or too slow.
 */
export class SettingsDatabaseError extends SettingsStoreError {
  override readonly name = 'SettingsDatabaseError'
  constructor(database: string, action: string, error: unknown) {
    super(
      refusalOf(error) === 'unavailable' ? 'SETTINGS_DATABASE_UNAVAILABLE' : 'SETTINGS_DATABASE_REFUSED',
      `PostgreSQL at ${database} could not ${action}: ${failureReason(error)}`,
      database,
      // The driver's error is not kept as the cause: its message may quote the connection string or stored data.
      { refusal: refusalOf(error) },
    )
  }
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** The message of {@link SettingsDatabaseTablesMissingError}: what is gone, why nothing recreates it, and what to do. */
function tablesMissingMessage(database: string, missing: readonly string[], remaining: readonly string[]): string {
  const [s, it] = missing.length > 1 ? ['s', 'them'] : ['', 'it']
  const gone = `the table${s} ${listed(missing)} of the settings provider ${missing.length > 1 ? 'are' : 'is'} missing in database ${database}`
  // Every table gone under a running host: a start creates them all, so a restart is the remedy.
  if (!remaining.length) return `${gone}: restart the host to create ${it} again (its settings then start over empty)`
  return (
    `${gone}, while ${listed(remaining)} remain${remaining.length > 1 ? '' : 's'}. The provider does not recreate ${it} by itself, ` +
    `as the settings stored there would silently start over empty: restore ${it} from a backup, or start over with an empty ` +
    `settings document with DROP TABLE ${remaining.join(', ')} (a starting host then creates every table; hosts that kept running ` +
    'hold their old settings until restarted)'
  )
}

/**
 * Some of the provider's tables are gone (one was dropped, or a restore left
 * it out). The provider does not recreate them on its own while others
 * remain: the settings they held would silently start over empty. The message
 * names the database, the missing tables and the remedy. A start retries until
 * the remedy is applied; a write is refused as `unavailable` meanwhile.
 */
export class SettingsDatabaseTablesMissingError extends SettingsStoreError {
  override readonly name = 'SettingsDatabaseTablesMissingError'
  declare readonly code: 'SETTINGS_DATABASE_TABLES_MISSING'
  constructor(
    database: string,
    /** The provider's tables that do not exist. */
    readonly missing: readonly string[],
    /** Its tables that still do. */
    readonly remaining: readonly string[],
  ) {
    super('SETTINGS_DATABASE_TABLES_MISSING', tablesMissingMessage(database, missing, remaining), database, { refusal: 'unavailable' })
  }
}

/** What the message says of each reason. */
const UNHOLDABLE_TEXT: Record<UnholdableReason, string> = {
  nul: 'the character U+0000 (NUL)',
  'unpaired-surrogate': 'an unpaired UTF-16 surrogate (U+D800 to U+DFFF without its pair)',
}

/** A key cut to 64 characters for a message; `path` keeps it whole. */
function shortKey(segment: string | number): string | number {
  return typeof segment === 'string' && segment.length > 64 ? `${segment.slice(0, 64)}…` : segment
}

/**
 * A write carries a string or a key PostgreSQL's `jsonb` cannot store (a
 * NUL, an unpaired surrogate). That write alone is refused (`rejected`), before
 * any SQL runs: the other writes of its group commit. `path` is the place
 * inside the section (array indexes as strings), as on a validation error; the
 * message names that place and the reason, never the value.
 */
export class SettingsDatabaseCannotHoldError extends SettingsStoreError {
  override readonly name = 'SettingsDatabaseCannotHoldError'
  declare readonly code: 'SETTINGS_DATABASE_CANNOT_HOLD'
  readonly ns: string
  /** The named scope of the section, for a scoped one. */
  readonly scope?: string
  /** The place inside the section (array indexes as strings). */
  readonly path: string[]
  /** Why it cannot be stored. */
  readonly reason: UnholdableReason

  constructor(database: string, section: { ns: string; scope?: string }, place: UnholdablePlace) {
    const where = sectionLabel(section)
    super(
      'SETTINGS_DATABASE_CANNOT_HOLD',
      `PostgreSQL at ${database} cannot hold the ${place.kind} at ${formatPath(place.path.map(shortKey))} of ${where}: it contains ${UNHOLDABLE_TEXT[place.reason]}, which jsonb cannot store; nothing of this write was stored`,
      database,
      { refusal: 'rejected' },
    )
    this.ns = section.ns
    if (section.scope !== undefined) this.scope = section.scope
    this.path = place.path.map(String)
    this.reason = place.reason
  }
}

/** `section "ns"` or `section "ns" in scope s`, as messages name a section. */
export function sectionLabel(key: { ns: string; scope?: string }): string {
  return `section ${JSON.stringify(key.ns)}${key.scope === undefined ? '' : ` in scope ${key.scope}`}`
}

/**
 * A write would store a secret while this host has no usable at-rest key
 * (`DSH_SETTINGS_SECRET_KEY` unset, or not 32 bytes): a PostgreSQL row never
 * holds a secret in plain text, so that write alone is refused (`rejected`),
 * nothing of it stored. The message says how to configure the key and names
 * the secret's place, never its value.
 */
export class SettingsNoSecretKeyError extends SettingsStoreError {
  override readonly name = 'SettingsNoSecretKeyError'
  declare readonly code: 'SETTINGS_NO_SECRET_KEY'
  readonly ns: string
  readonly scope?: string
  /** The secret's place inside the section (array indexes as strings). */
  readonly path: string[]
  constructor(database: string, key: { ns: string; scope?: string }, path: readonly string[], why: string) {
    super(
      'SETTINGS_NO_SECRET_KEY',
      `PostgreSQL at ${database} will not store the secret at ${formatPath(path)} of ${sectionLabel(key)} in plain text, and ${why}: ` +
        'set DSH_SETTINGS_SECRET_KEY in the environment of every host of this deployment to one shared key of 32 bytes ' +
        '(64 hex digits or base64, made with `openssl rand -hex 32`) and restart them; nothing of this write was stored',
      database,
      { refusal: 'rejected' },
    )
    this.ns = key.ns
    if (key.scope !== undefined) this.scope = key.scope
    this.path = [...path]
  }
}

/**
 * A write would change (or remove) a value the row takes from the host, a
 * `{ "$env": … }` or `{ "$file": … }` reference: such a value is read-only
 * through the seam (`rejected`). The message names the place and the
 * reference's kind and name, never a value.
 */
export class SettingsSecretReadOnlyError extends SettingsStoreError {
  override readonly name = 'SettingsSecretReadOnlyError'
  declare readonly code: 'SETTINGS_SECRET_READ_ONLY'
  readonly ns: string
  readonly scope?: string
  readonly path: string[]
  /** Where the value comes from: the kind and the variable's name or the file's path. */
  readonly reference: { kind: 'env' | 'file'; name: string }
  constructor(database: string, key: { ns: string; scope?: string }, path: readonly string[], reference: { kind: 'env' | 'file'; name: string }, formatted: string) {
    const from = reference.kind === 'env' ? 'the environment variable' : 'the file'
    super(
      'SETTINGS_SECRET_READ_ONLY',
      `the value at ${formatPath(path)} of ${sectionLabel(key)} comes from ${from} of each host (${formatted}) and cannot be changed through the settings: ` +
        `change ${reference.kind === 'env' ? 'the variable' : 'the file'} on the hosts, or replace the reference in the row of PostgreSQL at ${database}`,
      database,
      { refusal: 'rejected' },
    )
    this.ns = key.ns
    if (key.scope !== undefined) this.scope = key.scope
    this.path = [...path]
    this.reference = { kind: reference.kind, name: reference.name }
  }
}

/**
 * A write would store a section whose secret this host could not read (a box
 * its key does not open, a reference that does not resolve here): storing it
 * would overwrite the value other hosts read, so that write is refused
 * (`rejected`). The message names the place, never a value or a box.
 */
export class SettingsSecretUnreadableError extends SettingsStoreError {
  override readonly name = 'SettingsSecretUnreadableError'
  declare readonly code: 'SETTINGS_SECRET_UNREADABLE'
  readonly ns: string
  readonly scope?: string
  readonly path: string[]
  constructor(database: string, key: { ns: string; scope?: string }, path: readonly string[], problem: string) {
    super(
      'SETTINGS_SECRET_UNREADABLE',
      `this host cannot read the value at ${formatPath(path)} of ${sectionLabel(key)} (${problem}), so it will not overwrite it in PostgreSQL at ${database}; nothing of this write was stored`,
      database,
      { refusal: 'rejected' },
    )
    this.ns = key.ns
    if (key.scope !== undefined) this.scope = key.scope
    this.path = [...path]
  }
}
