/**
 * The child side of `pnpm bench --scale`: one size of one scaling dimension,
 * run in its own process (forked by scale.ts through `runBudgeted`, with
 * `--expose-gc`), reporting each phase as soon as it is measured.
 *
 * - `namespaces`: a YAML document of N ~120-byte sections, N distinct schema
 *   objects (one per namespace, as plugins build their own). Phases: boot of
 *   the file provider up to all N registered (and the heap that adds), one
 *   awaited `update()` through an owner handle next to the I/O floor of the
 *   same bytes, `describe({ redactSecrets: true })` and its `JSON.stringify`,
 *   the same update on the settings core alone (`dsh-settings/memory`: repeat
 *   writes to at most 100 namespaces, whose first writes are reported apart), and an
 *   in-place external edit until the owner's watch callback.
 * - `section`: a document whose `big` section holds about N bytes of YAML (a
 *   list of small records) beside nine ordinary sections. Phases: boot, a
 *   one-field update next to the I/O floor, and the reload after an external
 *   edit (edit → watch callback). Each boot is followed by js-yaml 4's `load`
 *   of the same text, the comparison of the boot.
 *
 * Repetitions adapt to the time each phase has: a phase whose first (cold) run
 * already takes a third of its share reports that run alone, and every phase
 * stops repeating once its share is spent. The parent's budget covers the rest.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { load as loadYaml } from 'js-yaml'
import FileSettingsProvider from 'dsh-settings-file'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsScope } from 'dsh-settings'
import { childMain, gcAvailable, heapUsed, report } from './child.ts'
import { bootProvider, buildPluginSchema, mount, namespaces, plainDocument, yamlDocument, type Booted } from './harness.ts'
import { now, sleep } from './stats.ts'
import { floorWrite } from './update.ts'

/** Environment variable carrying the JSON {@link ScaleJob} of one child. */
export const SCALE_JOB_ENV = 'DSH_BENCH_SCALE_JOB'

/** The watcher's settle window in the watch and reload phases (the file provider's default). */
export const SCALE_DEBOUNCE_MS = 100

/** What one scale child measures; `dir` is a temp directory the parent made and removes. */
export type ScaleJob = { kind: 'namespaces'; count: number; dir: string; budgetMs: number } | { kind: 'section'; bytes: number; dir: string; budgetMs: number }

/** A phase of a child's work; the parent learns when each one starts. */
export type ScalePhase = 'boot' | 'update' | 'describe' | 'core' | 'watch' | 'reload'

/** One measured figure of a phase: its samples in ms (or bytes for sizes), and how they were taken. */
export interface ScaleResult {
  metric: 'boot' | 'heap' | 'update' | 'describe' | 'json' | 'core' | 'watch' | 'reload' | 'jsyaml'
  samples: number[]
  /** The I/O floor measured right after each update sample (update only). */
  floor?: number[]
  /** The first write to each namespace the core phase then times (core only). */
  first?: number[]
  /** Fewer repetitions than planned, because the phase's share of the budget ran out. */
  reduced: boolean
  /** Numbers that describe the sample: document bytes, JSON bytes, debounce… */
  info?: Record<string, number | boolean>
}

/** A message from a scale child: a phase starts, or a figure is ready. */
export type ScaleMessage = { start: ScalePhase } | { result: ScaleResult }

/** How many repetitions a phase aims for, and its share of the child's budget. */
const PLAN = {
  boot: { runs: 5, share: 0.15 },
  update: { runs: 20, share: 0.2 },
  describe: { runs: 10, share: 0.08 },
  core: { runs: 100, share: 0.08 },
  watch: { runs: 5, share: 0.2 },
  reload: { runs: 5, share: 0.25 },
} as const

/** Above the file provider's 8 MiB default, so the 10 MB section loads at all. */
const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
/** Pause after a watch sample: longer than the debounce plus the watcher's trailing re-check. */
const WATCH_PAUSE_MS = SCALE_DEBOUNCE_MS + 150

/**
 * Run `run` once cold (plus `warmup - 1` more unrecorded runs when that was
 * quick), then again while the phase has time left, up to `runs` recorded
 * samples. A cold run that already used a third of `budgetMs` is the only sample.
 */
async function sampled<T>(runs: number, budgetMs: number, run: (index: number) => Promise<T>, ms: (result: T) => number, warmup = 1): Promise<{ results: T[]; reduced: boolean }> {
  const start = now()
  let index = 0
  const cold = await run(index++)
  if (ms(cold) > budgetMs / 3) return { results: [cold], reduced: true }
  let last = ms(cold)
  while (index < warmup && now() - start + last < budgetMs / 3) last = ms(await run(index++))
  const results: T[] = []
  while (results.length < runs) {
    if (results.length > 0 && now() - start + last > budgetMs) break
    const result = await run(index++)
    last = ms(result)
    results.push(result)
  }
  return { results, reduced: results.length < runs }
}

const start = (phase: ScalePhase) => report<ScaleMessage>({ start: phase })
const result = (figure: ScaleResult) => report<ScaleMessage>({ result: figure })

/** A promise for the moment `accept` first holds for a watched value, failing after `ms`. */
function waitFor<T>(handle: SettingsScope<T>, accept: (value: T) => boolean, ms: number): { promise: Promise<number>; dispose(): void } {
  let stop = () => {}
  let timer: ReturnType<typeof setTimeout> | undefined
  const promise = new Promise<number>((resolve, reject) => {
    stop = handle.watch((next) => {
      if (accept(next)) resolve(now())
    })
    timer = setTimeout(() => reject(new Error(`no watch callback within ${ms} ms`)), ms)
  })
  return {
    promise,
    dispose() {
      clearTimeout(timer)
      stop()
    },
  }
}

/** Boot a provider and register `register` on it; the time is the whole way to the last registration. */
async function bootAndRegister<H>(plugin: unknown, config: unknown, register: (booted: Booted) => Promise<H>): Promise<{ ms: number; booted: Booted; handles: H }> {
  const begin = now()
  const booted = await bootProvider(plugin, config)
  try {
    const handles = await register(booted)
    return { ms: now() - begin, booted, handles }
  } catch (error) {
    await booted.dispose()
    throw error
  }
}

/**
 * Boot repeatedly (each disposed, except the last) while the boot phase has
 * time, keeping the last instance. The heap figure is taken around the first
 * boot, so every size reports the same thing (a later boot of the same text
 * may reuse what an earlier one left in a cache).
 */
async function bootSamples<H>(
  budgetMs: number,
  boot: () => Promise<{ ms: number; booted: Booted; handles: H }>,
  beside?: () => number,
): Promise<{ samples: number[]; besideSamples: number[]; reduced: boolean; heapBytes: number; booted: Booted; handles: H }> {
  const samples: number[] = []
  const besideSamples: number[] = []
  const begin = now()
  let heapBytes: number | undefined
  for (;;) {
    const before = heapBytes === undefined ? heapUsed() : 0
    const instance = await boot()
    samples.push(instance.ms)
    heapBytes ??= heapUsed() - before
    if (beside) besideSamples.push(beside())
    const spent = now() - begin
    if (samples.length >= PLAN.boot.runs || spent + instance.ms > budgetMs) {
      return { samples, besideSamples, reduced: samples.length < PLAN.boot.runs, heapBytes, booted: instance.booted, handles: instance.handles }
    }
    await instance.booted.dispose()
  }
}

/** Update samples through `handles` (round robin), each followed by a floor write of the bytes it left in `file`. */
async function updateVsFloor(budgetMs: number, file: string, floorFile: string, handles: readonly SettingsScope<{ counter: number }>[]): Promise<ScaleResult> {
  let counter = 0
  const { results, reduced } = await sampled(
    PLAN.update.runs,
    budgetMs,
    async (index) => {
      const handle = handles[index % handles.length]!
      counter++
      const begin = now()
      await handle.update({ counter })
      const ours = now() - begin
      if (handle.get().counter !== counter) throw new Error('update did not commit')
      const text = await readFile(file, 'utf8')
      const floorBegin = now()
      await floorWrite(floorFile, text)
      return { ours, floor: now() - floorBegin, bytes: Buffer.byteLength(text) }
    },
    (sample) => sample.ours + sample.floor,
  )
  return { metric: 'update', samples: results.map((r) => r.ours), floor: results.map((r) => r.floor), reduced, info: { documentBytes: results[0]!.bytes } }
}

/** Watch samples: rewrite `file` in place with `text(k)` and time until `accept(value, k)` holds in a watch callback. */
async function watchSamples<T>(metric: 'watch' | 'reload', budgetMs: number, file: string, handle: SettingsScope<T>, text: (k: number) => string, accept: (value: T, k: number) => boolean): Promise<ScaleResult> {
  await sleep(WATCH_PAUSE_MS) // the ready-time reconcile
  const { results, reduced } = await sampled(
    PLAN[metric].runs,
    budgetMs,
    async (index) => {
      const k = index + 1
      const content = text(k)
      const wait = waitFor(handle, (value) => accept(value, k), Math.max(10_000, budgetMs))
      try {
        const begin = now()
        await writeFile(file, content)
        const ms = (await wait.promise) - begin
        await sleep(WATCH_PAUSE_MS)
        return ms
      } finally {
        wait.dispose()
      }
    },
    (ms) => ms + WATCH_PAUSE_MS,
  )
  return { metric, samples: results, reduced, info: { debounceMs: SCALE_DEBOUNCE_MS, inPlaceWrite: true } }
}

/**
 * Boot, write and dispose a small document once before anything is measured,
 * so the first measured boot (and its heap figure) does not also pay for
 * loading modules and compiling the code every size runs.
 */
async function warmUp(dir: string): Promise<void> {
  const names = namespaces(10)
  const file = join(dir, 'warm-up.yaml')
  await writeFile(file, yamlDocument(names), { mode: 0o600 })
  const booted = await bootProvider(FileSettingsProvider, { path: file, watch: false })
  try {
    const { value } = await mount(booted.root, (ctx) => names.map((ns) => ctx.settings.register(ns, buildPluginSchema())))
    await value[0]!.update({ counter: 1 })
    booted.settings.describe({ redactSecrets: true })
  } finally {
    await booted.dispose()
  }
  // Let what the disposed instance still had scheduled run out, so it is not freed inside the heap reading.
  await sleep(300)
}

async function namespacesJob(count: number, dir: string, budgetMs: number): Promise<void> {
  const names = namespaces(count)
  // One schema object per namespace, built separately, as each plugin builds its own.
  const schemas = names.map(() => buildPluginSchema())
  const file = join(dir, 'settings.yaml')
  const floorFile = join(dir, 'floor.yaml')
  const text = yamlDocument(names)
  await writeFile(file, text, { mode: 0o600 })
  await writeFile(floorFile, text, { mode: 0o600 })
  const register = (booted: Booted) => mount(booted.root, (ctx) => names.map((ns, index) => ctx.settings.register(ns, schemas[index]!))).then(({ value }) => value)

  await warmUp(dir)
  await start('boot')
  const boot = await bootSamples(budgetMs * PLAN.boot.share, () => bootAndRegister(FileSettingsProvider, { path: file, watch: false }, register))
  try {
    await result({ metric: 'boot', samples: boot.samples, reduced: boot.reduced, info: { documentBytes: Buffer.byteLength(text) } })
    await result({ metric: 'heap', samples: [boot.heapBytes / count], reduced: false, info: { gc: gcAvailable, heapBytes: boot.heapBytes } })

    await start('update')
    await result(await updateVsFloor(budgetMs * PLAN.update.share, file, floorFile, boot.handles))

    await start('describe')
    const settings = boot.booted.settings
    let jsonBytes = 0
    const describe = await sampled(
      PLAN.describe.runs,
      budgetMs * PLAN.describe.share,
      async () => {
        const begin = now()
        const descriptors = settings.describe({ redactSecrets: true })
        const describeMs = now() - begin
        if (descriptors.length !== count) throw new Error(`describe returned ${descriptors.length} descriptors for ${count} namespaces`)
        const jsonBegin = now()
        const json = JSON.stringify(descriptors)
        const jsonMs = now() - jsonBegin
        jsonBytes = Buffer.byteLength(json)
        return { describeMs, jsonMs }
      },
      (sample) => sample.describeMs + sample.jsonMs,
    )
    await result({ metric: 'describe', samples: describe.results.map((r) => r.describeMs), reduced: describe.reduced })
    await result({ metric: 'json', samples: describe.results.map((r) => r.jsonMs), reduced: describe.reduced, info: { jsonBytes } })
  } finally {
    await boot.booted.dispose()
  }

  await start('core')
  const core = await bootAndRegister(MemorySettingsProvider, { document: plainDocument(names) }, register)
  try {
    let counter = 0
    const timedUpdate = async (handle: SettingsScope<{ counter: number }>) => {
      counter++
      const begin = now()
      await handle.update({ counter })
      return now() - begin
    }
    // Every size times repeat writes to the same number of namespaces (at most one per run), each written once
    // first: otherwise 10,000 namespaces would time first writes, whose data and schema no write has touched
    // since boot, against 10 namespaces' hot ones. The first writes are reported apart.
    const written = core.handles.slice(0, Math.min(count, PLAN.core.runs))
    const first: number[] = []
    for (const handle of written) first.push(await timedUpdate(handle))
    const { results, reduced } = await sampled(PLAN.core.runs, budgetMs * PLAN.core.share, (index) => timedUpdate(written[index % written.length]!), (ms) => ms, 10)
    await result({ metric: 'core', samples: results, first, reduced })
  } finally {
    await core.booted.dispose()
  }

  await start('watch')
  const watched = names[0]!
  await writeFile(file, text) // back to the document the other phases started from
  const watching = await bootAndRegister(FileSettingsProvider, { path: file, watch: true, debounceMs: SCALE_DEBOUNCE_MS, recheckMs: 0 }, register)
  try {
    await result(
      await watchSamples('watch', budgetMs * PLAN.watch.share, file, watching.handles[0]!, (k) => yamlDocument(names, { [watched]: 1000 + k }), (value, k) => value.counter === 1000 + k),
    )
  } finally {
    await watching.booted.dispose()
  }
}

/** The schema of the large section: a counter and a list of small records. */
function buildBigSchema() {
  return Schema.object({
    counter: Schema.natural().default(0),
    entries: Schema.array(
      Schema.object({
        id: Schema.string(),
        note: Schema.string().default(''),
        weight: Schema.natural().default(0),
      }),
    ).default([]),
  })
}

/** A YAML document whose `big` section is about `bytes` long, after nine ordinary sections. */
function sectionDocument(bytes: number, counter: number, small: readonly string[]): string {
  const head = yamlDocument(small)
  const lines = ['# the large section', 'big:', `  counter: ${counter}`, '  entries:']
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0)
  for (let index = 0; size < bytes; index++) {
    const id = String(index).padStart(7, '0')
    const record = [`    - id: e-${id}`, `      note: "record ${id} of the large section"`, `      weight: ${index % 997}`]
    lines.push(...record)
    size += record.reduce((sum, line) => sum + line.length + 1, 0)
  }
  return `${head}\n${lines.join('\n')}\n`
}

async function sectionJob(bytes: number, dir: string, budgetMs: number): Promise<void> {
  const small = namespaces(9)
  const smallSchemas = small.map(() => buildPluginSchema())
  const bigSchema = buildBigSchema()
  const file = join(dir, 'settings.yaml')
  const floorFile = join(dir, 'floor.yaml')
  const text = sectionDocument(bytes, 0, small)
  await writeFile(file, text, { mode: 0o600 })
  await writeFile(floorFile, text, { mode: 0o600 })
  const register = (booted: Booted) =>
    mount(booted.root, (ctx) => {
      small.forEach((ns, index) => ctx.settings.register(ns, smallSchemas[index]!))
      return ctx.settings.register('big', bigSchema)
    }).then(({ value }) => value)
  const config = { path: file, maxDocumentBytes: MAX_DOCUMENT_BYTES }

  await warmUp(dir)
  await start('boot')
  // js-yaml 4's load of the same text, right after each boot: the fastest well-kept YAML reader on npm, for the boot row.
  const jsYamlLoad = () => {
    const begin = now()
    loadYaml(text)
    return now() - begin
  }
  jsYamlLoad()
  const boot = await bootSamples(budgetMs * PLAN.boot.share, () => bootAndRegister(FileSettingsProvider, { ...config, watch: false }, register), jsYamlLoad)
  try {
    const entries = boot.handles.get().entries.length
    await result({ metric: 'boot', samples: boot.samples, reduced: boot.reduced, info: { documentBytes: Buffer.byteLength(text), sectionEntries: entries } })
    await result({ metric: 'jsyaml', samples: boot.besideSamples, reduced: boot.reduced })
    await start('update')
    await result(await updateVsFloor(budgetMs * PLAN.update.share, file, floorFile, [boot.handles]))
  } finally {
    await boot.booted.dispose()
  }

  await start('reload')
  await writeFile(file, text)
  const watching = await bootAndRegister(FileSettingsProvider, { ...config, watch: true, debounceMs: SCALE_DEBOUNCE_MS, recheckMs: 0 }, register)
  try {
    await result(await watchSamples('reload', budgetMs * PLAN.reload.share, file, watching.handles, (k) => sectionDocument(bytes, 1000 + k, small), (value, k) => value.counter === 1000 + k))
  } finally {
    await watching.booted.dispose()
  }
}

const raw = process.env[SCALE_JOB_ENV]
if (raw) {
  const job = JSON.parse(raw) as ScaleJob
  childMain(() => (job.kind === 'namespaces' ? namespacesJob(job.count, job.dir, job.budgetMs) : sectionJob(job.bytes, job.dir, job.budgetMs)))
}
