/**
 * Measurement 5: an external edit of the document → the owner's `watch`
 * callback, p50/p95.
 *
 * Ours: the file provider with `debounceMs: 100` and its real (chokidar)
 * watcher on a temp dir holding the 100-namespace YAML document. The bench
 * rewrites the file in place (`writeFile`, as `echo >` or an editor writing in
 * place does), changing one namespace's `counter`, and times from just before
 * the write until that namespace's watch callback runs with the new value.
 * Edits are spaced by a pause longer than the debounce plus the watcher's
 * trailing re-check, so every sample starts from a quiet watcher. The periodic
 * re-check (`recheckMs`) is turned off: with it on, a tick landing inside a
 * debounce window would publish early and flatter the figure; this way every
 * sample measures the watcher path itself.
 *
 * conf: `watch: true` with `onDidChange` on the edited key. On Linux conf uses
 * `fs.watchFile` (stat polling, Node's default 5,007 ms interval) followed by a
 * 1,000 ms debounce, so one sample can take up to ~6 s. Sequential samples would
 * take two minutes, so the samples run on SAMPLES independent conf stores (one
 * temp `cwd` each) whose edits are staggered evenly across one polling
 * interval: the samples cover every phase of the poll, just as a long series of
 * edits on one store would, and all finish in about 7 s.
 *
 * Targets: our p50 ≤ debounceMs + 20 ms, and conf's p50 ≥ 10× ours.
 */
import Conf from 'conf'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import FileSettingsProvider from 'dsh-settings-file'
import { bootProvider, mount, namespaces, plainDocument, PluginSchema, removeTemp, tempDir, yamlDocument, type Row } from './harness.ts'
import { now, percentile, sleep, summarize } from './stats.ts'

const SAMPLES = 20
const DEBOUNCE_MS = 100
/** Longer than the debounce plus the watcher's trailing re-check (75 ms). */
const PAUSE_MS = 300
const NAMESPACES = 100
/** Node's default `fs.watchFile` interval, which conf uses. */
const WATCH_FILE_INTERVAL_MS = 5007
const TIMEOUT_MS = 10_000

/** A promise for the first value `accept` takes, rejecting after `ms`. */
function waiter(ms: number, what: string) {
  let settle!: (at: number) => void
  let timer: ReturnType<typeof setTimeout> | undefined
  const promise = new Promise<number>((resolve, reject) => {
    settle = (at) => {
      clearTimeout(timer)
      resolve(at)
    }
    timer = setTimeout(() => reject(new Error(`${what}: no watch callback within ${ms} ms`)), ms)
  })
  return { promise, settle }
}

async function oursLatencies(): Promise<{ samples: number[]; writes: number[]; warnings: string[] }> {
  const dir = await tempDir('watch')
  const file = join(dir, 'settings.yaml')
  const names = namespaces(NAMESPACES)
  const watched = names[0]!
  await writeFile(file, yamlDocument(names), { mode: 0o600 })
  const booted = await bootProvider(FileSettingsProvider, { path: file, watch: true, debounceMs: DEBOUNCE_MS, recheckMs: 0 })
  try {
    let pending: { counter: number; settle(at: number): void } | undefined
    await mount(booted.root, (ctx) => {
      const handles = names.map((ns) => ctx.settings.register(ns, PluginSchema))
      handles[0]!.watch((next) => {
        const at = now()
        if (pending && next.counter === pending.counter) pending.settle(at)
      })
      return handles
    })
    await sleep(PAUSE_MS) // let the ready-time reconcile finish
    const samples: number[] = []
    /** How long each in-place write itself took (the clock starts before it). */
    const writes: number[] = []
    for (let sample = 1; sample <= SAMPLES; sample++) {
      const wait = waiter(TIMEOUT_MS, `ours, sample ${sample}`)
      pending = { counter: sample, settle: wait.settle }
      const text = yamlDocument(names, { [watched]: sample })
      const start = now()
      await writeFile(file, text)
      writes.push(now() - start)
      samples.push((await wait.promise) - start)
      pending = undefined
      await sleep(PAUSE_MS)
    }
    return { samples, writes, warnings: booted.warnings }
  } finally {
    await booted.dispose()
    await removeTemp(dir)
  }
}

async function confLatencies(): Promise<number[]> {
  const names = namespaces(NAMESPACES)
  const watched = names[0]!
  const stores: { dir: string; conf: Conf<Record<string, unknown>> }[] = []
  try {
    for (let index = 0; index < SAMPLES; index++) {
      const dir = await tempDir('conf-watch')
      await writeFile(join(dir, 'config.json'), JSON.stringify(plainDocument(names), null, '\t'), { mode: 0o600 })
      stores.push({ dir, conf: new Conf<Record<string, unknown>>({ cwd: dir, watch: true }) })
    }
    await sleep(500) // fs.watchFile takes its first stat asynchronously
    const spacing = WATCH_FILE_INTERVAL_MS / SAMPLES
    const samples = await Promise.all(
      stores.map(async ({ dir, conf }, index) => {
        const counter = index + 1
        let wait: ReturnType<typeof waiter> | undefined
        const unsubscribe = conf.onDidChange(watched, (next) => {
          const at = now()
          if ((next as { counter?: number } | undefined)?.counter === counter) wait?.settle(at)
        })
        try {
          await sleep(index * spacing)
          const document = plainDocument(names)
          ;(document[watched] as { counter: number }).counter = counter
          wait = waiter(TIMEOUT_MS, `conf, store ${index}`)
          const start = now()
          await writeFile(join(dir, 'config.json'), JSON.stringify(document, null, '\t'))
          return (await wait.promise) - start
        } finally {
          unsubscribe()
        }
      }),
    )
    return samples
  } finally {
    for (const { dir, conf } of stores) {
      conf._closeWatcher()
      await removeTemp(dir)
    }
  }
}

export async function benchWatchLatency(): Promise<Row[]> {
  const ours = await oursLatencies()
  const conf = await confLatencies()
  const oursP50 = percentile(ours.samples, 50)
  const oursP95 = percentile(ours.samples, 95)
  const confP50 = percentile(conf, 50)
  const confP95 = percentile(conf, 95)
  const detail = { samples: SAMPLES, debounceMs: DEBOUNCE_MS, pauseMs: PAUSE_MS, ours: summarize(ours.samples), conf: summarize(conf), oursSamples: ours.samples, oursWriteMs: ours.writes, oursP50FromWriteEnd: percentile(ours.samples.map((ms, index) => ms - ours.writes[index]!), 50), confSamples: conf, warnings: ours.warnings }
  return [
    {
      id: 'watch.p50',
      measurement: `edit → watch callback p50 (debounce ${DEBOUNCE_MS} ms)`,
      ours: oursP50,
      comparison: confP50,
      comparisonLabel: 'conf watch: true, onDidChange',
      unit: 'ms',
      target: `≤ ${DEBOUNCE_MS + 20} ms`,
      met: oursP50 <= DEBOUNCE_MS + 20,
      detail,
    },
    {
      id: 'watch.speedup',
      measurement: 'edit → watch callback p50: vs conf',
      ours: oursP50,
      comparison: confP50,
      comparisonLabel: 'conf watch: true, onDidChange',
      unit: 'ms',
      ratio: confP50 / oursP50,
      ratioKind: 'speed-up',
      target: '≥ 10× faster',
      met: confP50 / oursP50 >= 10,
    },
    {
      id: 'watch.p95',
      measurement: 'edit → watch callback p95',
      ours: oursP95,
      comparison: confP95,
      comparisonLabel: 'conf watch: true, onDidChange',
      unit: 'ms',
      ratio: confP95 / oursP95,
      ratioKind: 'speed-up',
      target: 'report',
    },
  ]
}
