/**
 * The burst with realistic arrivals: 1,000 `update()`s across 100 namespaces
 * of one YAML document (file provider, `watch: false`), issued one per
 * millisecond instead of all in one tick, and how many file writes group
 * commit needed for them (counted by the write spy of burst.ts).
 *
 * Pacing: a 1 ms timer loop issues every update whose time has come (update j
 * is due j ms after the start), so the average rate stays one per millisecond
 * even when a timer fires late or a write holds the event loop; the row's
 * detail says how far behind schedule the issuing fell. Each update is not
 * awaited before the next is issued (callers are independent), and the run
 * ends once every one of them settled.
 */
import { writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import FileSettingsProvider from 'dsh-settings-file'
import { spyWrites } from './burst.ts'
import { bootProvider, buildPluginSchema, mount, namespaces, removeTemp, tempDir, yamlDocument, type Row } from './harness.ts'
import { median, now, summarize } from './stats.ts'

const UPDATES = 1000
const NAMESPACES = 100
const RUNS = 3

/** Run the paced burst {@link RUNS} times on one provider and report the median count of file writes. */
export async function benchPacedBurst(): Promise<Row[]> {
  const names = namespaces(NAMESPACES)
  const dir = await tempDir('paced')
  const file = resolve(dir, 'settings.yaml')
  await writeFile(file, yamlDocument(names), { mode: 0o600 })
  const spy = spyWrites(file)
  const booted = await bootProvider(FileSettingsProvider, { path: file, watch: false })
  try {
    const schemas = names.map(() => buildPluginSchema())
    const { value: handles } = await mount(booted.root, (ctx) => names.map((ns, index) => ctx.settings.register(ns, schemas[index]!)))
    const runs: { writes: number; ms: number; issueMs: number; maxLagMs: number }[] = []
    for (let run = 0; run < RUNS; run++) {
      const value = (j: number) => 1 + run * UPDATES + j
      const before = spy.count()
      const pending: Promise<void>[] = []
      let maxLagMs = 0
      const start = now()
      await new Promise<void>((done) => {
        const tick = () => {
          const elapsed = now() - start
          const due = Math.min(UPDATES, Math.floor(elapsed) + 1)
          if (pending.length < due) maxLagMs = Math.max(maxLagMs, elapsed - pending.length)
          while (pending.length < due) {
            const j = pending.length
            pending.push(handles[j % NAMESPACES]!.update({ counter: value(j) }))
          }
          if (pending.length < UPDATES) setTimeout(tick, 1)
          else done()
        }
        tick()
      })
      const issueMs = now() - start
      await Promise.all(pending)
      const ms = now() - start
      const writes = spy.count() - before
      handles.forEach((handle, index) => {
        if (handle.get().counter !== value(UPDATES - NAMESPACES + index)) throw new Error(`paced burst run ${run}: ${names[index]} lost an update`)
      })
      if (writes === 0) throw new Error('the write spy counted no document write for a paced burst that changed the document')
      runs.push({ writes, ms, issueMs, maxLagMs })
    }
    const writes = median(runs.map((run) => run.writes))
    return [
      {
        id: 'burst.paced.writes',
        measurement: `${UPDATES} update()s, one per ms, ${NAMESPACES} ns: writes / 1,000`,
        ours: writes,
        comparison: UPDATES,
        comparisonLabel: 'one file write per update (no group commit)',
        unit: 'writes',
        ratio: writes / UPDATES,
        ratioKind: 'ours/comparison',
        target: 'report',
        detail: { runs, wall: summarize(runs.map((run) => run.ms)), pacing: '1 ms timer loop issuing every due update', counting: 'new versions placed at the document (in-process fs spy)', warnings: booted.warnings },
      },
    ]
  } finally {
    spy.restore()
    await booted.dispose()
    await removeTemp(dir)
  }
}
