/**
 * Measurement 1: reading a value.
 * - the owner handle's `get()` (what `ctx.settings.register` returns) against
 *   `Map.get` of a frozen object, ns/op over millions of calls (target ≤ 1.5×);
 * - `ctx.settings.get(ns)`, which goes through cordis's service proxy (report only).
 *
 * Loop design: each loop rotates over 16 namespaces (`i & 15`) and adds a
 * number from every result to a sink that is returned and checked against the
 * expected sum, so V8 can neither drop the calls nor hoist one load out of the
 * loop. The Map holds the very frozen objects the handles return, so both
 * loops read the same shapes; each loop lives in its own function so their
 * type feedback stays separate. Runs alternate which loop goes first.
 */
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsScope } from 'dsh-settings'
import type { Context } from 'cordis'
import { bootProvider, mount, namespaces, PluginSchema, type PluginSettings, type Row } from './harness.ts'
import { median, now } from './stats.ts'

const KEYS = 16
const CALLS = 5_000_000
const PROXY_CALLS = 5_000
const RUNS = 7

function handleLoop(handles: readonly SettingsScope<PluginSettings>[], calls: number): number {
  let sink = 0
  for (let i = 0; i < calls; i++) sink += handles[i & 15]!.get().limit
  return sink
}

function mapLoop(map: Map<string, PluginSettings>, keys: readonly string[], calls: number): number {
  let sink = 0
  for (let i = 0; i < calls; i++) sink += map.get(keys[i & 15]!)!.limit
  return sink
}

function proxyLoop(ctx: Context, keys: readonly string[], calls: number): number {
  let sink = 0
  for (let i = 0; i < calls; i++) sink += (ctx.settings.get(keys[i & 15]!) as PluginSettings).limit
  return sink
}

/** ns per call of `loop`, checking its sink. */
function nsPerCall(loop: () => number, calls: number, expected: number): number {
  const start = now()
  const sink = loop()
  const elapsed = now() - start
  if (sink !== expected) throw new Error(`read loop produced ${sink}, expected ${expected}`)
  return (elapsed * 1e6) / calls
}

export async function benchReads(): Promise<Row[]> {
  const booted = await bootProvider(MemorySettingsProvider, {})
  try {
    const keys = namespaces(KEYS)
    const { value: plugin } = await mount(booted.root, (ctx) => ({
      ctx,
      handles: keys.map((ns, index) => ctx.settings.register(ns, PluginSchema, { base: { limit: index + 1 } })),
    }))
    const { handles, ctx } = plugin
    const map = new Map(keys.map((ns, index) => [ns, handles[index]!.get()]))
    for (const value of map.values()) if (!Object.isFrozen(value)) throw new Error('handle values are expected to be frozen')

    const expected = (calls: number) => {
      let sum = 0
      for (let i = 0; i < calls; i++) sum += (i & 15) + 1
      return sum
    }
    const expectedCalls = expected(CALLS)
    const expectedProxy = expected(PROXY_CALLS)

    // Warm-up: let both loops reach optimized code before anything is recorded.
    nsPerCall(() => handleLoop(handles, CALLS), CALLS, expectedCalls)
    nsPerCall(() => mapLoop(map, keys, CALLS), CALLS, expectedCalls)
    nsPerCall(() => proxyLoop(ctx, keys, PROXY_CALLS), PROXY_CALLS, expectedProxy)

    const handleRuns: number[] = []
    const mapRuns: number[] = []
    const proxyRuns: number[] = []
    for (let run = 0; run < RUNS; run++) {
      const measureHandle = () => handleRuns.push(nsPerCall(() => handleLoop(handles, CALLS), CALLS, expectedCalls))
      const measureMap = () => mapRuns.push(nsPerCall(() => mapLoop(map, keys, CALLS), CALLS, expectedCalls))
      if (run % 2) {
        measureMap()
        measureHandle()
      } else {
        measureHandle()
        measureMap()
      }
      proxyRuns.push(nsPerCall(() => proxyLoop(ctx, keys, PROXY_CALLS), PROXY_CALLS, expectedProxy))
    }

    const handle = median(handleRuns)
    const mapGet = median(mapRuns)
    const proxy = median(proxyRuns)
    return [
      {
        id: 'read.handle',
        measurement: 'handle get() vs Map.get (frozen)',
        ours: handle,
        comparison: mapGet,
        comparisonLabel: 'Map.get of a frozen object',
        unit: 'ns/op',
        ratio: handle / mapGet,
        ratioKind: 'ours/comparison',
        target: '≤ 1.5×',
        met: handle / mapGet <= 1.5,
        detail: { callsPerRun: CALLS, runs: RUNS, handleRuns, mapRuns },
      },
      {
        id: 'read.proxy',
        measurement: 'ctx.settings.get(ns) via service proxy',
        ours: proxy,
        comparison: mapGet,
        comparisonLabel: 'Map.get of a frozen object',
        unit: 'ns/op',
        ratio: proxy / mapGet,
        ratioKind: 'ours/comparison',
        target: 'report',
        detail: { callsPerRun: PROXY_CALLS, runs: RUNS, proxyRuns },
      },
    ]
  } finally {
    await booted.dispose()
  }
}
