/**
 * Boot by shape, part of `pnpm bench --scale`: for each shape a user writes a
 * large section in (shapes.ts), the file provider's boot of a 1 MB document up
 * to its namespace registered and read once, against js-yaml 4's `load` of the same text in
 * the same child (shape-child.ts, one budgeted child per shape). Target: ≤ 2×
 * for every shape (issue 36).
 */
import { runBudgeted } from './child.ts'
import { duration, fixed, markdownTable } from './format.ts'
import { removeTemp, tempDir, type Row } from './harness.ts'
import type { ScaleGrid } from './scale.ts'
import { SHAPE_JOB_ENV, type ShapeJob, type ShapeMessage, type ShapeResult } from './shape-child.ts'
import { SHAPE_TITLES, SHAPES, type Shape } from './shapes.ts'
import { median, summarize } from './stats.ts'

const CHILD = new URL('./shape-child.ts', import.meta.url).pathname
const BYTES = 1024 * 1024
const BUDGET_MS = 40_000
const LIMIT = 2

/** One shape's outcome: its figures, or why there are none. */
interface ShapeRun {
  shape: Shape
  result?: ShapeResult
  missing?: string
}

async function runShape(shape: Shape): Promise<ShapeRun> {
  const dir = await tempDir(`boot-${shape}`)
  try {
    const job: ShapeJob = { shape, bytes: BYTES, dir, budgetMs: BUDGET_MS }
    const outcome = await runBudgeted<ShapeMessage>(CHILD, { [SHAPE_JOB_ENV]: JSON.stringify(job) }, BUDGET_MS)
    const result = outcome.messages.find((message): message is { result: ShapeResult } => 'result' in message)?.result
    if (result?.boot.length) return { shape, result }
    return { shape, missing: outcome.overBudget ? 'over budget' : `failed: ${outcome.error?.split('\n')[0] ?? 'no figures'}` }
  } finally {
    await removeTemp(dir)
  }
}

/** The goal row of one shape for the main table. */
function shapeRow(run: ShapeRun): Row {
  const row: Row = {
    id: `scale.boot-1mb-${run.shape}`,
    measurement: `boot of a 1 MB document + registration, ${SHAPE_TITLES[run.shape]}, vs js-yaml`,
    ours: Number.NaN,
    comparisonLabel: 'js-yaml 4 load() of the same text, same run',
    unit: 'ms',
    target: `≤ ${LIMIT}×`,
  }
  if (!run.result) return { ...row, measurement: `${row.measurement} (${run.missing})` }
  const ours = median(run.result.boot)
  const comparison = median(run.result.jsyaml)
  const ratio = ours / comparison
  return {
    ...row,
    ours,
    comparison,
    ratio,
    ratioKind: 'ours/comparison',
    met: ratio <= LIMIT,
    detail: { documentBytes: run.result.documentBytes, reduced: run.result.reduced, boot: summarize(run.result.boot), firstGet: summarize(run.result.firstGet), jsyaml: summarize(run.result.jsyaml), warnings: run.result.warnings },
  }
}

/** The boot cell: the median, with (n=…) when the time ran out before every sample, or why there is none. */
function bootText(run: ShapeRun, row: Row): string {
  if (!run.result) return run.missing ?? '—'
  return `${duration(row.ours)}${run.result.reduced ? ` (n=${run.result.boot.length})` : ''}`
}

/** Time every shape, one child after another; `progress` hears one line per shape. */
export async function benchBootShapes(progress: (line: string) => void = () => {}): Promise<{ rows: Row[]; grid: ScaleGrid }> {
  const runs: ShapeRun[] = []
  for (const shape of SHAPES) {
    const run = await runShape(shape)
    progress(`boot of a 1 MB ${shape} document${run.missing ? ` (${run.missing})` : ''}`)
    runs.push(run)
  }
  const rows = runs.map(shapeRow)
  const body = rows.map((row, index) => [
    SHAPE_TITLES[runs[index]!.shape],
    bootText(runs[index]!, row),
    row.comparison === undefined ? '—' : duration(row.comparison),
    row.ratio === undefined ? '—' : `${fixed(row.ratio)}×`,
    row.target,
    row.met === undefined ? '—' : row.met ? 'yes' : 'NO',
  ])
  const cell = (values: number[] | undefined) => (values?.length ? { value: median(values), n: values.length } : { missing: 'not measured' })
  const grid: ScaleGrid = {
    title: 'scale: boot of a 1 MB document by shape (file provider + its registration vs js-yaml 4 load() of the same text)',
    table: markdownTable(['shape', 'boot + registration', 'js-yaml load()', 'ratio', 'target', 'met?'], body),
    notes: [`Medians of up to 7 samples per shape after one warm-up round, boot and load() in turns in one child per shape (budget ${BUDGET_MS / 1000} s); each sample's document differs in a leading comment. The warm-up checks that the provider served the document's data.`],
    data: {
      title: 'boot by shape',
      sizes: runs.map((run) => ({ label: run.shape, overBudget: run.missing === 'over budget', ms: 0 })),
      lines: [
        { label: 'boot + registration', compared: 'js-yaml load()', target: `≤ ${LIMIT}×`, cells: runs.map((run) => cell(run.result?.boot)) },
        { label: 'js-yaml load()', compared: '—', target: 'report', cells: runs.map((run) => cell(run.result?.jsyaml)) },
      ],
    },
  }
  return { rows, grid }
}
