/**
 * One result row per scenario, its verdict, and the printed table (in the
 * style of scripts/bench: padded columns between pipes).
 */

/** What one scenario did and what it found. */
export interface Row {
  /** Stable id, for tooling that reads torture-results.json. */
  id: string
  scenario: string
  /** Wall time of the scenario, set by the runner. */
  seconds?: number
  /** Operations that succeeded and were checked (acked writes, lock acquisitions, tried faults). */
  ops: number
  kills: number
  edits: number
  /** Loss and violation counts: every one must be 0. */
  mustBeZero: Record<string, number>
  /** Context that is reported, not judged. */
  figures: Record<string, number | string>
  /** `skipped` when the scenario could not run here (the note says why); `crashed` when it threw. */
  status?: 'skipped' | 'crashed'
  note?: string
  /** Anything that helps reproduce a finding (error messages, stderr of children). */
  detail?: Record<string, unknown>
}

/** A row fails when it crashed or any of its loss/violation counts is not 0. */
export function failed(row: Row): boolean {
  return row.status === 'crashed' || Object.values(row.mustBeZero).some((count) => count !== 0)
}

/** `pass`, `FAIL`, `CRASHED` or `skipped`. */
export function verdict(row: Row): string {
  if (row.status === 'crashed') return 'CRASHED'
  if (row.status === 'skipped') return 'skipped'
  return failed(row) ? 'FAIL' : 'pass'
}

const list = (entries: Record<string, number | string>) =>
  Object.entries(entries)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ')

/** The results table: one line per row. */
export function table(rows: readonly Row[]): string {
  const header = ['scenario', 'time', 'ops', 'kills', 'edits', 'lost / violations (must be 0)', 'other figures', 'result']
  const body = rows.map((row) => [
    row.scenario,
    row.seconds === undefined ? '—' : `${row.seconds.toFixed(1)} s`,
    String(row.ops),
    String(row.kills),
    String(row.edits),
    list(row.mustBeZero) || '—',
    (list(row.figures) || '—') + (row.note ? ` (${row.note})` : ''),
    verdict(row),
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)))
  const line = (cells: string[]) => '| ' + cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ') + ' |'
  return [line(header), '|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|', ...body.map(line)].join('\n')
}
