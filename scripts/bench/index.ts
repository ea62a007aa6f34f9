/**
 * `pnpm bench`: measure the settings seam, the file provider and the wire
 * against their targets (issue 3, section 3; issue 12), print a table and write
 * bench-results.json at the repository root. Not a test: a missed target is
 * reported, not failed; the exit code is non-zero only when a measurement
 * could not run.
 *
 * `pnpm bench --scale` adds the scaling grids (10 to 10,000 namespaces, 1 KB
 * to 10 MB sections; see scale.ts) and the goal rows they decide.
 *
 * Every figure is a median over repeated runs (watch latency: p50/p95 over its
 * samples), and every comparison is measured in the same run as our figure;
 * every row names what it is compared with.
 */
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { benchCheck } from './check.ts'
import { benchBurstVsConf } from './conf.ts'
import { benchSingleVsConf } from './conf-single.ts'
import { benchDescribe } from './describe.ts'
import { benchDshGet } from './dsh-get.ts'
import { markdownTable } from './format.ts'
import { readCommandLine } from '../lib/command-line.ts'
import { removeAllTemps, type Row } from './harness.ts'
import { benchPacedBurst } from './paced.ts'
import { benchPage } from './page.ts'
import { benchPostgres } from './postgres.ts'
import { benchReads } from './reads.ts'
import { benchScale, type ScaleGrid } from './scale.ts'
import { now } from './stats.ts'
import { benchUpdate } from './update.ts'
import { benchWatchLatency } from './watch-latency.ts'
import { benchWire } from './wire.ts'

const RESULTS = fileURLToPath(new URL('../../bench-results.json', import.meta.url))

const USAGE = `usage: pnpm bench [--scale]

Measure the settings seam, the file provider, the wire, PostgreSQL, the
settings page (in chromium, when it is installed) and dsh settings get from the
installed bin against their targets; print a table and write bench-results.json
at the repository root.

  --scale     add the scaling grids (10 to 10,000 namespaces, 1 KB to 10 MB sections)
              and the boot of a 1 MB document in each of four shapes vs js-yaml
  -h, --help  print this help and run nothing

Exit code: 0 every measurement ran (a missed target is reported, not failed),
2 a measurement could not run, or a usage error.`

const measurements: [string, () => Promise<Row[]>][] = [
  ['reads', benchReads],
  ['update', benchUpdate],
  ['update vs conf.set', benchSingleVsConf],
  ['burst + conf', benchBurstVsConf],
  ['paced burst', benchPacedBurst],
  ['watch latency', benchWatchLatency],
  ['describe + heap (child with --expose-gc)', benchDescribe],
  ['wire (deployment + client process)', benchWire],
  ['postgres', benchPostgres],
  ['settings check, 40,000 keys vs the file provider\'s boot', benchCheck],
  ['settings page in chromium (10, 100, 1,000 namespaces)', benchPage],
  ['dsh settings get, installed bin (no host, then a host running; beside npm config get and git config --get)', benchDshGet],
]

function figure(value: number | undefined, unit: string, lowerBound = false): string {
  if (value === undefined || Number.isNaN(value)) return '—'
  const prefix = lowerBound ? '> ' : ''
  if (unit === 'writes') return prefix + String(Math.round(value * 10) / 10)
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${prefix}${value.toFixed(digits)} ${unit}`
}

function ratioText(row: Row): string {
  if (row.ratio === undefined) return '—'
  const digits = row.ratio >= 100 ? 0 : row.ratio >= 10 ? 1 : 2
  return row.ratioKind === 'speed-up' ? `${row.ratio.toFixed(digits)}× faster` : `${row.ratio.toFixed(digits)}×`
}

function ratioOrBound(row: Row): string {
  const text = ratioText(row)
  return row.lowerBound && row.ratio !== undefined ? `> ${text}` : text
}

function table(rows: readonly Row[]): string {
  const header = ['measurement', 'ours', 'compared with', 'comparison', 'ratio', 'target', 'met?']
  const body = rows.map((row) => [
    row.measurement,
    figure(row.ours, row.unit, row.lowerBound),
    row.comparisonLabel ?? '—',
    figure(row.comparison, row.unit),
    ratioOrBound(row),
    row.target,
    row.met === undefined ? '—' : row.met ? 'yes' : 'NO',
  ])
  return markdownTable(header, body)
}

function printGrid(grid: ScaleGrid): void {
  console.log(`\n${grid.title}\n`)
  console.log(grid.table)
  for (const note of grid.notes) console.log(`- ${note}`)
}

async function main(): Promise<number> {
  const line = readCommandLine<{ scale?: boolean }>(process.argv.slice(2), USAGE, { scale: { type: 'boolean' } })
  if ('exit' in line) return line.exit
  const args = { scale: line.values.scale === true }
  const started = now()
  const rows: Row[] = []
  const grids: ScaleGrid[] = []
  const failures: { measurement: string; error: string }[] = []
  const timings: Record<string, number> = {}
  const steps: [string, () => Promise<Row[]>][] = [...measurements]
  if (args.scale) {
    steps.push([
      'scale (one child per size, time-budgeted)',
      async () => {
        process.stderr.write('\n')
        const result = await benchScale((line) => process.stderr.write(`  ${line}\n`))
        grids.push(...result.grids)
        return result.rows
      },
    ])
  }
  try {
    for (const [name, run] of steps) {
      const begin = now()
      process.stderr.write(`bench: ${name}…`)
      try {
        rows.push(...(await run()))
        process.stderr.write(` ${((now() - begin) / 1000).toFixed(1)} s\n`)
      } catch (error) {
        process.stderr.write(' failed\n')
        console.error(error)
        failures.push({ measurement: name, error: error instanceof Error ? error.message : String(error) })
      }
      timings[name] = now() - begin
    }
  } finally {
    await removeAllTemps()
  }
  const totalMs = now() - started
  console.log(table(rows))
  for (const grid of grids) printGrid(grid)
  const missed = rows.filter((row) => row.met === false)
  console.log(`\n${rows.filter((row) => row.met !== undefined).length - missed.length} of ${rows.filter((row) => row.met !== undefined).length} targets met` + (missed.length ? `; missed: ${missed.map((row) => row.id).join(', ')}` : ''))
  if (failures.length) console.log(`measurements that could not run: ${failures.map((failure) => failure.measurement).join(', ')}`)
  console.log(`total ${(totalMs / 1000).toFixed(1)} s; results in ${RESULTS}`)
  const results = {
    date: new Date().toISOString(),
    environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemoryMB: Math.round(totalmem() / 2 ** 20) },
    scale: args.scale,
    totalMs,
    timingsMs: timings,
    rows,
    scaleGrids: grids.map((grid) => grid.data),
    failures,
  }
  await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n')
  return failures.length ? 1 : 0
}

process.exitCode = await main()
