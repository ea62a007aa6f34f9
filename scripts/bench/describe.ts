/**
 * Measurement 6: `describe({ redactSecrets: true })` over 1,000 namespaces ×
 * 10 named scopes, and the heap each registered instance costs.
 *
 * On the memory provider (`dsh-settings/memory`), one plugin registers all
 * 1,000 kinds globally, then one plugin inside each of 10 `dsh-scope` named
 * scopes (`createScope(root, { name: 'preset/p<i>' })`) registers an instance
 * of every kind: 11,000 instances. Each kind has its own schema object (built
 * separately, as each plugin builds its own; a kind's scoped registrations
 * reuse it, as one plugin module does), with a nested object and two
 * secrets; the document holds a global section for every namespace (with
 * secrets) and, in each scope, a section for every tenth namespace.
 * - time of one global describe and of one scoped describe (target ≤ 50 ms),
 *   medians over repeated calls after one unrecorded cold call;
 * - `JSON.stringify` of the global describe result, which the wire pays on
 *   top of the describe (report, next to the describe itself);
 * - heap per registered instance: `heapUsed` after a forced GC before and
 *   after the 10,000 scoped registrations, divided by 10,000 (target ≤ 10 KB).
 *   The handles stay referenced, as a plugin keeps its own.
 *
 * A forced GC needs `--expose-gc`, which `pnpm bench` does not pass, so this
 * measurement runs in a child process forked with it (which also keeps the
 * heap figure free of the other measurements' garbage). If `gc` is still
 * unavailable the row says so and the heap figure includes uncollected garbage.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import Schema from 'schemastery'
import { createScope, type Scope } from 'dsh-scope'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsDocument } from 'dsh-settings'
import { bootProvider, mount, namespaces, type Row } from './harness.ts'
import { median, now, summarize } from './stats.ts'

const KINDS = 1000
const SCOPES = 10
const RUNS = 7
const CHILD_ENV = 'DSH_BENCH_CHILD'
const CHILD_TIMEOUT_MS = 90_000

/**
 * The schema of one kind, built anew per call: each kind gets its own schema
 * object, as each real plugin builds its own; a kind's global and scoped
 * registrations share that kind's object, as one plugin module does.
 */
function buildDescribeSchema() {
  return Schema.object({
    engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo'),
    limit: Schema.natural().max(1000).default(10),
    nested: Schema.object({
      enabled: Schema.boolean().default(false),
      token: Schema.string().role('secret'),
      depth: Schema.object({ level: Schema.natural().default(1) }),
    }),
    apiKey: Schema.string().role('secret'),
    tags: Schema.array(String).default([]),
  })
}

interface ChildResult {
  gcAvailable: boolean
  globalMs: number[]
  scopedMs: number[]
  /** `JSON.stringify` of each global describe result, as the wire encodes it. */
  jsonMs: number[]
  jsonBytes: number
  coldGlobalMs: number
  coldScopedMs: number
  heapPerInstanceBytes: number
  heapPerGlobalRegistrationBytes: number
  registerGlobalMs: number
  registerScopedMs: number
  descriptors: number
}

function collect(gc: (() => void) | undefined): number {
  gc?.()
  gc?.()
  return process.memoryUsage().heapUsed
}

/** The measurement itself, in the child. */
async function measure(): Promise<ChildResult> {
  const gc = (globalThis as { gc?: () => void }).gc
  const names = namespaces(KINDS)
  const scopeIds = Array.from({ length: SCOPES }, (_, index) => `preset/p${index}`)
  const document: SettingsDocument = Object.fromEntries(
    names.map((ns, index) => [ns, { engine: 'bing', apiKey: `sk-global-${index}`, nested: { enabled: true, token: `tok-${index}` } }]),
  )
  document.scopes = Object.fromEntries(
    scopeIds.map((scope) => [scope, Object.fromEntries(names.filter((_, index) => index % 10 === 0).map((ns) => [ns, { engine: 'google', apiKey: `sk-${scope}` }]))]),
  )
  const schemas = names.map(() => buildDescribeSchema())
  const booted = await bootProvider(MemorySettingsProvider, { document })
  const scopes: Scope[] = []
  try {
    const keep: unknown[] = []
    const heap0 = collect(gc)
    let start = now()
    const global = await mount(booted.root, (ctx) => names.map((ns, index) => ctx.settings.register(ns, schemas[index]!, { base: { limit: index % 100 } })))
    const registerGlobalMs = now() - start
    keep.push(global)
    const heap1 = collect(gc)
    start = now()
    for (const name of scopeIds) {
      const scope = createScope(booted.root, { name })
      scopes.push(scope)
      keep.push(await mount(scope.ctx, (ctx) => names.map((ns, index) => ctx.settings.register(ns, schemas[index]!))))
    }
    const registerScopedMs = now() - start
    const heap2 = collect(gc)

    const settings = booted.settings
    const check = (descriptors: unknown[], scope?: string) => {
      if (descriptors.length !== KINDS) throw new Error(`describe${scope ? ` ${scope}` : ''} returned ${descriptors.length} descriptors`)
      if (/sk-|tok-/.test(JSON.stringify(descriptors))) throw new Error('describe({ redactSecrets: true }) leaked a secret')
    }
    let last: unknown[] = []
    const describeMs = (scope?: string) => {
      const begin = now()
      const descriptors = settings.describe(scope ? { redactSecrets: true, scope } : { redactSecrets: true })
      const ms = now() - begin
      check(descriptors, scope)
      last = descriptors
      return ms
    }
    let jsonBytes = 0
    const stringifyMs = () => {
      const begin = now()
      const json = JSON.stringify(last)
      const ms = now() - begin
      jsonBytes = Buffer.byteLength(json)
      return ms
    }
    const coldGlobalMs = describeMs()
    stringifyMs()
    const coldScopedMs = describeMs(scopeIds[0])
    const globalMs: number[] = []
    const scopedMs: number[] = []
    const jsonMs: number[] = []
    for (let run = 0; run < RUNS; run++) {
      globalMs.push(describeMs())
      jsonMs.push(stringifyMs())
      scopedMs.push(describeMs(scopeIds[run % SCOPES]))
    }
    // The handles stay referenced until every heap reading and describe is done.
    if (keep.length !== SCOPES + 1) throw new Error('a registering plugin went missing')
    return {
      gcAvailable: typeof gc === 'function',
      globalMs,
      scopedMs,
      jsonMs,
      jsonBytes,
      coldGlobalMs,
      coldScopedMs,
      heapPerInstanceBytes: (heap2 - heap1) / (KINDS * SCOPES),
      heapPerGlobalRegistrationBytes: (heap1 - heap0) / KINDS,
      registerGlobalMs,
      registerScopedMs,
      descriptors: KINDS,
    }
  } finally {
    for (const scope of scopes) await scope.dispose()
    await booted.dispose()
  }
}

/** Fork this file with `--expose-gc` and collect its result. */
function runChild(): Promise<ChildResult> {
  const file = fileURLToPath(import.meta.url)
  const root = fileURLToPath(new URL('../../', import.meta.url))
  return new Promise((resolve, reject) => {
    const child = fork(file, [], {
      cwd: root,
      execArgv: ['--expose-gc', '--conditions=source', '--import', 'tsx'],
      env: { ...process.env, [CHILD_ENV]: 'describe' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let result: ChildResult | undefined
    let failure: string | undefined
    const timer = setTimeout(() => {
      failure = `describe child did not finish within ${CHILD_TIMEOUT_MS} ms`
      child.kill('SIGKILL')
    }, CHILD_TIMEOUT_MS)
    child.on('message', (message: { result?: ChildResult; error?: string }) => {
      if (message.result) result = message.result
      if (message.error) failure = message.error
    })
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (result && code === 0) resolve(result)
      else reject(new Error(failure ?? `describe child exited with ${signal ?? code}`))
    })
  })
}

export async function benchDescribe(): Promise<Row[]> {
  const result = await runChild()
  const globalMs = median(result.globalMs)
  const scopedMs = median(result.scopedMs)
  const jsonMs = median(result.jsonMs)
  const perInstanceKB = result.heapPerInstanceBytes / 1024
  const gcNote = result.gcAvailable ? 'forced GC (--expose-gc) before each heap reading' : 'gc unavailable: heap figures include uncollected garbage'
  return [
    {
      id: 'describe.global',
      measurement: `describe({ redactSecrets }) global, ${KINDS} kinds`,
      ours: globalMs,
      comparisonLabel: 'the 50 ms target',
      unit: 'ms',
      target: '≤ 50 ms',
      met: globalMs <= 50,
      detail: { runs: RUNS, summary: summarize(result.globalMs), samples: result.globalMs, coldMs: result.coldGlobalMs },
    },
    {
      id: 'describe.scoped',
      measurement: `describe({ redactSecrets, scope }), ${KINDS} kinds`,
      ours: scopedMs,
      comparisonLabel: 'the 50 ms target',
      unit: 'ms',
      target: '≤ 50 ms',
      met: scopedMs <= 50,
      detail: { runs: RUNS, summary: summarize(result.scopedMs), samples: result.scopedMs, coldMs: result.coldScopedMs },
    },
    {
      id: 'describe.json',
      measurement: `JSON.stringify of that global describe (${(result.jsonBytes / 1024).toFixed(0)} KB)`,
      ours: jsonMs,
      comparison: globalMs,
      comparisonLabel: 'the global describe itself',
      unit: 'ms',
      ratio: jsonMs / globalMs,
      ratioKind: 'ours/comparison',
      target: 'report',
      detail: { runs: RUNS, summary: summarize(result.jsonMs), samples: result.jsonMs, bytes: result.jsonBytes },
    },
    {
      id: 'describe.heap',
      measurement: `heap per registered instance (${KINDS * SCOPES} scoped)`,
      ours: perInstanceKB,
      comparisonLabel: 'the 10 KB target',
      unit: 'KB',
      target: '≤ 10 KB',
      met: perInstanceKB <= 10,
      detail: {
        gc: gcNote,
        heapPerInstanceBytes: result.heapPerInstanceBytes,
        heapPerGlobalRegistrationBytes: result.heapPerGlobalRegistrationBytes,
        note: 'per global registration includes creating the kind (schema envelope, canonical form)',
      },
    },
    {
      id: 'describe.register',
      measurement: 'register() time per scoped instance',
      ours: (result.registerScopedMs * 1000) / (KINDS * SCOPES),
      comparisonLabel: 'none (report only)',
      unit: 'µs',
      target: 'report',
      detail: { registerGlobalMs: result.registerGlobalMs, registerScopedMs: result.registerScopedMs, instances: KINDS * (SCOPES + 1) },
    },
  ]
}

if (process.env[CHILD_ENV] === 'describe') {
  measure().then(
    (result) => process.send!({ result }, () => process.disconnect()),
    (error: unknown) => {
      process.send!({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }, () => {
        process.exitCode = 1
        process.disconnect()
      })
    },
  )
}
