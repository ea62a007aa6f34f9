/**
 * Measurements 3 and 4: the 1,000-update burst (ours, see burst.ts) and the
 * same 1,000 updates through `conf@15.1.0`, the settings store a user would
 * otherwise pick. Each of our namespaces is one conf key holding the same
 * section; update j becomes `conf.set('<ns>.counter', value)` (conf's dot
 * notation, i.e. a patch of one field, like our `update({ counter })`). conf's
 * API is synchronous, so its 1,000 calls run back to back; every call re-reads
 * and rewrites the whole JSON file atomically (with fsync).
 *
 * Runs are paired: each run does our burst, then conf's, in the same process,
 * so the ratio compares figures taken side by side. conf gets a fresh temp
 * `cwd` per run, seeded with the same 100 sections.
 * Target: ours ≥ 10× faster than conf; ours ≤ 20 file writes.
 */
import Conf from 'conf'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { OursBurst, NAMESPACES, UPDATES, type BurstRun } from './burst.ts'
import { namespaces, plainDocument, removeTemp, tempDir, type Row } from './harness.ts'
import { median, now, summarize } from './stats.ts'

const RUNS = 5

/** One run of the same burst through conf; returns its wall time in ms. */
async function confBurst(run: number): Promise<number> {
  const names = namespaces(NAMESPACES)
  const dir = await tempDir('conf')
  try {
    await writeFile(join(dir, 'config.json'), JSON.stringify(plainDocument(names), null, '\t'), { mode: 0o600 })
    const conf = new Conf<Record<string, unknown>>({ cwd: dir })
    const start = now()
    for (let j = 0; j < UPDATES; j++) conf.set(`${names[j % NAMESPACES]}.counter`, run * UPDATES + j + 1)
    const ms = now() - start
    names.forEach((ns, index) => {
      const expected = run * UPDATES + UPDATES - NAMESPACES + index + 1
      if (conf.get(`${ns}.counter`) !== expected) throw new Error(`conf run ${run}: ${ns} lost an update`)
    })
    return ms
  } finally {
    await removeTemp(dir)
  }
}

export async function benchBurstVsConf(): Promise<Row[]> {
  const ours = new OursBurst()
  const oursRuns: BurstRun[] = []
  const confRuns: number[] = []
  try {
    await ours.setup()
    await ours.run() // warm-up, not recorded
    for (let run = 0; run < RUNS; run++) {
      oursRuns.push(await ours.run())
      confRuns.push(await confBurst(run))
    }
    await ours.verifyOnDisk()
  } finally {
    await ours.teardown()
  }
  const oursMs = median(oursRuns.map((run) => run.ms))
  const writes = median(oursRuns.map((run) => run.writes))
  const confMs = median(confRuns)
  return [
    {
      id: 'burst.wall',
      measurement: `${UPDATES} concurrent update()s, ${NAMESPACES} ns: wall`,
      ours: oursMs,
      comparisonLabel: 'none (report only)',
      unit: 'ms',
      target: 'report',
      detail: { runs: RUNS, ours: summarize(oursRuns.map((run) => run.ms)), oursRuns, warnings: ours.warnings },
    },
    {
      id: 'burst.writes',
      measurement: `${UPDATES} concurrent update()s: file writes`,
      ours: writes,
      comparisonLabel: 'the ≤ 20 writes target (all 1,000 issued in one tick)',
      unit: 'writes',
      target: '≤ 20',
      met: Math.max(...oursRuns.map((run) => run.writes)) <= 20,
      detail: { writesPerRun: oursRuns.map((run) => run.writes), counting: 'renames onto the document (in-process fs/promises spy)' },
    },
    {
      id: 'burst.conf',
      measurement: `same ${UPDATES} updates: ours vs conf@15.1.0`,
      ours: oursMs,
      comparison: confMs,
      comparisonLabel: 'conf.set per update',
      unit: 'ms',
      ratio: confMs / oursMs,
      ratioKind: 'speed-up',
      target: '≥ 10× faster',
      met: confMs / oursMs >= 10,
      detail: { runs: RUNS, conf: summarize(confRuns), confRuns, pairedSpeedups: confRuns.map((ms, index) => ms / oursRuns[index]!.ms) },
    },
  ]
}
