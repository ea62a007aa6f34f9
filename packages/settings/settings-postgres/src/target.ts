/**
 * How messages name the database: host, port and database from the
 * connection string, never the user's password (nor the user, nor options
 * such as `sslpassword`).
 */
export function databaseLabel(url: string): string {
  try {
    const parsed = new URL(url)
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)'
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost'
    return `${host}:${parsed.port || '5432'}/${database}`
  } catch {
    // A key=value connection string, or garbage: say nothing of its content.
    return 'the configured database'
  }
}

/**
 * Who the connection string logs in as, for the log lines of a start that
 * keeps failing (an operator checks the role); `undefined` when the string
 * names none (libpq then takes `PGUSER` or the system user) or is not a URL.
 * Never part of an error, which may leave the process.
 */
export function databaseUser(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).username) || undefined
  } catch {
    return undefined
  }
}
