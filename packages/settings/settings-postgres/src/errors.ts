import { SettingsStoreError } from 'dsh-settings'

/** SQLSTATE classes that mean the data or the request is at fault, not the database's availability. */
const REJECTED_CLASSES = new Set(['22', '23', '42', '54'])

/** A short, content-free reason for a driver or server failure: an SQLSTATE, a socket code, or a timeout. */
export function failureReason(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'unknown failure'
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `SQLSTATE ${code}`
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
