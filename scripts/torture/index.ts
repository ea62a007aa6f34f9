/**
 * `pnpm torture [--quick] [--only id,id]`: run timed adversarial scenarios
 * against the real file provider in real child processes, print one row per
 * scenario (operations, kills, edits, and what was lost: must be 0), and write
 * torture-results.json at the repository root. Not part of `pnpm test`.
 *
 * `--quick` runs each scenario for a few seconds (CI); the full run takes about
 * nine minutes. The exit code is 1 when any loss or violation count is not 0
 * or a scenario crashed.
 */
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { readCommandLine } from '../lib/command-line.ts'
import { commandTrust } from './command.ts'
import { externalReaders } from './external-readers.ts'
import { faults } from './faults.ts'
import { fuzz } from './fuzz.ts'
import { handEdits } from './hand-edits.ts'
import { cleanUpNow } from './harness.ts'
import { killStorm } from './kill-storm.ts'
import { lockContention } from './lock-contention.ts'
import { lockInterleavings } from './lock-interleavings.ts'
import { postgresHosts } from './postgres-hosts.ts'
import { realFiles } from './real-files.ts'
import { failed, table, verdict, type Row } from './report.ts'
import { secretScan } from './secret-scan.ts'

const RESULTS = fileURLToPath(new URL('../../torture-results.json', import.meta.url))

/** A scenario: its id, its title, how many seconds it runs (quick, full), and the run. */
interface Scenario {
  id: string
  title: string
  seconds: { quick: number; full: number }
  run(seconds: number): Promise<Row[]>
}

const scenarios: Scenario[] = [
  { id: 'kill-storm', title: 'kill storm', seconds: { quick: 12, full: 100 }, run: killStorm },
  { id: 'hand-edits', title: 'hand edits', seconds: { quick: 12, full: 90 }, run: handEdits },
  // Three outside readers, writers, kills and hand edits at once; the full run must read at least 100,000 times.
  { id: 'external-readers', title: 'external readers', seconds: { quick: 10, full: 60 }, run: externalReaders },
  { id: 'lock', title: 'lock interleavings', seconds: { quick: 8, full: 60 }, run: lockInterleavings },
  { id: 'lock-contention', title: 'lock contention', seconds: { quick: 8, full: 60 }, run: lockContention },
  // Seconds per fault (three faults).
  { id: 'faults', title: 'faults', seconds: { quick: 1, full: 8 }, run: faults },
  { id: 'fuzz', title: 'fuzz', seconds: { quick: 8, full: 40 }, run: fuzz },
  // The browser part (about 6 s, once per run) is inside these seconds.
  { id: 'secrets', title: 'secret scan', seconds: { quick: 10, full: 40 }, run: secretScan },
  { id: 'postgres', title: 'postgres hosts', seconds: { quick: 10, full: 60 }, run: postgresHosts },
  // Every stage runs once whatever the budget (about a minute here); the seconds are for repeats with random variations.
  { id: 'real-files', title: 'real files', seconds: { quick: 5, full: 60 }, run: realFiles },
  // One round (a host, 14 real commands, every record kind) takes about 15 s here whatever the budget.
  { id: 'command', title: 'command', seconds: { quick: 5, full: 60 }, run: commandTrust },
]

const USAGE = `usage: pnpm torture [--quick] [--only <id>,<id>…]

Run adversarial scenarios against the real providers in real processes, print
what was tried and what was lost (must be 0), and write torture-results.json at
the repository root. The full run takes about 9 minutes.

  --quick            a few seconds per scenario (about 2 minutes; what CI runs)
  --only <ids>       only these scenarios, comma-separated: ${scenarios.map((scenario) => scenario.id).join(', ')}
  -h, --help         print this help and run nothing

Exit code: 0 nothing lost, 1 a scenario lost something or crashed, 2 usage error.`

/** The scenarios `--only` names that do not exist, as a refusal; `undefined` when all do. */
function unknownScenarios(values: { only?: string }): string | undefined {
  const unknown = values.only?.split(',').filter((id) => !scenarios.some((scenario) => scenario.id === id))
  return unknown?.length ? `unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((scenario) => scenario.id).join(', ')}` : undefined
}

async function main(): Promise<number> {
  const line = readCommandLine<{ quick?: boolean; only?: string }>(process.argv.slice(2), USAGE, { quick: { type: 'boolean' }, only: { type: 'string' } }, unknownScenarios)
  if ('exit' in line) return line.exit
  const quick = line.values.quick === true
  const only = line.values.only?.split(',')
  const started = performance.now()
  const rows: Row[] = []
  try {
    for (const scenario of scenarios) {
      if (only && !only.includes(scenario.id)) continue
      const seconds = quick ? scenario.seconds.quick : scenario.seconds.full
      const begin = performance.now()
      process.stderr.write(`torture: ${scenario.title} (${seconds} s)…`)
      let produced: Row[]
      try {
        produced = await scenario.run(seconds)
      } catch (error) {
        console.error(error)
        const message = error instanceof Error ? error.message : String(error)
        produced = [{ id: scenario.id, scenario: scenario.title, ops: 0, kills: 0, edits: 0, mustBeZero: {}, figures: {}, status: 'crashed', note: message }]
      }
      const elapsed = (performance.now() - begin) / 1000
      // One figure per scenario run; rows of one run share it.
      for (const row of produced) rows.push({ ...row, seconds: row.seconds ?? elapsed / produced.length })
      process.stderr.write(` ${elapsed.toFixed(1)} s: ${produced.map(verdict).join(', ')}\n`)
    }
  } finally {
    cleanUpNow()
  }
  const totalMs = performance.now() - started
  console.log(table(rows))
  const failing = rows.filter(failed)
  const skipped = rows.filter((row) => row.status === 'skipped')
  for (const row of rows) {
    const notes = (row.detail?.notes as string[] | undefined) ?? []
    if (failed(row) && notes.length) console.log(`\n${row.scenario}:\n${notes.map((note) => `  - ${note}`).join('\n')}`)
  }
  console.log(
    `\n${failing.length ? `FAILED: ${failing.map((row) => row.scenario).join(', ')}` : `nothing lost: ${rows.length - skipped.length} of ${rows.length} scenarios passed`}` +
      (skipped.length ? `, ${skipped.length} skipped` : '') +
      `; ${quick ? 'quick run' : 'full run'}, total ${(totalMs / 1000).toFixed(1)} s; results in ${RESULTS}`,
  )
  const results = {
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemoryMB: Math.round(totalmem() / 2 ** 20) },
    totalMs,
    passed: failing.length === 0,
    rows: rows.map((row) => ({ ...row, result: verdict(row) })),
  }
  await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n')
  return failing.length ? 1 : 0
}

process.exitCode = await main().catch((error: unknown) => {
  console.error(error)
  return 2
})
