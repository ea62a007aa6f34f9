/**
 * `pnpm bench`: measure the settings seam and the file provider against their
 * targets (issue 3, section 3), print a table and write bench-results.json at
 * the repository root. Not a test: a missed target is reported, not failed;
 * the exit code is non-zero only when a measurement could not run.
 *
 * Every figure is a median over repeated runs (watch latency: p50/p95 over its
 * samples), and every comparison is measured in the same run as our figure.
 */
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { benchBurstVsConf } from './conf.ts'
import { benchDescribe } from './describe.ts'
import { removeAllTemps, type Row } from './harness.ts'
import { benchReads } from './reads.ts'
import { now } from './stats.ts'
import { benchUpdate } from './update.ts'
import { benchWatchLatency } from './watch-latency.ts'

const RESULTS = fileURLToPath(new URL('../../bench-results.json', import.meta.url))

const measurements: [string, () => Promise<Row[]>][] = [
  ['reads', benchReads],
  ['update', benchUpdate],
  ['burst + conf', benchBurstVsConf],
  ['watch latency', benchWatchLatency],
  ['describe + heap (child with --expose-gc)', benchDescribe],
]

function figure(value: number | undefined, unit: string): string {
  if (value === undefined) return '—'
  if (unit === 'writes') return String(value)
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
  return `${value.toFixed(digits)} ${unit}`
}

function ratioText(row: Row): string {
  if (row.ratio === undefined) return '—'
  const digits = row.ratio >= 100 ? 0 : row.ratio >= 10 ? 1 : 2
  return row.ratioKind === 'speed-up' ? `${row.ratio.toFixed(digits)}× faster` : `${row.ratio.toFixed(digits)}×`
}

function table(rows: readonly Row[]): string {
  const header = ['measurement', 'ours', 'comparison', 'ratio', 'target', 'met?']
  const body = rows.map((row) => [
    row.measurement,
    figure(row.ours, row.unit),
    figure(row.comparison, row.unit),
    ratioText(row),
    row.target,
    row.met === undefined ? '—' : row.met ? 'yes' : 'NO',
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)))
  const line = (cells: string[]) => '| ' + cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ') + ' |'
  return [line(header), '|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|', ...body.map(line)].join('\n')
}

async function main(): Promise<number> {
  const started = now()
  const rows: Row[] = []
  const failures: { measurement: string; error: string }[] = []
  const timings: Record<string, number> = {}
  try {
    for (const [name, run] of measurements) {
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
  const missed = rows.filter((row) => row.met === false)
  console.log(`\n${rows.filter((row) => row.met !== undefined).length - missed.length} of ${rows.filter((row) => row.met !== undefined).length} targets met` + (missed.length ? `; missed: ${missed.map((row) => row.id).join(', ')}` : ''))
  if (failures.length) console.log(`measurements that could not run: ${failures.map((failure) => failure.measurement).join(', ')}`)
  console.log(`total ${(totalMs / 1000).toFixed(1)} s; results in ${RESULTS}`)
  const results = {
    date: new Date().toISOString(),
    environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemoryMB: Math.round(totalmem() / 2 ** 20) },
    totalMs,
    timingsMs: timings,
    rows,
    failures,
  }
  await writeFile(RESULTS, JSON.stringify(results, null, 2) + '\n')
  return failures.length ? 1 : 0
}

process.exitCode = await main()
