/**
 * The PostgreSQL provider (dsh-settings-postgres) on a throwaway cluster
 * (`startPostgres()`, about 3 s; `fsync=off`, so the figures are CPU and
 * round trips, not disk):
 *
 * 1. One awaited `update()` with 100 namespaces registered (and stored)
 *    against the floor: the same write transaction issued by hand on one raw
 *    `pg` connection (BEGIN; SELECT … FOR UPDATE; one upsert of exactly the
 *    section JSON our update stored; UPDATE version; pg_notify; COMMIT).
 *    Interleaved, one of each per run; medians. Report only.
 * 2. Propagation: host A's `update()` → host B's `watch` callback, p50/p95,
 *    against the floor: the raw transaction on one connection → its NOTIFY
 *    on a raw LISTENing connection, which then reads the changed rows (the
 *    provider's `sectionsSince` query). Target: our p50 ≤ 20 ms.
 * 3. Propagation to 50 hosts: one writer host, 50 listening hosts (each its
 *    own root and provider, so its own connections); the time until the last
 *    of the 50 watchers has the value, p50/p95, against the same floor fanned
 *    out to 50 raw listening connections. Plus the database connections each
 *    host holds (pg_stat_activity by the provider's application_name).
 *
 * Every host runs with `recheckMs: 0`: no periodic catch-up query, so every
 * propagation figure comes from LISTEN/NOTIFY alone. Our hosts use the
 * `postgres` database; the floor runs in a second database of the same
 * cluster, with the same tables and statements, because PostgreSQL wakes
 * every listening backend of a database on each NOTIFY, whatever its channel:
 * this way neither side's listeners are woken by the other side's writes.
 * Propagation samples are spaced by a short pause so each starts from quiet
 * connections; ours and the floor alternate sample by sample.
 */
import pg from 'pg'
import Schema from 'schemastery'
import type { SettingsScope } from 'dsh-settings'
import { postgresAvailable, startPostgres, type PostgresServer } from 'dsh-testing/postgres'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { statements, tablesFor, type Tables } from 'dsh-settings-postgres/sql'
import { bootProvider, buildPluginSchema, mount, namespaces, type Booted, type Row } from './harness.ts'
import { median, now, percentile, sleep, summarize } from './stats.ts'

const NAMESPACES = 100
const UPDATE_WARMUP = 20
const UPDATE_RUNS = 200
const PAIR_WARMUP = 10
const PAIR_SAMPLES = 200
const HOSTS = 50
const FANOUT_WARMUP = 3
const FANOUT_SAMPLES = 50
/** Between propagation samples, so each starts with every connection idle. */
const PAUSE_MS = 5
const TIMEOUT_MS = 10_000
const P50_TARGET_MS = 20

/** The table prefix on both databases; each measurement is its own settings document in it. */
const TABLE = 'bench'
const FLOOR_DATABASE = 'bench_floor'
/** What the provider sets on its connections; the connection count filters on it. */
const PROVIDER_APPLICATION = 'dsh-settings-postgres'
const FLOOR_APPLICATION = 'dsh-bench-floor'
const FLOOR_LISTENER_APPLICATION = 'dsh-bench-floor-listener'
const INSPECTOR_APPLICATION = 'dsh-bench-inspector'

const BenchSchema = Schema.object({ counter: Schema.number().default(0) })

// ---- pg ---------------------------------------------------------------------------

async function connect(url: string, application: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: application })
  client.on('error', () => {}) // a dropped connection fails its next query, which the bench reports
  await client.connect()
  return client
}

/** A section row as `sectionsSince` answers it (bigint arrives as a string). */
interface RawRow {
  scope: string
  ns: string
  data: { counter?: number } | null
  version: string
}

/**
 * The floor's writer: the provider's write transaction issued directly on one
 * connection, with the provider's own statements (minus its `SET LOCAL`
 * timeouts and anything its engine does around the transaction).
 */
class FloorWriter {
  private readonly sql: ReturnType<typeof statements>

  constructor(
    private readonly client: pg.Client,
    private readonly tables: Tables,
    private readonly document: string,
  ) {
    this.sql = statements(tables)
  }

  /** One committed transaction storing `json` as the global section `ns`. */
  async write(ns: string, json: string): Promise<void> {
    const { client, sql, document } = this
    await client.query('BEGIN')
    const locked = await client.query<{ version: string }>(sql.lockDocument, [document])
    const version = Number(locked.rows[0]!.version) + 1
    await client.query(sql.upsertSections, [document, [''], [ns], [json], version])
    await client.query(sql.advanceDocument, [document, version])
    await client.query(sql.notify, [this.tables.channel, JSON.stringify({ document, version })])
    await client.query('COMMIT')
  }
}

/**
 * The floor's listener: one raw connection that LISTENs on the channel and, on
 * a notification for its document, reads the rows newer than it has seen;
 * `onRows` gets them with the time they arrived.
 */
async function floorListener(url: string, tables: Tables, document: string, onRows: (rows: RawRow[], at: number) => void): Promise<pg.Client> {
  const sql = statements(tables)
  const client = await connect(url, FLOOR_LISTENER_APPLICATION)
  let seen = Number((await client.query<{ version: string }>(sql.documentVersion, [document])).rows[0]?.version ?? 0)
  client.on('notification', (message) => {
    if (message.channel !== tables.channel) return
    if ((JSON.parse(message.payload ?? '{}') as { document?: string }).document !== document) return
    void client.query<RawRow>(sql.sectionsSince, [document, seen]).then(
      ({ rows }) => {
        const at = now()
        for (const row of rows) seen = Math.max(seen, Number(row.version))
        if (rows.length) onRows(rows, at)
      },
      () => {},
    )
  })
  await client.query(`LISTEN ${tables.channel}`)
  return client
}

// ---- hosts ------------------------------------------------------------------------

/** A promise settled with the time the awaited thing happened, rejecting after `ms`. */
function waiter(ms: number, what: string): { promise: Promise<number>; settle(at: number): void } {
  let settle!: (at: number) => void
  let timer: ReturnType<typeof setTimeout> | undefined
  const promise = new Promise<number>((resolve, reject) => {
    settle = (at) => {
      clearTimeout(timer)
      resolve(at)
    }
    timer = setTimeout(() => reject(new Error(`${what}: not seen within ${ms} ms`)), ms)
  })
  return { promise, settle }
}

/** One host: a root context running the provider on `document`, re-checks off. */
function bootHost(url: string, document: string): Promise<Booted> {
  const config: PostgresSettingsProvider.Config = { url, document, table: TABLE, recheckMs: 0 }
  return bootProvider(PostgresSettingsProvider, config)
}

/** Boot `count` hosts at once; if any fails, dispose the others and throw. */
async function bootHosts(url: string, document: string, count: number): Promise<Booted[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => bootHost(url, document)))
  const hosts = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
  const failure = settled.find((result) => result.status === 'rejected')
  if (failure) {
    await disposeAll(hosts)
    throw failure.reason
  }
  return hosts
}

async function disposeAll(hosts: readonly Booted[]): Promise<void> {
  await Promise.allSettled(hosts.map((host) => host.dispose()))
}

/** Register the `bench` namespace on `host`; `watch`, if given, gets every new value. */
async function benchHandle(host: Booted, watch?: (next: { counter: number }, at: number) => void): Promise<SettingsScope<{ counter: number }>> {
  const { value } = await mount(host.root, (ctx) => {
    const handle = ctx.settings.register('bench', BenchSchema)
    if (watch) handle.watch((next) => watch(next, now()))
    return handle
  })
  return value
}

/** Everything the bench's hosts logged as warnings or errors. */
const warningsOf = (hosts: readonly Booted[]): string[] => hosts.flatMap((host) => host.warnings)

// ---- 1. one update() vs the transaction by hand -------------------------------------

async function measureUpdate(server: PostgresServer): Promise<Row> {
  const document = 'update'
  const tables = tablesFor(TABLE)
  const sql = statements(tables)
  const names = namespaces(NAMESPACES)
  const host = await bootHost(server.url(), document)
  const clients: pg.Client[] = []
  try {
    const { value: handles } = await mount(host.root, (ctx) => names.map((ns) => ctx.settings.register(ns, buildPluginSchema())))
    // Store every namespace's section, as a deployment that has run a while would have.
    for (const [index, handle] of handles.entries()) {
      await handle.update({ limit: (index % 1000) + 1, nested: { enabled: true, label: `plugin ${index}` }, tags: ['a', 'b'] })
    }
    const inspector = await connect(server.url(), INSPECTOR_APPLICATION)
    clients.push(inspector)
    const floorClient = await connect(server.url(FLOOR_DATABASE), FLOOR_APPLICATION)
    clients.push(floorClient)
    // The floor's document starts with the same 100 sections.
    const stored = await inspector.query<{ ns: string; data: string }>(`SELECT ns, data::text AS data FROM ${tables.sections} WHERE document = $1 AND scope = '' AND data IS NOT NULL`, [document])
    if (stored.rows.length !== NAMESPACES) throw new Error(`expected ${NAMESPACES} stored sections, found ${stored.rows.length}`)
    await floorClient.query(sql.ensureDocument, [document])
    await floorClient.query(sql.upsertSections, [document, stored.rows.map(() => ''), stored.rows.map((row) => row.ns), stored.rows.map((row) => row.data), 1])
    await floorClient.query(sql.advanceDocument, [document, 1])
    const floor = new FloorWriter(floorClient, tables, document)

    const ours: number[] = []
    const floors: number[] = []
    let counter = 0
    for (let run = 0; run < UPDATE_WARMUP + UPDATE_RUNS; run++) {
      const index = run % NAMESPACES
      const ns = names[index]!
      counter++
      const start = now()
      await handles[index]!.update({ counter })
      const oursMs = now() - start
      if (handles[index]!.get().counter !== counter) throw new Error('update did not commit')
      // Exactly the JSON our update stored for that section, written by hand.
      const json = (await inspector.query<{ data: string }>(`SELECT data::text AS data FROM ${tables.sections} WHERE document = $1 AND scope = '' AND ns = $2`, [document, ns])).rows[0]!.data
      const floorStart = now()
      await floor.write(ns, json)
      const floorMs = now() - floorStart
      if (run >= UPDATE_WARMUP) {
        ours.push(oursMs)
        floors.push(floorMs)
      }
    }
    const oursMedian = median(ours)
    const floorMedian = median(floors)
    return {
      id: 'postgres.update',
      measurement: `one awaited update() on PostgreSQL (${NAMESPACES} namespaces registered)`,
      ours: oursMedian,
      comparison: floorMedian,
      comparisonLabel: 'the floor: the same transaction issued directly with pg (BEGIN; SELECT … FOR UPDATE; one upsert; UPDATE version; pg_notify; COMMIT)',
      unit: 'ms',
      ratio: oursMedian / floorMedian,
      ratioKind: 'ours/comparison',
      target: 'report',
      detail: { runs: UPDATE_RUNS, warmup: UPDATE_WARMUP, recheckMs: 0, ours: summarize(ours), floor: summarize(floors), oursRuns: ours, floorRuns: floors, warnings: host.warnings },
    }
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()))
    await host.dispose()
  }
}

// ---- 2. one host's commit → another host's watcher ---------------------------------

async function measurePair(server: PostgresServer): Promise<Row[]> {
  const document = 'pair'
  const tables = tablesFor(TABLE)
  const hosts: Booted[] = []
  const clients: pg.Client[] = []
  try {
    hosts.push(...(await bootHosts(server.url(), document, 2)))
    const [a, b] = hosts as [Booted, Booted]
    let pending: { counter: number; settle(at: number): void } | undefined
    const writer = await benchHandle(a)
    await benchHandle(b, (next, at) => {
      if (pending && next.counter === pending.counter) pending.settle(at)
    })

    const floorClient = await connect(server.url(FLOOR_DATABASE), FLOOR_APPLICATION)
    clients.push(floorClient)
    await floorClient.query(statements(tables).ensureDocument, [document])
    const floor = new FloorWriter(floorClient, tables, document)
    let floorPending: { counter: number; settle(at: number): void } | undefined
    clients.push(
      await floorListener(server.url(FLOOR_DATABASE), tables, document, (rows, at) => {
        if (floorPending && rows.some((row) => row.data?.counter === floorPending!.counter)) floorPending.settle(at)
      }),
    )

    const ours: number[] = []
    const oursUpdate: number[] = []
    const floors: number[] = []
    for (let sample = 1; sample <= PAIR_WARMUP + PAIR_SAMPLES; sample++) {
      const wait = waiter(TIMEOUT_MS, `host B, write ${sample}`)
      pending = { counter: sample, settle: wait.settle }
      const start = now()
      await writer.update({ counter: sample })
      const updated = now() - start
      const oursMs = (await wait.promise) - start
      pending = undefined
      await sleep(PAUSE_MS)

      const floorWait = waiter(TIMEOUT_MS, `floor listener, write ${sample}`)
      floorPending = { counter: sample, settle: floorWait.settle }
      const floorStart = now()
      await floor.write('bench', JSON.stringify({ counter: sample }))
      const floorMs = (await floorWait.promise) - floorStart
      floorPending = undefined
      await sleep(PAUSE_MS)

      if (sample > PAIR_WARMUP) {
        ours.push(oursMs)
        oursUpdate.push(updated)
        floors.push(floorMs)
      }
    }
    const p50 = percentile(ours, 50)
    const p95 = percentile(ours, 95)
    const floorP50 = percentile(floors, 50)
    const floorP95 = percentile(floors, 95)
    const floorLabel = 'the floor: the same transaction by hand → NOTIFY on a raw LISTENing connection → it reads the changed rows'
    return [
      {
        id: 'postgres.propagation.p50',
        measurement: `propagation: one host's commit → another host's watcher, p50 (p95 ${p95.toFixed(2)} ms; NOTIFY only, recheckMs: 0)`,
        ours: p50,
        comparison: floorP50,
        comparisonLabel: floorLabel,
        unit: 'ms',
        ratio: p50 / floorP50,
        ratioKind: 'ours/comparison',
        target: `p50 ≤ ${P50_TARGET_MS} ms`,
        met: p50 <= P50_TARGET_MS,
        detail: { samples: PAIR_SAMPLES, warmup: PAIR_WARMUP, pauseMs: PAUSE_MS, recheckMs: 0, ours: summarize(ours), oursUpdateMs: summarize(oursUpdate), floor: summarize(floors), oursSamples: ours, floorSamples: floors, warnings: warningsOf(hosts) },
      },
      {
        id: 'postgres.propagation.p95',
        measurement: "propagation: one host's commit → another host's watcher, p95",
        ours: p95,
        comparison: floorP95,
        comparisonLabel: floorLabel,
        unit: 'ms',
        ratio: p95 / floorP95,
        ratioKind: 'ours/comparison',
        target: 'report',
      },
    ]
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()))
    await disposeAll(hosts)
  }
}

// ---- 3. one writer → 50 hosts ---------------------------------------------------------

/** How many connections `application` holds to the cluster now. */
async function connectionsOf(inspector: pg.Client, application: string): Promise<number> {
  const result = await inspector.query<{ count: string }>('SELECT count(*) AS count FROM pg_stat_activity WHERE application_name = $1', [application])
  return Number(result.rows[0]!.count)
}

async function measureFanout(server: PostgresServer): Promise<Row[]> {
  const document = 'fanout'
  const tables = tablesFor(TABLE)
  const hosts: Booted[] = []
  const clients: pg.Client[] = []
  try {
    // The writer first (it makes the document row), then the 50 listeners at once.
    hosts.push(await bootHost(server.url(), document))
    hosts.push(...(await bootHosts(server.url(), document, HOSTS)))
    const writer = await benchHandle(hosts[0]!)
    let pending: { counter: number; seen: number; settle(at: number): void } | undefined
    for (const host of hosts.slice(1)) {
      await benchHandle(host, (next, at) => {
        if (pending && next.counter === pending.counter && ++pending.seen === HOSTS) pending.settle(at)
      })
    }

    const inspector = await connect(server.url(), INSPECTOR_APPLICATION)
    clients.push(inspector)
    const providerConnections = await connectionsOf(inspector, PROVIDER_APPLICATION)

    const floorClient = await connect(server.url(FLOOR_DATABASE), FLOOR_APPLICATION)
    clients.push(floorClient)
    await floorClient.query(statements(tables).ensureDocument, [document])
    const floor = new FloorWriter(floorClient, tables, document)
    let floorPending: { counter: number; seen: number; settle(at: number): void } | undefined
    for (let index = 0; index < HOSTS; index++) {
      clients.push(
        await floorListener(server.url(FLOOR_DATABASE), tables, document, (rows, at) => {
          if (floorPending && rows.some((row) => row.data?.counter === floorPending!.counter) && ++floorPending.seen === HOSTS) floorPending.settle(at)
        }),
      )
    }
    const floorConnections = await connectionsOf(inspector, FLOOR_LISTENER_APPLICATION)

    const ours: number[] = []
    const floors: number[] = []
    for (let sample = 1; sample <= FANOUT_WARMUP + FANOUT_SAMPLES; sample++) {
      const wait = waiter(TIMEOUT_MS, `last of ${HOSTS} hosts, write ${sample}`)
      pending = { counter: sample, seen: 0, settle: wait.settle }
      const start = now()
      await writer.update({ counter: sample })
      const oursMs = (await wait.promise) - start
      pending = undefined
      await sleep(PAUSE_MS)

      const floorWait = waiter(TIMEOUT_MS, `last of ${HOSTS} floor listeners, write ${sample}`)
      floorPending = { counter: sample, seen: 0, settle: floorWait.settle }
      const floorStart = now()
      await floor.write('bench', JSON.stringify({ counter: sample }))
      const floorMs = (await floorWait.promise) - floorStart
      floorPending = undefined
      await sleep(PAUSE_MS)

      if (sample > FANOUT_WARMUP) {
        ours.push(oursMs)
        floors.push(floorMs)
      }
    }
    const providerConnectionsAfter = await connectionsOf(inspector, PROVIDER_APPLICATION)

    const p50 = percentile(ours, 50)
    const p95 = percentile(ours, 95)
    const floorP50 = percentile(floors, 50)
    const floorP95 = percentile(floors, 95)
    const floorLabel = `the floor: the transaction by hand → NOTIFY on ${HOSTS} raw LISTENing connections → each reads the changed rows (the last one)`
    const perHost = providerConnections / hosts.length
    const perFloorListener = floorConnections / HOSTS
    return [
      {
        id: 'postgres.fanout.p95',
        measurement: `propagation to ${HOSTS} hosts (p95 to the last host; NOTIFY only, recheckMs: 0)`,
        ours: p95,
        comparison: floorP95,
        comparisonLabel: floorLabel,
        unit: 'ms',
        ratio: p95 / floorP95,
        ratioKind: 'ours/comparison',
        target: 'report',
        detail: { hosts: HOSTS, samples: FANOUT_SAMPLES, warmup: FANOUT_WARMUP, pauseMs: PAUSE_MS, recheckMs: 0, ours: summarize(ours), floor: summarize(floors), oursSamples: ours, floorSamples: floors, warnings: warningsOf(hosts) },
      },
      {
        id: 'postgres.fanout.p50',
        measurement: `propagation to ${HOSTS} hosts (p50 to the last host)`,
        ours: p50,
        comparison: floorP50,
        comparisonLabel: floorLabel,
        unit: 'ms',
        ratio: p50 / floorP50,
        ratioKind: 'ours/comparison',
        target: 'report',
      },
      {
        id: 'postgres.connections',
        measurement: `database connections per host (${providerConnections} for ${hosts.length} hosts: ${HOSTS} listening + 1 writer)`,
        ours: perHost,
        comparison: perFloorListener,
        comparisonLabel: 'the floor: raw listeners, one connection each that both LISTENs and reads',
        unit: 'connections',
        ratio: perHost / perFloorListener,
        ratioKind: 'ours/comparison',
        target: 'report',
        detail: { hosts: hosts.length, providerConnections, providerConnectionsAfterWrites: providerConnectionsAfter, floorListeners: HOSTS, floorListenerConnections: floorConnections },
      },
    ]
  } finally {
    await Promise.allSettled(clients.map((client) => client.end()))
    await disposeAll(hosts)
  }
}

// ---- entry ------------------------------------------------------------------------------

export async function benchPostgres(): Promise<Row[]> {
  if (!postgresAvailable()) {
    return [
      {
        id: 'postgres.skipped',
        measurement: 'PostgreSQL rows not measured (PostgreSQL server binaries missing)',
        ours: Number.NaN,
        comparisonLabel: 'the same transactions issued directly with pg',
        unit: 'ms',
        target: 'report',
      },
    ]
  }
  const server = await startPostgres()
  try {
    // The floor's database: the provider's own tables, made by one provider that boots and leaves.
    await server.sql(`CREATE DATABASE ${FLOOR_DATABASE}`)
    const maker = await bootHost(server.url(FLOOR_DATABASE), 'default')
    await maker.dispose()
    const rows: Row[] = []
    rows.push(await measureUpdate(server))
    rows.push(...(await measurePair(server)))
    rows.push(...(await measureFanout(server)))
    return rows
  } finally {
    await server.stop()
  }
}
