/**
 * Postgres hosts: four hosts of dsh-settings-postgres on one throwaway
 * database (three here, each its own cordis root, one in a child process)
 * write their own keys to `tally` and, one write in four, to `shared`, while
 * the database is attacked every 0.5-2 s: restarted (`pg_ctl restart -m
 * fast`), every provider backend terminated, or stopped and started again
 * after a pause. Refusals as `unavailable` are expected meanwhile. At the end
 * the writers stop, a fresh checker host boots, and within 15 s every host
 * must show exactly what the database holds; every acknowledged key must be
 * in it; no watcher may ever have seen a key go away (keys are only added);
 * and the test password must appear in no error or log line. No host may
 * crash: the child must not exit by itself, and while the scenario runs an
 * uncaught exception in this process (where three hosts run) is counted
 * instead of ending the whole torture run. One row; a skipped one when this
 * machine has no PostgreSQL server binaries (a failed one under
 * DSH_REQUIRE_POSTGRES=1).
 */
import { Context, type Fiber } from 'cordis'
import pg from 'pg'
import Schema from 'schemastery'
import type { SettingsProvider } from 'dsh-settings'
import { postgresAvailable, REQUIRE_POSTGRES_ENV, startPostgres, TEST_PASSWORD, type PostgresServer } from 'dsh-testing/postgres'
import PostgresSettingsProvider, { tablesFor } from 'dsh-settings-postgres'
import { between, CHILD_SAFETY_MS, sleep, spawnChild, type Child } from './harness.ts'
import type { Row } from './report.ts'

const ID = 'postgres'
const TITLE = 'postgres hosts'
const HOSTS_HERE = 3
const TABLE = 'dsh_settings'
const DOCUMENT = 'default'
const TIMEOUT_MS = 1500
const RECHECK_MS = 500
const NAMESPACES = ['tally', 'shared'] as const
type Ns = (typeof NAMESPACES)[number]
const Tally = Schema.dict(Schema.number())
type Tally = Record<string, number>
type Contents = Record<Ns, Tally>
/** Pause after an acknowledged write, and after a refused one (a stopped server refuses at once). */
const ACK_PAUSE_MS = [5, 25] as const
const FAIL_PAUSE_MS = [50, 150] as const
/** Between two attacks, and how long a stopped server stays down. */
const ATTACK_EVERY_MS = [500, 2000] as const
const DOWN_MS = [200, 1500] as const
/** A write not settled by then is stuck (the provider bounds each write by its timeouts, a few times TIMEOUT_MS at worst). */
const STUCK_MS = 30_000
const CONVERGE_MS = 15_000
const BOOT_MS = 60_000
const CLOSE_MS = 10_000
/** What the provider names its connections; the attack terminates exactly these. */
const APPLICATION = 'dsh-settings-postgres'
const CHECKER_APPLICATION = 'dsh-torture-checker'


/** How a refused write came back. */
interface Refusal {
  code: string
  refusal: string
  name: string
  /** The message and the error as JSON (searched for the password). */
  text: string
}

type Answer = { ok: true; visible: boolean } | ({ ok: false } & Refusal)

/** One host as the writers and the checks see it, wherever it runs. */
interface Host {
  name: string
  update(ns: Ns, key: string, value: number): Promise<Answer>
  contents(): Promise<Contents>
  /** Whether its process died on its own (it cannot write or converge any more). */
  crashed(): boolean
  /** Ends the host; false when it did not close within {@link CLOSE_MS}. */
  close(): Promise<boolean>
}

/** Everything the run counts. */
class Tallies {
  /** Every acknowledged `ns/key`: its value and when it was acknowledged. */
  readonly acked = new Map<string, { value: number; at: number }>()
  acks = 0
  refusedUnavailable = 0
  conflicts = 0
  otherFailures = 0
  readonly failures: Record<string, number> = {}
  wentBack = 0
  notVisible = 0
  stuck = 0
  leaks = 0
  /** Children that exited on their own, and uncaught exceptions in this process. */
  crashes = 0
  uncaught = 0
  logLines = 0
  private readonly began = Date.now()
  private readonly notesByKind = new Map<string, string[]>()

  /** Milliseconds since the run began, to line findings up with the attacks. */
  at(): number {
    return Date.now() - this.began
  }

  /** Keep the first few notes of each kind, so one noisy finding does not hide the others. */
  note(kind: string, text: string): void {
    const notes = this.notesByKind.get(kind) ?? []
    this.notesByKind.set(kind, notes)
    if (notes.length < 6) notes.push(`${this.at()} ms: ${text}`)
  }

  get notes(): string[] {
    return [...this.notesByKind.values()].flat()
  }

  /** A line a host logged or an error it returned: the password must not be in it. */
  scan(source: string, text: string): void {
    if (!text.includes(TEST_PASSWORD)) return
    this.leaks++
    this.note('leak', `${source}: the password appears in: ${text.replaceAll(TEST_PASSWORD, '<password>').slice(0, 300)}`)
  }

  refused(host: string, refusal: Refusal): void {
    this.scan(`${host} refusal`, refusal.text)
    const key = `${refusal.code}/${refusal.refusal}`
    this.failures[key] = (this.failures[key] ?? 0) + 1
    if (refusal.code === 'SETTINGS_DATABASE_UNAVAILABLE' && refusal.refusal === 'unavailable' && refusal.name === 'SettingsDatabaseError') this.refusedUnavailable++
    else if (refusal.code === 'SETTINGS_CONFLICT') this.conflicts++
    else {
      this.otherFailures++
      this.note('failed write', `${host}: a write failed otherwise: ${refusal.name} ${refusal.code} (${refusal.refusal}): ${refusal.text.slice(0, 300)}`)
    }
  }
}

const sameTally = (a: Tally, b: Tally): boolean => {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key])
}

/** Bound `promise` by `ms`: `undefined` when it did not settle in time. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => void (timer = setTimeout(() => resolve(undefined), ms)))])
  } finally {
    clearTimeout(timer)
  }
}

// ---- hosts ---------------------------------------------------------------------------

/** A host in this process: its own root, logger lines scanned, watchers checked. */
async function hostHere(name: string, url: string, tallies: Tallies): Promise<Host> {
  const root = new Context()
  root.logger.exporter({
    export: (message) => {
      tallies.logLines++
      tallies.scan(`${name} log`, message.args.map(String).join(' '))
    },
  })
  const fiber: Fiber = root.plugin(PostgresSettingsProvider, { url, table: TABLE, document: DOCUMENT, timeoutMs: TIMEOUT_MS, recheckMs: RECHECK_MS })
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
    for (const ns of NAMESPACES) {
      // Keys are only ever added, each with one value: a watcher call that lacks or changed a key of the call before went back.
      let last: Tally = {}
      ctx.settings.register(ns, Tally).watch((value) => {
        for (const [key, was] of Object.entries(last)) {
          if (value[key] === was) continue
          tallies.wentBack++
          tallies.note('went back', `${name}: the ${ns} watcher had ${key} = ${was}, then ${value[key] ?? 'no such key'}`)
        }
        last = value
      })
    }
  })
  const current = (ns: Ns): Tally => (settings.get(ns) as Tally | undefined) ?? {}
  return {
    name,
    update: (ns, key, value) =>
      settings.update(ns, { [key]: value }).then(
        (): Answer => ({ ok: true, visible: current(ns)[key] === value }),
        (error: unknown): Answer => ({
          ok: false,
          code: String((error as { code?: unknown }).code ?? 'UNKNOWN'),
          refusal: String((error as { refusal?: unknown }).refusal ?? '-'),
          name: error instanceof Error ? error.name : typeof error,
          text: `${error instanceof Error ? error.message : String(error)} ${JSON.stringify(error)}`,
        }),
      ),
    contents: async () => ({ tally: current('tally'), shared: current('shared') }),
    crashed: () => false,
    close: async () => (await within(fiber.dispose().then(() => true, () => false), CLOSE_MS)) ?? false,
  }
}

/** A host in a child process (children/pg-host.ts), driven by request lines. */
async function hostThere(name: string, url: string, tallies: Tallies): Promise<{ host: Host; child: Child }> {
  const waiting = new Map<string, (rest: string[]) => void>()
  let ready!: () => void
  const isReady = new Promise<void>((resolve) => (ready = resolve))
  let next = 0
  const child = spawnChild('pg-host', [url, TABLE, String(TIMEOUT_MS), String(RECHECK_MS), String(CHILD_SAFETY_MS)], (line) => {
    const [tag, ...rest] = line.split(' ')
    if (tag === 'ready') ready()
    else if (tag === 'ok' || tag === 'fail' || tag === 'value') {
      const answer = waiting.get(rest[0]!)
      waiting.delete(rest[0]!)
      answer?.([tag, ...rest.slice(1)])
    } else if (tag === 'back') {
      tallies.wentBack++
      tallies.note('went back', `${name}: the ${rest[0]} watcher had ${rest[1]} = ${rest[2]}, then ${rest[3] === '-' ? 'no such key' : rest[3]}`)
    } else if (tag === 'log') {
      tallies.logLines++
      tallies.scan(`${name} log`, JSON.parse(rest.join(' ')) as string)
    }
  })
  // A child that died answers nothing: every request it still owes, or is sent later, fails.
  const died = () => ['fail', CHILD_EXITED, '-', 'Error', JSON.stringify('the child host exited')]
  let closing = false
  void child.closed.then(({ code, signal }) => {
    for (const answer of waiting.values()) answer(died())
    waiting.clear()
    tallies.scan(`${name} stderr`, child.stderr())
    if (closing) return
    tallies.crashes++
    // What it died of: from the first line naming an error (a Node crash prints the source line and a caret before it).
    const lines = child.stderr().trim().split('\n')
    const from = Math.max(0, lines.findIndex((line) => /error/i.test(line)))
    tallies.note('crash', `${name} (pid ${child.pid}) exited by itself (code ${code}, signal ${signal}): ${lines.slice(from, from + 4).join(' / ')}`)
  })
  const request = (line: string) =>
    new Promise<string[]>((resolve) => {
      if (!child.alive()) return resolve(died())
      const id = String(++next)
      waiting.set(id, resolve)
      child.send(line.replace('#', id))
    })
  const booted = await within(Promise.race([isReady.then(() => true), child.closed.then(() => false)]), BOOT_MS)
  if (!booted) {
    child.kill()
    await child.closed
    throw new Error(`the child host did not start: ${child.stderr().trim().split('\n').slice(-3).join(' / ')}`)
  }
  const host: Host = {
    name,
    update: async (ns, key, value) => {
      const [tag, first, second, third, ...text] = await request(`update # ${ns} ${key} ${value}`)
      if (tag === 'ok') return { ok: true, visible: first === '1' }
      return { ok: false, code: first!, refusal: second!, name: third!, text: JSON.parse(text.join(' ')) as string }
    },
    crashed: () => !closing && !child.alive(),
    contents: async () => {
      const [tag, ...json] = await request('get #')
      if (tag !== 'value') throw new Error(`the child host answered ${tag} to get`)
      return JSON.parse(json.join(' ')) as Contents
    },
    close: async () => {
      // A child that crashed is counted as a crash (once), not as one that did not close.
      if (!child.alive()) {
        await child.closed
        return true
      }
      closing = true
      child.send('stop')
      const closed = await within(child.closed, CLOSE_MS)
      if (closed) return closed.code === 0
      child.kill()
      await child.closed
      return false
    },
  }
  return { host, child }
}

/** The code of a write refused because the child host had already died (its crash is counted once, elsewhere). */
const CHILD_EXITED = 'CHILD_EXITED'

// ---- writers -------------------------------------------------------------------------

/** Write `<host>-<n>` = n, one key after another, until `stopping()`; every acknowledged key is recorded. */
async function writer(host: Host, tallies: Tallies, stopping: () => boolean): Promise<void> {
  for (let n = 1; !stopping(); n++) {
    const ns: Ns = n % 4 === 0 ? 'shared' : 'tally'
    const key = `${host.name}-${n}`
    const answer = await within(host.update(ns, key, n), STUCK_MS)
    if (!answer) {
      tallies.stuck++
      tallies.note('stuck', `${host.name}: update of ${ns}.${key} not settled after ${STUCK_MS} ms; this writer stops`)
      return
    }
    if (answer.ok) {
      tallies.acks++
      tallies.acked.set(`${ns}/${key}`, { value: n, at: tallies.at() })
      if (!answer.visible) {
        tallies.notVisible++
        tallies.note('not visible', `${host.name}: ${ns}.${key} acknowledged but not in the host's own get() right after`)
      }
      await sleep(between(...ACK_PAUSE_MS))
    } else if (answer.code === CHILD_EXITED) {
      return
    } else {
      tallies.refused(host.name, answer)
      await sleep(between(...FAIL_PAUSE_MS))
    }
  }
}

// ---- attacker ------------------------------------------------------------------------

type Attack = 'restart' | 'terminate' | 'halt'

class Attacker {
  readonly counts: Record<Attack, number> = { restart: 0, terminate: 0, halt: 0 }
  backendsTerminated = 0
  errors = 0
  /** When each attack happened (ms since the storm began), for reproducing a finding. */
  readonly log: string[] = []

  constructor(
    private readonly server: PostgresServer,
    private readonly tallies: Tallies,
  ) {}

  get total(): number {
    return this.counts.restart + this.counts.terminate + this.counts.halt
  }

  /** Attack at random intervals until `deadline`; the server is up when this resolves. */
  async run(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      await sleep(between(...ATTACK_EVERY_MS))
      if (Date.now() >= deadline) break
      const kind = (['restart', 'terminate', 'halt'] as const)[between(0, 2)]!
      const at = this.tallies.at()
      try {
        await this.attack(kind)
        this.counts[kind]++
        if (this.log.length < 200) this.log.push(`${at} ms ${kind}`)
      } catch (error) {
        this.errors++
        this.tallies.note('attack', `attack ${kind} at ${at} ms failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
        await this.ensureUp()
      }
    }
  }

  private async attack(kind: Attack): Promise<void> {
    if (kind === 'restart') await this.server.restart()
    else if (kind === 'terminate') {
      const count = await this.server.sql(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '${APPLICATION}'`)
      this.backendsTerminated += Number(count) || 0
    } else {
      await this.server.halt()
      await sleep(between(...DOWN_MS))
      await this.server.start()
    }
  }

  /** Start the server when it does not answer (an attack that failed half-way). */
  async ensureUp(): Promise<void> {
    try {
      await this.server.sql('SELECT 1')
    } catch {
      await this.server.start()
    }
  }
}

// ---- the database's own view -----------------------------------------------------------

/** What the database holds for both namespaces, read directly. */
async function stored(client: pg.Client): Promise<Contents> {
  const { rows } = await client.query<{ ns: string; data: Tally | null }>(`SELECT ns, data FROM ${tablesFor(TABLE).sections} WHERE document = $1 AND scope = '' AND ns = ANY($2)`, [
    DOCUMENT,
    [...NAMESPACES],
  ])
  const contents: Contents = { tally: {}, shared: {} }
  for (const row of rows) if (row.data) contents[row.ns as Ns] = row.data
  return contents
}

/**
 * Poll until every host shows what the database holds, or `ms` pass; the
 * hosts that never did, and when the last one got there.
 */
async function converge(hosts: readonly Host[], client: pg.Client, ms: number, tallies: Tallies): Promise<{ behind: Host[]; afterMs: number; truth: Contents }> {
  const began = Date.now()
  for (;;) {
    const truth = await stored(client)
    const behind: Host[] = []
    for (const host of hosts) {
      // A host that died is counted as a crash, not as one that did not converge.
      if (host.crashed()) continue
      const seen = await within(host.contents(), 5000)
      if (!seen || !NAMESPACES.every((ns) => sameTally(seen[ns], truth[ns]))) behind.push(host)
    }
    if (!behind.length) return { behind, afterMs: Date.now() - began, truth }
    if (Date.now() - began > ms) {
      for (const host of behind) {
        const seen = await within(host.contents(), 5000)
        for (const ns of NAMESPACES) {
          const missing = Object.keys(truth[ns]).filter((key) => seen?.[ns][key] !== truth[ns][key])
          const extra = Object.keys(seen?.[ns] ?? {}).filter((key) => !(key in truth[ns]))
          if (!seen) tallies.note('diverged', `${host.name}: did not answer get`)
          else if (missing.length || extra.length) tallies.note('diverged', `${host.name}: ${ns} differs from the database: ${missing.length} keys missing or different (${missing.slice(0, 5).join(', ')}), ${extra.length} extra (${extra.slice(0, 5).join(', ')})`)
        }
      }
      return { behind, afterMs: Date.now() - began, truth }
    }
    await sleep(100)
  }
}

// ---- the scenario --------------------------------------------------------------------

/** Whether a server can run here; the row to return instead when it cannot. */
function unavailableRow(): Row | undefined {
  const base = { id: ID, scenario: TITLE, ops: 0, kills: 0, edits: 0, figures: {} }
  try {
    if (postgresAvailable()) return undefined
  } catch (error) {
    // Required by DSH_REQUIRE_POSTGRES=1 and missing: not run, and that fails the row.
    const message = error instanceof Error ? error.message : String(error)
    return { ...base, mustBeZero: { 'not run': 1 }, note: `not run: ${message}`, detail: { notes: [message] } }
  }
  return { ...base, mustBeZero: {}, status: 'skipped', note: `no PostgreSQL server binaries (apt-get install -y postgresql; ${REQUIRE_POSTGRES_ENV}=1 makes this a failure)` }
}

/** Run the hosts and the attacks for `seconds`; one row. */
export async function postgresHosts(seconds: number): Promise<Row[]> {
  const unavailable = unavailableRow()
  if (unavailable) return [unavailable]
  const tallies = new Tallies()
  // Three hosts run in this process: an exception nothing catches (an 'error' event nobody listens to) is a crash of
  // theirs, counted here, where it would otherwise end the whole torture run.
  const uncaught = (error: unknown) => {
    tallies.uncaught++
    const text = error instanceof Error ? `${error.message} ${error.stack ?? ''}` : String(error)
    tallies.scan('uncaught exception', text)
    tallies.note('uncaught', `uncaught exception in the process of h0-h${HOSTS_HERE - 1}: ${error instanceof Error ? (error.stack ?? error.message).split('\n').slice(0, 4).join(' / ') : String(error)}`)
  }
  const server = await startPostgres()
  process.on('uncaughtException', uncaught)
  const hosts: Host[] = []
  let child: Child | undefined
  let checker: Host | undefined
  let client: pg.Client | undefined
  let notClosed = 0
  try {
    const url = server.url()
    for (let index = 0; index < HOSTS_HERE; index++) hosts.push(await hostHere(`h${index}`, url, tallies))
    const there = await hostThere(`c${HOSTS_HERE}`, url, tallies)
    hosts.push(there.host)
    child = there.child

    let stopping = false
    const writers = hosts.map((host) => writer(host, tallies, () => stopping))
    const attacker = new Attacker(server, tallies)
    await attacker.run(Date.now() + seconds * 1000)
    stopping = true
    await Promise.all(writers)
    await attacker.ensureUp()

    // Writes are over; a fresh host must load the same document, and every host must come to it.
    const settled = Date.now()
    checker = await hostHere('checker', url, tallies)
    client = new pg.Client({ connectionString: url, application_name: CHECKER_APPLICATION, connectionTimeoutMillis: 5000 })
    client.on('error', () => {})
    await client.connect()
    const { behind, truth } = await converge([...hosts, checker], client, CONVERGE_MS, tallies)
    const convergedMs = Date.now() - settled

    let lostAcks = 0
    for (const [id, { value, at }] of tallies.acked) {
      const [ns, key] = id.split('/') as [Ns, string]
      if (truth[ns][key] === value) continue
      lostAcks++
      tallies.note('lost ack', `${ns}.${key} = ${value} acknowledged at ${at} ms; the database has ${truth[ns][key] ?? 'no such key'}`)
    }
    const connections = await client.query<{ count: string }>(`SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = $1`, [APPLICATION])
    const storedKeys = NAMESPACES.reduce((sum, ns) => sum + Object.keys(truth[ns]).length, 0)

    for (const host of [...hosts, checker]) if (!(await host.close())) notClosed++
    hosts.length = 0
    checker = undefined
    child = undefined

    return [
      {
        id: ID,
        scenario: TITLE,
        ops: tallies.acks,
        kills: attacker.total,
        edits: 0,
        mustBeZero: {
          'lost acks': lostAcks,
          'hosts not converged': behind.length,
          'values that went back': tallies.wentBack,
          'acks not in own get': tallies.notVisible,
          'other failed writes': tallies.otherFailures,
          'stuck writes': tallies.stuck,
          'leaked password': tallies.leaks,
          'hosts not closed': notClosed,
          'host crashes': tallies.crashes,
          'uncaught exceptions': tallies.uncaught,
        },
        figures: {
          hosts: `${HOSTS_HERE} here + 1 child`,
          'refused unavailable': tallies.refusedUnavailable,
          conflicts: tallies.conflicts,
          restarts: attacker.counts.restart,
          'terminate-all': attacker.counts.terminate,
          'stop/start': attacker.counts.halt,
          'backends terminated': attacker.backendsTerminated,
          'attack errors': attacker.errors,
          'converged in': `${convergedMs} ms`,
          'keys stored': storedKeys,
          'provider connections at end': Number(connections.rows[0]?.count ?? 0),
          'log lines': tallies.logLines,
        },
        detail: { notes: tallies.notes, failures: tallies.failures, attacks: attacker.log },
      },
    ]
  } finally {
    await client?.end().catch(() => {})
    for (const host of [...hosts, ...(checker ? [checker] : [])]) await host.close().catch(() => false)
    if (child?.alive()) {
      child.kill()
      await child.closed
    }
    try {
      await server.stop()
    } finally {
      process.off('uncaughtException', uncaught)
    }
  }
}
