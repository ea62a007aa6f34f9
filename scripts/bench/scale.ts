/**
 * `pnpm bench --scale`: how the costs grow with the number of namespaces
 * (10 / 100 / 1,000 / 10,000) and with the size of one section (1 KB / 100 KB
 * / 1 MB / 10 MB). Each size runs in its own child process (scale-child.ts)
 * under a time budget, one after another; a size that runs out of budget is
 * killed and its unfinished figures print as "over budget" (with the time the
 * unfinished phase had already taken as a lower bound), so the whole run stays
 * within a few minutes whatever the code under test does.
 *
 * The result is two grids (one per dimension; each cell a median, with its
 * growth over the previous size per 10× step) and the rows of the issue 12
 * goals that the grids decide, for the main table; then the boot of a 1 MB
 * document in each shape a user writes (boot-shapes.ts), its own grid and rows.
 */
import { duration, fixed, markdownTable, size as bytesText } from './format.ts'
import { benchBootShapes } from './boot-shapes.ts'
import { runBudgeted } from './child.ts'
import { removeTemp, tempDir, type Row } from './harness.ts'
import { SCALE_DEBOUNCE_MS, SCALE_JOB_ENV, type ScaleJob, type ScaleMessage, type ScalePhase, type ScaleResult } from './scale-child.ts'
import { median, summarize, type Summary } from './stats.ts'

const CHILD = new URL('./scale-child.ts', import.meta.url).pathname

/** Sizes of each dimension, with the time budget of the child that measures it. */
const NAMESPACE_SIZES = [
  { count: 10, budgetMs: 30_000 },
  { count: 100, budgetMs: 30_000 },
  { count: 1_000, budgetMs: 40_000 },
  { count: 10_000, budgetMs: 50_000 },
] as const
const KB = 1024
const SECTION_SIZES = [
  { bytes: KB, label: '1 KB', budgetMs: 30_000 },
  { bytes: 100 * KB, label: '100 KB', budgetMs: 30_000 },
  { bytes: KB * KB, label: '1 MB', budgetMs: 40_000 },
  { bytes: 10 * KB * KB, label: '10 MB', budgetMs: 50_000 },
] as const

type Metric = ScaleResult['metric']

/** Which phase produces which figures (to attribute a kill to the figures it cut short). */
const PHASE_OF: Record<Metric, ScalePhase> = { boot: 'boot', heap: 'boot', jsyaml: 'boot', update: 'update', describe: 'describe', json: 'describe', core: 'core', watch: 'watch', reload: 'reload' }

/** What one child reported for one size. */
interface SizeRun {
  label: string
  /** The size in the dimension's own unit (namespaces, or bytes), for the per-10× growth. */
  magnitude: number
  budgetMs: number
  results: Map<Metric, ScaleResult>
  overBudget: boolean
  /** The phase that was running when the budget ran out, and for how long it had run. */
  cut?: { phase: ScalePhase; ms: number }
  error?: string
  ms: number
}

/** One cell of a grid: a median, or why there is none. */
interface Cell {
  value?: number
  /** The cell's phase ran at least this long without finishing (over budget). */
  lowerBound?: number
  n?: number
  reduced?: boolean
  missing?: string
  summary?: Summary
}

/** One line of a grid: how to read a figure out of a size's run, and what it is judged on. */
interface Line {
  label: string
  compared: string
  format(value: number): string
  cell(run: SizeRun): Cell
  /** Print the growth over the previous size. */
  growth: boolean
  target: string
  /** The verdict, from the line's cells (undefined: report only). */
  met?(cells: Cell[]): boolean | undefined
}

/** A printed grid, and its figures for bench-results.json. */
export interface ScaleGrid {
  title: string
  table: string
  notes: string[]
  data: { title: string; sizes: { label: string; overBudget: boolean; cut?: SizeRun['cut']; error?: string; ms: number }[]; lines: { label: string; compared: string; target: string; met?: boolean; cells: Cell[] }[] }
}

async function runSize(job: ScaleJob, label: string, magnitude: number): Promise<SizeRun> {
  const outcome = await runBudgeted<ScaleMessage>(CHILD, { [SCALE_JOB_ENV]: JSON.stringify(job) }, job.budgetMs)
  const results = new Map<Metric, ScaleResult>()
  let running: { phase: ScalePhase; at: number } | undefined
  outcome.messages.forEach((message, index) => {
    if ('start' in message) running = { phase: message.start, at: outcome.times[index]! }
    else results.set(message.result.metric, message.result)
  })
  const run: SizeRun = { label, magnitude, budgetMs: job.budgetMs, results, overBudget: outcome.overBudget, ms: outcome.ms }
  if (outcome.overBudget && running) run.cut = { phase: running.phase, ms: outcome.ms - running.at }
  if (outcome.error !== undefined) run.error = outcome.error
  return run
}

/**
 * A cell from one metric's samples (`pick` maps the result to the samples to
 * take the median of). `bounded: false` for a figure that an unfinished phase
 * does not bound (the floor measured beside an update).
 */
function cellOf(run: SizeRun, metric: Metric, pick: (result: ScaleResult) => number[] | undefined = (result) => result.samples, bounded = true): Cell {
  const result = run.results.get(metric)
  const samples = result && pick(result)
  if (samples?.length) return { value: median(samples), n: samples.length, reduced: result!.reduced, summary: summarize(samples) }
  if (bounded && run.cut && run.cut.phase === PHASE_OF[metric]) return { lowerBound: run.cut.ms, missing: 'over budget' }
  if (run.overBudget) return { missing: 'over budget' }
  return { missing: run.error ? 'failed' : 'not measured' }
}

/** `a / b` as a cell, when both have values. */
function ratioCell(a: Cell, b: Cell): Cell {
  if (a.value !== undefined && b.value !== undefined) return { value: a.value / b.value }
  return { missing: a.missing ?? b.missing ?? 'not measured' }
}

function cellText(cell: Cell, format: (value: number) => string, growth?: number): string {
  if (cell.value === undefined) return cell.lowerBound !== undefined ? `> ${format(cell.lowerBound)} (${cell.missing})` : (cell.missing ?? '—')
  const parts = [format(cell.value)]
  if (cell.reduced && cell.n !== undefined) parts.push(`(n=${cell.n})`)
  if (growth !== undefined) parts.push(`×${fixed(growth)}`)
  return parts.join(' ')
}

/** Growth of `cell` over `previous`, per 10× step of the dimension (a 100× step counts as two). */
function growthPerDecade(cell: Cell, previous: Cell | undefined, magnitude: number, previousMagnitude: number | undefined): number | undefined {
  if (cell.value === undefined || previous?.value === undefined || previousMagnitude === undefined || previous.value <= 0) return undefined
  const steps = Math.log10(magnitude / previousMagnitude)
  return (cell.value / previous.value) ** (1 / steps)
}

function grid(title: string, runs: SizeRun[], lines: Line[], notes: string[]): ScaleGrid {
  const body: string[][] = []
  const data: ScaleGrid['data'] = {
    title,
    sizes: runs.map((run) => ({ label: run.label, overBudget: run.overBudget, ...(run.cut ? { cut: run.cut } : {}), ...(run.error ? { error: run.error } : {}), ms: run.ms })),
    lines: [],
  }
  for (const line of lines) {
    const cells = runs.map((run) => line.cell(run))
    const met = line.met?.(cells)
    const texts = cells.map((cell, index) => {
      const growth = line.growth && index > 0 ? growthPerDecade(cell, cells[index - 1], runs[index]!.magnitude, runs[index - 1]!.magnitude) : undefined
      return cellText(cell, line.format, growth)
    })
    body.push([line.label, ...texts, line.compared, line.target, met === undefined ? '—' : met ? 'yes' : 'NO'])
    data.lines.push({ label: line.label, compared: line.compared, target: line.target, ...(met === undefined ? {} : { met }), cells })
  }
  const failed = runs.filter((run) => run.error)
  const allNotes = [...notes, ...failed.map((run) => `${run.label}: the child failed: ${run.error!.split('\n')[0]}`)]
  return { title, table: markdownTable(['measurement', ...runs.map((run) => run.label), 'compared with', 'target', 'met?'], body), notes: allNotes, data }
}

const times = (value: number) => `${fixed(value)}×`
/** A heap figure; a negative one means the instance cost less than what the collector freed meanwhile. */
const heapText = (bytes: number) => (bytes < 0 ? '< 0 (noise)' : bytesText(bytes))

/**
 * A goal row for the main table: `ours` against `comparison` with `limit` on
 * their ratio. A lower-bound figure (over budget) fails the goal only when
 * even the bound already misses it.
 */
function goalRow(row: Omit<Row, 'ours' | 'comparison' | 'ratio' | 'ratioKind' | 'met'>, ours: Cell, comparison: Cell, limit: number): Row {
  const value = ours.value ?? ours.lowerBound
  const base = comparison.value
  const out: Row = { ...row, ours: value ?? Number.NaN, ratioKind: 'ours/comparison' }
  if (value === undefined && ours.missing) out.measurement += ` (${ours.missing})`
  if (base !== undefined) out.comparison = base
  if (ours.value === undefined && ours.lowerBound !== undefined) out.lowerBound = true
  if (value !== undefined && base !== undefined) {
    out.ratio = value / base
    out.met = out.lowerBound ? (out.ratio > limit ? false : undefined) : out.ratio <= limit
  }
  out.detail = { ...row.detail, ours, comparison }
  return out
}

/** Run every size of both dimensions; `progress` hears one line per child. */
export async function benchScale(progress: (line: string) => void = () => {}): Promise<{ rows: Row[]; grids: ScaleGrid[] }> {
  const nsRuns: SizeRun[] = []
  for (const { count, budgetMs } of NAMESPACE_SIZES) {
    const dir = await tempDir(`scale-ns-${count}`)
    try {
      const run = await runSize({ kind: 'namespaces', count, dir, budgetMs }, `${count.toLocaleString('en-US')} ns`, count)
      progress(`${run.label} ${(run.ms / 1000).toFixed(1)} s${run.overBudget ? ' (over budget)' : ''}${run.error ? ' (failed)' : ''}`)
      nsRuns.push(run)
    } finally {
      await removeTemp(dir)
    }
  }
  const sectionRuns: SizeRun[] = []
  for (const { bytes, label, budgetMs } of SECTION_SIZES) {
    const dir = await tempDir(`scale-section-${bytes}`)
    try {
      const run = await runSize({ kind: 'section', bytes, dir, budgetMs }, label, bytes)
      progress(`${run.label} section ${(run.ms / 1000).toFixed(1)} s${run.overBudget ? ' (over budget)' : ''}${run.error ? ' (failed)' : ''}`)
      sectionRuns.push(run)
    } finally {
      await removeTemp(dir)
    }
  }

  const shapes = await benchBootShapes(progress)

  const at = (runs: SizeRun[], magnitude: number) => runs.find((run) => run.magnitude === magnitude)!
  const updateCell = (run: SizeRun) => cellOf(run, 'update')
  const floorCell = (run: SizeRun) => cellOf(run, 'update', (result) => result.floor, false)
  const perFloor = (run: SizeRun) => ratioCell(updateCell(run), floorCell(run))
  const index = (runs: SizeRun[], magnitude: number) => runs.findIndex((run) => run.magnitude === magnitude)
  const reload = (run: SizeRun): Cell => {
    const cell = cellOf(run, 'reload')
    return cell.value === undefined ? cell : { ...cell, value: cell.value - SCALE_DEBOUNCE_MS, summary: cell.summary }
  }

  const nsLines: Line[] = [
    { label: 'boot: file provider + N registered', compared: 'previous size', format: duration, cell: (run) => cellOf(run, 'boot'), growth: true, target: 'report' },
    { label: 'one awaited update() (file, owner handle)', compared: 'previous size', format: duration, cell: updateCell, growth: true, target: 'report' },
    { label: 'I/O floor of the same bytes', compared: 'previous size', format: duration, cell: floorCell, growth: true, target: 'report' },
    {
      label: 'update ÷ floor',
      compared: 'I/O floor, same run',
      format: times,
      cell: perFloor,
      growth: false,
      target: '≤ 2× at 100 ns',
      met: (cells) => {
        const value = cells[index(nsRuns, 100)]?.value
        return value === undefined ? undefined : value <= 2
      },
    },
    {
      label: 'settings core update() (memory provider)',
      compared: 'the 10-ns core',
      format: duration,
      cell: (run) => cellOf(run, 'core'),
      growth: true,
      target: '10,000 ns ≤ 2× 10 ns',
      met: (cells) => {
        const [small, large] = [cells[index(nsRuns, 10)]?.value, cells[index(nsRuns, 10_000)]?.value]
        return small === undefined || large === undefined ? undefined : large / small <= 2
      },
    },
    { label: 'the same, a namespace\'s first write', compared: 'previous size', format: duration, cell: (run) => cellOf(run, 'core', (result) => result.first), growth: true, target: 'report' },
    { label: 'describe({ redactSecrets: true })', compared: 'previous size', format: duration, cell: (run) => cellOf(run, 'describe'), growth: true, target: 'report' },
    { label: 'JSON.stringify of that describe', compared: 'previous size', format: duration, cell: (run) => cellOf(run, 'json'), growth: true, target: 'report' },
    { label: 'describe JSON size', compared: 'previous size', format: bytesText, cell: (run) => ({ ...cellOf(run, 'json', (result) => (typeof result.info?.jsonBytes === 'number' ? [result.info.jsonBytes] : undefined)), reduced: false }), growth: true, target: 'report' },
    { label: 'heap per namespace (instance ÷ N)', compared: 'previous size', format: heapText, cell: (run) => cellOf(run, 'heap'), growth: false, target: 'report' },
    {
      label: `edit → watch p50 (debounce ${SCALE_DEBOUNCE_MS} ms)`,
      compared: `debounce + 20 ms`,
      format: duration,
      cell: (run) => cellOf(run, 'watch'),
      growth: false,
      target: `≤ ${SCALE_DEBOUNCE_MS + 20} ms at 1,000 ns`,
      met: (cells) => {
        const value = cells[index(nsRuns, 1_000)]?.value
        return value === undefined ? undefined : value <= SCALE_DEBOUNCE_MS + 20
      },
    },
  ]
  const sectionLines: Line[] = [
    {
      label: 'boot: file provider + registered',
      compared: 'previous size',
      format: duration,
      cell: (run) => cellOf(run, 'boot'),
      growth: true,
      target: '10 MB ≤ 10× 1 MB',
      met: (cells) => linear(cells[index(sectionRuns, KB * KB)], cells[index(sectionRuns, 10 * KB * KB)]),
    },
    { label: "js-yaml 4 load() of the same text", compared: 'previous size', format: duration, cell: (run) => cellOf(run, 'jsyaml', undefined, false), growth: true, target: 'report' },
    {
      label: 'boot ÷ js-yaml load()',
      compared: 'js-yaml, same run',
      format: times,
      cell: (run) => ratioCell(cellOf(run, 'boot'), cellOf(run, 'jsyaml', undefined, false)),
      growth: false,
      target: '≤ 2× at 1 MB',
      met: (cells) => {
        const value = cells[index(sectionRuns, KB * KB)]?.value
        return value === undefined ? undefined : value <= 2
      },
    },
    { label: 'one-field update() of the section', compared: 'previous size', format: duration, cell: updateCell, growth: true, target: 'report' },
    { label: 'I/O floor of the same bytes', compared: 'previous size', format: duration, cell: floorCell, growth: true, target: 'report' },
    {
      label: 'update ÷ floor',
      compared: 'I/O floor, same run',
      format: times,
      cell: perFloor,
      growth: false,
      target: '≤ 5× at 1 MB and 10 MB',
      met: (cells) => {
        const values = [cells[index(sectionRuns, KB * KB)]?.value, cells[index(sectionRuns, 10 * KB * KB)]?.value]
        return values.some((value) => value === undefined) ? undefined : values.every((value) => value! <= 5)
      },
    },
    {
      label: `reload: edit → watch p50 − ${SCALE_DEBOUNCE_MS} ms debounce`,
      compared: 'previous size',
      format: duration,
      cell: reload,
      growth: true,
      target: '10 MB ≤ 10× 1 MB',
      met: (cells) => linear(cells[index(sectionRuns, KB * KB)], cells[index(sectionRuns, 10 * KB * KB)]),
    },
  ]

  const common = [
    'Each cell is the median of its samples; (n=…) marks a size measured with fewer repetitions than planned because its time share ran out; ×… is the growth over the previous column per 10× step (1 KB → 100 KB counts as two steps).',
    '"over budget": the size\'s child process was stopped at its time budget (counted from its first phase; building the inputs is capped separately at 30 s); "> t" is how long the unfinished phase had run by then.',
  ]
  const grids = [
    grid('scale: namespaces (~120-byte YAML sections, one schema object per namespace)', nsRuns, nsLines, [
      ...common,
      `Budgets per size: ${NAMESPACE_SIZES.map((size) => `${size.count.toLocaleString('en-US')} ns ${size.budgetMs / 1000} s`).join(', ')}. The file provider runs with watch: false except in the watch line (watch: true, recheckMs: 0, in-place writes). Heap: heapUsed after forced GCs around the first boot of the size, divided by N, so at 10 ns the provider's fixed cost dominates.`,
    ]),
    grid('scale: one large section (a list of small records) beside 9 ordinary sections', sectionRuns, sectionLines, [
      ...common,
      `Budgets per size: ${SECTION_SIZES.map((size) => `${size.label} ${size.budgetMs / 1000} s`).join(', ')}. maxDocumentBytes is raised to 64 MiB so the 10 MB document loads.`,
    ]),
  ]

  const ns10 = at(nsRuns, 10)
  const ns1000 = at(nsRuns, 1_000)
  const ns10000 = at(nsRuns, 10_000)
  const mb1 = at(sectionRuns, KB * KB)
  const mb10 = at(sectionRuns, 10 * KB * KB)
  const watch1000 = cellOf(ns1000, 'watch')
  const watchRow: Row = {
    id: 'scale.watch-1000',
    measurement: `edit → watch p50, 1,000 ns (debounce ${SCALE_DEBOUNCE_MS} ms)`,
    ours: watch1000.value ?? watch1000.lowerBound ?? Number.NaN,
    comparison: SCALE_DEBOUNCE_MS,
    comparisonLabel: 'the debounce itself',
    unit: 'ms',
    target: `≤ ${SCALE_DEBOUNCE_MS + 20} ms`,
    detail: { cell: watch1000 },
  }
  if (watch1000.value === undefined && watch1000.missing) watchRow.measurement += ` (${watch1000.missing})`
  if (watch1000.value !== undefined) watchRow.met = watch1000.value <= SCALE_DEBOUNCE_MS + 20
  else if (watch1000.lowerBound !== undefined) {
    watchRow.lowerBound = true
    watchRow.met = false
  }
  const rows: Row[] = [
    goalRow({ id: 'scale.core', measurement: 'settings core update(): 10,000 ns vs 10 ns', comparisonLabel: 'the same update at 10 namespaces (memory provider)', unit: 'ms', target: '≤ 2×' }, cellOf(ns10000, 'core'), cellOf(ns10, 'core'), 2),
    watchRow,
    goalRow({ id: 'scale.section-update-1mb', measurement: 'one-field update() of a 1 MB section vs I/O floor', comparisonLabel: 'I/O floor of the same bytes (1 MB), same run', unit: 'ms', target: '≤ 5×' }, updateCell(mb1), floorCell(mb1), 5),
    goalRow({ id: 'scale.section-update-10mb', measurement: 'one-field update() of a 10 MB section vs I/O floor', comparisonLabel: 'I/O floor of the same bytes (10 MB), same run', unit: 'ms', target: '≤ 5×' }, updateCell(mb10), floorCell(mb10), 5),
    goalRow({ id: 'scale.section-boot-1mb-js-yaml', measurement: 'boot of a 1 MB section (file provider + registered) vs js-yaml', comparisonLabel: "js-yaml 4 load() of the same text, same run", unit: 'ms', target: '≤ 2×' }, cellOf(mb1, 'boot'), cellOf(mb1, 'jsyaml', undefined, false), 2),
    limitRow({ id: 'scale.section-reload-1mb-limit', measurement: 'reload after a one-field hand edit, 1 MB section (debounce subtracted)', unit: 'ms', target: '≤ 100 ms' }, reload(mb1), 100),
    limitRow({ id: 'scale.section-reload-10mb-limit', measurement: 'reload after a one-field hand edit, 10 MB section (debounce subtracted)', unit: 'ms', target: '≤ 1 s' }, reload(mb10), 1000),
    ...shapes.rows,
    goalRow({ id: 'scale.section-boot-10mb', measurement: 'boot of a 10 MB section vs 1 MB', comparisonLabel: 'boot of the 1 MB section', unit: 'ms', target: '≤ 10×' }, cellOf(mb10, 'boot'), cellOf(mb1, 'boot'), 10),
    goalRow({ id: 'scale.section-reload-10mb', measurement: 'reload of a 10 MB section vs 1 MB', comparisonLabel: 'reload of the 1 MB section (debounce subtracted)', unit: 'ms', target: '≤ 10×' }, reload(mb10), reload(mb1), 10),
  ]
  return { rows, grids: [...grids, shapes.grid] }
}

/** A goal row for the main table: `ours` against a fixed `limit` (a lower bound over it fails). */
function limitRow(row: Omit<Row, 'ours' | 'comparison' | 'comparisonLabel' | 'met'>, ours: Cell, limit: number): Row {
  const value = ours.value ?? ours.lowerBound
  const out: Row = { ...row, ours: value ?? Number.NaN, comparison: limit, comparisonLabel: 'the limit itself' }
  if (value === undefined && ours.missing) out.measurement += ` (${ours.missing})`
  if (ours.value !== undefined) out.met = ours.value <= limit
  else if (ours.lowerBound !== undefined) {
    out.lowerBound = true
    if (ours.lowerBound > limit) out.met = false
  }
  out.detail = { ...row.detail, ours }
  return out
}

/** Whether the large cell is at most ten times the small one; undefined when either is missing. */
function linear(small: Cell | undefined, large: Cell | undefined): boolean | undefined {
  if (small?.value === undefined) return undefined
  if (large?.value !== undefined) return large.value / small.value <= 10
  if (large?.lowerBound !== undefined && large.lowerBound / small.value > 10) return false
  return undefined
}
