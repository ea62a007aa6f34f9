/**
 * The client side of the wire measurements, run in its own process (forked by
 * wire.ts) so that making requests does not take CPU from the server being
 * measured. It speaks dsh-remote's protocol directly with `node:http`:
 * `POST /remote/settings/<method>` with `{ "args": [...] }` over a keep-alive
 * agent, and `GET /remote/events` streams read frame by frame.
 *
 * The parent sends one job at a time (`{ id, job }`) and gets `{ id, result }`
 * or `{ id, error }` back; the process ends when the parent disconnects.
 */
import { Agent, request } from 'node:http'
import { now, percentile, sleep, summarize, type Summary } from './stats.ts'

/** Where the deployment listens. */
export interface WireTarget {
  url: string
  token: string
  /** The namespaces updates rotate over. */
  names: string[]
  /** Update counters start above this, so every update of every job changes its section. */
  counterBase: number
}

/** A job for the client process. */
export type WireJob =
  | (WireTarget & { kind: 'rate'; method: 'describe' | 'update'; concurrency: number; /** calls before timing starts (at most 300 ms of them) */ warmup: number; durationMs: number })
  | (WireTarget & { kind: 'count'; concurrency: number; total: number })
  | (WireTarget & { kind: 'fanout'; clients: number; rounds: number; pauseMs: number; timeoutMs: number })

/** What a `rate` or `count` job measured. */
export interface RateResult {
  requests: number
  ms: number
  perSecond: number
  /** Answers that were not 200, by status. */
  failures: Record<string, number>
  latency: Summary
  responseBytes: number
}

/** What a `fanout` job measured: for each round, each stream's delay from sending the update to reading its event. */
export interface FanoutResult {
  samples: number[]
  p50: number
  p95: number
  /** Round trip of the update request itself, per round. */
  updateMs: number[]
  /** Streams that did not see a round's event within the timeout. */
  missed: number
  event: string
}

/** A warm-up stops after this long even when it has not made its `warmup` calls (slow writes). */
const WARMUP_MAX_MS = 300

/** The event each stream waits for: the resolved value of the namespace changed. */
const EVENT = 'settings/updated'

/** POST one call and resolve with its status and body size once the answer has been read completely. */
function call(agent: Agent, target: WireTarget, method: string, body: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.url}/remote/settings/${method}`, {
      method: 'POST',
      agent,
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    req.on('response', (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => (bytes += chunk.length))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The request bodies of a job: describe takes no arguments; update j patches one counter of namespace j mod N. */
function bodies(target: WireTarget, method: 'describe' | 'update'): () => string {
  if (method === 'describe') return () => '{"args":[]}'
  let counter = target.counterBase
  return () => {
    counter++
    return JSON.stringify({ args: [target.names[counter % target.names.length], { counter }] })
  }
}

/** `concurrency` workers issue calls back to back while `more()` says so; every call's latency and status are kept. */
async function load(agent: Agent, target: WireTarget, method: 'describe' | 'update', concurrency: number, more: (issued: number) => boolean): Promise<Omit<RateResult, 'perSecond' | 'latency'> & { latencies: number[] }> {
  const next = bodies(target, method)
  const latencies: number[] = []
  const failures: Record<string, number> = {}
  let issued = 0
  let responseBytes = 0
  const begin = now()
  const worker = async () => {
    while (more(issued)) {
      issued++
      const start = now()
      const { status, bytes } = await call(agent, target, method, next())
      latencies.push(now() - start)
      responseBytes += bytes
      if (status !== 200) failures[status] = (failures[status] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { requests: latencies.length, ms: now() - begin, failures, responseBytes, latencies }
}

async function rate(job: Extract<WireJob, { kind: 'rate' }>): Promise<RateResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency })
  try {
    const warmEnd = now() + WARMUP_MAX_MS
    await load(agent, { ...job, counterBase: job.counterBase + 5_000_000 }, job.method, job.concurrency, (issued) => issued < job.warmup && now() < warmEnd)
    const end = now() + job.durationMs
    const run = await load(agent, job, job.method, job.concurrency, () => now() < end)
    return { requests: run.requests, ms: run.ms, perSecond: (run.requests * 1000) / run.ms, failures: run.failures, latency: summarize(run.latencies), responseBytes: run.responseBytes / run.requests }
  } finally {
    agent.destroy()
  }
}

async function count(job: Extract<WireJob, { kind: 'count' }>): Promise<RateResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency })
  try {
    const run = await load(agent, job, 'update', job.concurrency, (issued) => issued < job.total)
    return { requests: run.requests, ms: run.ms, perSecond: (run.requests * 1000) / run.ms, failures: run.failures, latency: summarize(run.latencies), responseBytes: run.responseBytes / run.requests }
  } finally {
    agent.destroy()
  }
}

/** One open event stream, calling `onEvent` with each frame's event name and data. */
function openStream(target: WireTarget, onEvent: (event: string, data: string) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${target.url}/remote/events`, { agent: false, headers: { authorization: `Bearer ${target.token}`, accept: 'text/event-stream' } })
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return reject(new Error(`GET /remote/events answered ${res.statusCode}`))
      }
      res.setEncoding('utf8')
      let buffer = ''
      res.on('data', (chunk: string) => {
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          let event = 'message'
          let data = ''
          for (const line of frame.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data += line.slice(6)
          }
          if (data) onEvent(event, data)
        }
      })
      res.on('error', () => {})
      resolve(() => req.destroy())
    })
    req.on('error', reject)
    req.end()
  })
}

async function fanout(job: Extract<WireJob, { kind: 'fanout' }>): Promise<FanoutResult> {
  const ns = job.names[0]!
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let round: { start: number; seen: (number | undefined)[]; left: number; done(): void } | undefined
  const closers: (() => void)[] = []
  try {
    for (let client = 0; client < job.clients; client++) {
      closers.push(
        await openStream(job, (event, data) => {
          if (!round || event !== EVENT || round.seen[client] !== undefined) return
          if ((JSON.parse(data) as { ns?: string }).ns !== ns) return
          round.seen[client] = now() - round.start
          if (--round.left === 0) round.done()
        }),
      )
    }
    await sleep(50)
    const samples: number[] = []
    const updateMs: number[] = []
    let missed = 0
    for (let index = 0; index < job.rounds; index++) {
      let done!: () => void
      const all = new Promise<void>((resolve) => (done = resolve))
      const counter = job.counterBase + index + 1
      round = { start: now(), seen: new Array(job.clients).fill(undefined), left: job.clients, done }
      const { status } = await call(agent, job, 'update', JSON.stringify({ args: [ns, { counter }] }))
      if (status !== 200) throw new Error(`the fan-out update answered ${status}`)
      updateMs.push(now() - round.start)
      let timer: ReturnType<typeof setTimeout> | undefined
      await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, job.timeoutMs)))])
      clearTimeout(timer)
      for (const seen of round.seen) {
        if (seen === undefined) missed++
        else samples.push(seen)
      }
      round = undefined
      await sleep(job.pauseMs)
    }
    if (!samples.length) throw new Error('no event stream saw any update')
    return { samples, p50: percentile(samples, 50), p95: percentile(samples, 95), updateMs, missed, event: EVENT }
  } finally {
    for (const close of closers) close()
    agent.destroy()
  }
}

const jobs = { rate, count, fanout } as const

if (process.send && process.env.DSH_BENCH_WIRE_CLIENT === '1') {
  process.on('message', (message: { id: number; job: WireJob }) => {
    const run = jobs[message.job.kind] as (job: WireJob) => Promise<unknown>
    run(message.job).then(
      (result) => process.send!({ id: message.id, result }),
      (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    )
  })
  process.send({ ready: true })
}
