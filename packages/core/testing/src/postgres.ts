/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` and
 * `pg_ctl` in a temp folder, trust auth, a free port on 127.0.0.1 and the
 * socket inside the folder. As root the server runs as the `postgres` user
 * (it refuses root). Stopped and removed by `stop()`.
 */
import { execFile as execFileCallback, execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const execFile = promisify(execFileCallback)

/** Set to `1` to make a missing server a failure instead of a skip (CI sets it after installing one). */
export const REQUIRE_POSTGRES_ENV = 'DSH_REQUIRE_POSTGRES'

/** The folder holding `initdb`, `pg_ctl` and `postgres`, or `undefined` when this machine has none. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = []
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim())
  } catch {
    // No pg_config: look where Debian puts the server, then on PATH.
  }
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    for (const version of versions) candidates.push(join(debian, version, 'bin'))
  }
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(dir)
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')))
}

/**
 * Whether tests may use a server: `true`, or `false` after one loud line saying
 * why they skip. Throws when none is found under `DSH_REQUIRE_POSTGRES=1`.
 */
export function postgresAvailable(): boolean {
  if (postgresBinDir()) return true
  const message = 'PostgreSQL server binaries (initdb, pg_ctl) not found: the PostgreSQL tests are skipped (apt-get install -y postgresql)'
  if (process.env[REQUIRE_POSTGRES_ENV] === '1') throw new Error(`${message}; ${REQUIRE_POSTGRES_ENV}=1 requires them`)
  console.warn(`\n*** ${message} ***\n`)
  return false
}

/** A free TCP port on 127.0.0.1 (free when asked; the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** One running throwaway cluster. */
export interface PostgresServer {
  port: number
  /** A connection string for `database` (default `postgres`), with a password that trust auth ignores, so tests can check it never leaks. */
  url(database?: string): string
  /** `pg_ctl restart -m fast`: every connection is dropped and the server comes back on the same port. */
  restart(): Promise<void>
  /** `pg_ctl stop -m fast`, leaving the data folder for {@link start}. */
  halt(): Promise<void>
  /** Start a halted server again. */
  start(): Promise<void>
  /** Run one SQL statement through `psql` as the superuser and answer its unaligned output. */
  sql(statement: string, database?: string): Promise<string>
  /** Stop the server and remove its folder. */
  stop(): Promise<void>
}

/** The password in every {@link PostgresServer.url}: trust auth ignores it; it must never appear in an error or log. */
export const TEST_PASSWORD = 'hunter2-never-shown'

/** Start a throwaway cluster; resolves once it accepts connections. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinDir()
  if (!bin) throw new Error('PostgreSQL server binaries not found')
  const root = mkdtempSync(join(tmpdir(), 'dsh-pg-'))
  const data = join(root, 'data')
  const sock = join(root, 'sock')
  const asRoot = process.getuid?.() === 0
  // The server refuses to run as root: hand the folder to the postgres user and run the tools as it.
  const run = (tool: string, args: string[]) => (asRoot ? execFile('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : execFile(join(bin, tool), args))
  try {
    execFileSync('mkdir', ['-p', sock])
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
      chownSync(root, uid, gid)
      chownSync(sock, uid, gid)
    }
    chmodSync(root, 0o700)
    await run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'])
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  const port = await freePort()
  const options = `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']).then(() => {})
  const halt = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).then(() => {})
  try {
    await start()
  } catch (error) {
    rmSync(root, { recursive: true, force: true })
    throw error
  }
  let stopped = false
  return {
    port,
    url: (database = 'postgres') => `postgres://postgres:${TEST_PASSWORD}@127.0.0.1:${port}/${database}`,
    restart: () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-m', 'fast', '-w', '-t', '60', 'restart']).then(() => {}),
    halt,
    start,
    async sql(statement, database = 'postgres') {
      const { stdout } = await execFile('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', statement])
      return stdout.trim()
    },
    async stop() {
      if (stopped) return
      stopped = true
      await halt().catch(() => {})
      rmSync(root, { recursive: true, force: true })
    },
  }
}
