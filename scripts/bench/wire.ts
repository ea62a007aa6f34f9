/**
 * The wire: a real deployment in this process (settings provider, dsh-remote's
 * server on 127.0.0.1 with a free port and a fixed token, the settings
 * controller exposed as `settings`, one plugin registering 100 namespaces with
 * one schema object each), once on the memory provider and once on the file
 * provider (YAML, watching as deployed). The clients run in a separate process
 * (wire-client.ts), so requests do not take CPU from the server they measure.
 *
 * - `describe` and `update` requests/s over keep-alive connections, with one
 *   sequential client and with 32 concurrent clients, each next to the same
 *   call made in-process on `ctx.settingsController` (the wire's overhead);
 * - the file provider's update rate against the memory provider's (the goal:
 *   within 2×), and the memory provider's against 2,000 requests/s;
 * - SSE fan-out (file provider): 100 event streams open, one update request,
 *   the delay until each stream read its `settings/updated` event, p50/p95;
 * - 1,000 updates from 32 concurrent clients (file provider): file writes per
 *   1,000 updates, counted by the write spy of burst.ts.
 */
import { Context, type Fiber } from 'cordis'
import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import RemoteServer from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import FileSettingsProvider from 'dsh-settings-file'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { spyWrites } from './burst.ts'
import { buildPluginSchema, mount, namespaces, plainDocument, removeTemp, tempDir, yamlDocument, type Row } from './harness.ts'
import { now, sleep, summarize } from './stats.ts'
import type { FanoutResult, RateResult, WireJob, WireTarget } from './wire-client.ts'

const NAMESPACES = 100
const CONCURRENT = 32
const DURATION_MS = 1000
const IN_PROCESS_MS = 500
const WARMUP = 200
const FANOUT_CLIENTS = 100
const FANOUT_ROUNDS = 10
const BURST_UPDATES = 1000
const CLIENT_TIMEOUT_MS = 60_000

type ProviderKind = 'memory' | 'file'

/** The client process and a promise-per-job channel to it. */
class ClientProcess {
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> }>()
  private next = 0

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: { id?: number; result?: unknown; error?: string }) => {
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id)
      if (!waiting) return
      this.pending.delete(message.id!)
      clearTimeout(waiting.timer)
      if (message.error !== undefined) waiting.reject(new Error(`wire client: ${message.error}`))
      else waiting.resolve(message.result)
    })
    child.on('exit', (code, signal) => {
      for (const waiting of this.pending.values()) {
        clearTimeout(waiting.timer)
        waiting.reject(new Error(`wire client exited with ${signal ?? code}`))
      }
      this.pending.clear()
    })
  }

  /** Fork the client and wait until it listens for jobs. */
  static start(): Promise<ClientProcess> {
    const child = fork(fileURLToPath(new URL('./wire-client.ts', import.meta.url)), [], {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      execArgv: ['--conditions=source', '--import', 'tsx'],
      env: { ...process.env, DSH_BENCH_WIRE_CLIENT: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error('the wire client did not start within 30 s'))
      }, 30_000)
      child.once('message', () => {
        clearTimeout(timer)
        resolve(new ClientProcess(child))
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`the wire client exited with ${code} before it started`))
      })
    })
  }

  /** Run one job in the client. */
  run<R>(job: WireJob): Promise<R> {
    const id = this.next++
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`wire client job ${job.kind} took longer than ${CLIENT_TIMEOUT_MS} ms`))
      }, CLIENT_TIMEOUT_MS)
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer })
      this.child.send({ id, job })
    })
  }

  /** Disconnect, and kill the client (by its pid) if it has not exited 5 s later. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()))
    this.child.disconnect()
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  }
}

/** A running deployment. */
interface Deployment {
  kind: ProviderKind
  url: string
  token: string
  /** The document, for the file provider. */
  file?: string
  root: Context
  warnings: string[]
  dispose(): Promise<void>
}

/** Boot provider, remote server, controller and the registering plugin in a fresh temp home. */
async function startDeployment(kind: ProviderKind, names: readonly string[]): Promise<Deployment> {
  const home = await tempDir(`wire-${kind}`)
  const root = new Context()
  const warnings: string[] = []
  root.logger.exporter({
    export: (message) => {
      if (message.type === 'warn' || message.type === 'error') warnings.push(message.args.map(String).join(' '))
    },
  })
  const fibers: Fiber[] = []
  const dispose = async () => {
    for (const fiber of [...fibers].reverse()) await fiber.dispose().catch(() => {})
    await removeTemp(home)
  }
  try {
    const token = randomBytes(32).toString('base64url')
    let file: string | undefined
    if (kind === 'file') {
      file = join(home, 'settings.yaml')
      await writeFile(file, yamlDocument(names), { mode: 0o600 })
      fibers.push(root.plugin(FileSettingsProvider, { path: file }))
    } else {
      fibers.push(root.plugin(MemorySettingsProvider, { document: plainDocument(names) }))
    }
    await fibers[0]!.await()
    fibers.push(root.plugin(RemoteServer, { home, port: 0, token }))
    await fibers[1]!.await()
    fibers.push(root.plugin(SettingsController, { home, opener: false }))
    await fibers[2]!.await()
    let url!: string
    await root.inject(['remoteServer', 'settingsController'], (ctx) => {
      url = ctx.remoteServer.url
    })
    // One schema object per namespace, built separately, as each plugin builds its own.
    const schemas = names.map(() => buildPluginSchema())
    const { fiber } = await mount(root, (ctx) => names.map((ns, index) => ctx.settings.register(ns, schemas[index]!)))
    fibers.push(fiber)
    await untilServed(url, token)
    return { kind, url, token, ...(file ? { file } : {}), root, warnings, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}

/** Wait until `settings` answers on the wire (the controller exposes itself once the server is up). */
async function untilServed(url: string, token: string): Promise<void> {
  const deadline = now() + 5000
  for (;;) {
    const response = await fetch(`${url}/remote/settings/describe`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"args":[]}' })
    await response.arrayBuffer()
    if (response.ok) return
    if (now() > deadline) throw new Error(`the settings service is not on the wire: ${response.status}`)
    await sleep(20)
  }
}

/** Calls per second of `call`, made by `concurrency` in-process callers back to back for `ms`, after a warm-up of at most 300 ms. */
async function inProcessRate(concurrency: number, ms: number, call: (index: number) => unknown): Promise<number> {
  let index = 0
  const warmEnd = now() + 300
  for (let warm = 0; warm < WARMUP && now() < warmEnd; warm++) await call(index++)
  let calls = 0
  const begin = now()
  const end = begin + ms
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < end) {
        await call(index++)
        calls++
      }
    }),
  )
  return (calls * 1000) / (now() - begin)
}

/** Every figure taken on one deployment. */
interface ProviderFigures {
  describe1: RateResult
  describe32: RateResult
  update1: RateResult
  update32: RateResult
  inProcess: { describe: number; update1: number; update32: number }
  fanout?: FanoutResult
  burst?: RateResult & { writes: number }
  warnings: string[]
}

async function measureProvider(kind: ProviderKind, client: ClientProcess, names: string[], base: number): Promise<ProviderFigures> {
  const deployment = await startDeployment(kind, names)
  const spy = deployment.file ? spyWrites(deployment.file) : undefined
  try {
    let jobs = 0
    const target = (): WireTarget => ({ url: deployment.url, token: deployment.token, names, counterBase: base + 10_000_000 * ++jobs })
    const rate = (method: 'describe' | 'update', concurrency: number) => client.run<RateResult>({ kind: 'rate', ...target(), method, concurrency, warmup: WARMUP, durationMs: DURATION_MS })
    const figures = {
      describe1: await rate('describe', 1),
      describe32: await rate('describe', CONCURRENT),
      update1: await rate('update', 1),
      update32: await rate('update', CONCURRENT),
    } as ProviderFigures

    let controller!: SettingsController
    await deployment.root.inject(['settingsController'], (ctx) => {
      controller = ctx.settingsController
    })
    let counter = base + 10_000_000 * ++jobs
    const update = () => {
      counter++
      return controller.update(names[counter % names.length]!, { counter })
    }
    figures.inProcess = {
      describe: await inProcessRate(1, IN_PROCESS_MS, () => controller.describe()),
      update1: await inProcessRate(1, IN_PROCESS_MS, update),
      update32: await inProcessRate(CONCURRENT, IN_PROCESS_MS, update),
    }

    if (spy) {
      figures.fanout = await client.run<FanoutResult>({ kind: 'fanout', ...target(), clients: FANOUT_CLIENTS, rounds: FANOUT_ROUNDS, pauseMs: 50, timeoutMs: 5000 })
      await sleep(300) // let the watcher settle on our own writes before counting
      const before = spy.count()
      const burst = await client.run<RateResult>({ kind: 'count', ...target(), concurrency: CONCURRENT, total: BURST_UPDATES })
      figures.burst = { ...burst, writes: spy.count() - before }
      if (figures.burst.writes === 0 && burst.requests - Object.values(burst.failures).reduce((sum, n) => sum + n, 0) > 0) {
        throw new Error('the write spy counted no document write for 1,000 HTTP updates')
      }
    }
    figures.warnings = deployment.warnings
    return figures
  } finally {
    spy?.restore()
    await deployment.dispose()
  }
}

const failureNote = (result: RateResult) => {
  const failed = Object.values(result.failures).reduce((sum, n) => sum + n, 0)
  return failed ? ` (${failed} non-200)` : ''
}

/** Rows of one provider's request rates. */
function rateRows(kind: ProviderKind, figures: ProviderFigures, memory?: ProviderFigures): Row[] {
  const rows: Row[] = []
  const detail = (result: RateResult) => ({ requests: result.requests, ms: result.ms, latency: result.latency, failures: result.failures, responseBytes: result.responseBytes })
  const inProcessRow = (id: string, label: string, result: RateResult, comparison: number, comparisonLabel: string): Row => ({
    id,
    measurement: `${label}, ${NAMESPACES} ns, ${kind}${failureNote(result)}`,
    ours: result.perSecond,
    comparison,
    comparisonLabel,
    unit: 'req/s',
    ratio: result.perSecond / comparison,
    ratioKind: 'ours/comparison',
    target: 'report',
    detail: detail(result),
  })
  rows.push(inProcessRow(`wire.describe-1.${kind}`, 'HTTP describe, 1 client', figures.describe1, figures.inProcess.describe, 'in-process settingsController.describe()'))
  rows.push(inProcessRow(`wire.describe-32.${kind}`, `HTTP describe, ${CONCURRENT} clients`, figures.describe32, figures.inProcess.describe, 'in-process settingsController.describe()'))
  rows.push(inProcessRow(`wire.update-1.${kind}`, 'HTTP update, 1 client', figures.update1, figures.inProcess.update1, 'in-process settingsController.update(), 1 caller'))
  const update32 = inProcessRow(`wire.update-32.${kind}`, `HTTP update, ${CONCURRENT} clients`, figures.update32, figures.inProcess.update32, `in-process settingsController.update(), ${CONCURRENT} callers`)
  if (kind === 'memory') {
    update32.target = '≥ 2,000 req/s'
    update32.met = figures.update32.perSecond >= 2000
  } else if (memory) {
    update32.comparison = memory.update32.perSecond
    update32.comparisonLabel = `memory provider, same ${CONCURRENT} clients`
    update32.ratio = figures.update32.perSecond / memory.update32.perSecond
    update32.target = '≥ 0.5× memory'
    update32.met = update32.ratio >= 0.5
    update32.detail = { ...update32.detail, inProcess32: figures.inProcess.update32 }
  }
  rows.push(update32)
  return rows
}

/** Boot the memory and the file deployments one after the other, drive them from the client process, and return the wire rows. */
export async function benchWire(): Promise<Row[]> {
  const names = namespaces(NAMESPACES)
  const client = await ClientProcess.start()
  let memory: ProviderFigures
  let file: ProviderFigures
  try {
    memory = await measureProvider('memory', client, names, 0)
    file = await measureProvider('file', client, names, 1_000_000_000)
  } finally {
    await client.stop()
  }
  const fanout = file.fanout!
  const burst = file.burst!
  const fanoutDetail = { clients: FANOUT_CLIENTS, rounds: FANOUT_ROUNDS, event: fanout.event, missed: fanout.missed, samples: summarize(fanout.samples), updateRoundTrip: summarize(fanout.updateMs) }
  const updateMedian = summarize(fanout.updateMs).median
  return [
    ...rateRows('memory', memory),
    ...rateRows('file', file, memory),
    {
      id: 'wire.sse-p50',
      measurement: `SSE fan-out to ${FANOUT_CLIENTS} streams, p50 (file)${fanout.missed ? ` (${fanout.missed} missed)` : ''}`,
      ours: fanout.p50,
      comparison: updateMedian,
      comparisonLabel: 'round trip of the update request itself',
      unit: 'ms',
      ratio: fanout.p50 / updateMedian,
      ratioKind: 'ours/comparison',
      target: 'report',
      detail: fanoutDetail,
    },
    {
      id: 'wire.sse-p95',
      measurement: `SSE fan-out to ${FANOUT_CLIENTS} streams, p95 (file)`,
      ours: fanout.p95,
      comparison: updateMedian,
      comparisonLabel: 'round trip of the update request itself',
      unit: 'ms',
      ratio: fanout.p95 / updateMedian,
      ratioKind: 'ours/comparison',
      target: 'report',
    },
    {
      id: 'burst.http-32.writes',
      measurement: `${BURST_UPDATES} HTTP updates, ${CONCURRENT} clients: writes / 1,000${failureNote(burst)}`,
      ours: (burst.writes * 1000) / burst.requests,
      comparison: 1000,
      comparisonLabel: 'one file write per update (no group commit)',
      unit: 'writes',
      ratio: burst.writes / burst.requests,
      ratioKind: 'ours/comparison',
      target: 'report',
      detail: { writes: burst.writes, updates: burst.requests, ms: burst.ms, perSecond: burst.perSecond, latency: burst.latency, counting: 'new versions placed at the document (in-process fs spy)', warnings: [...memory.warnings, ...file.warnings] },
    },
  ]
}
