/**
 * Small statistics for the benchmark: medians and percentiles over repeated
 * runs, and a monotonic clock. Nothing here knows about settings.
 */

/** Milliseconds from a monotonic clock with sub-microsecond resolution. */
export const now = (): number => performance.now()

function sorted(values: readonly number[]): number[] {
  if (!values.length) throw new RangeError('no samples')
  return [...values].sort((a, b) => a - b)
}

/**
 * The `p`-th percentile (0–100) by linear interpolation between closest ranks,
 * so p50 of an even-sized sample is the mean of its two middle values.
 */
export function percentile(values: readonly number[], p: number): number {
  const xs = sorted(values)
  const rank = (p / 100) * (xs.length - 1)
  const low = Math.floor(rank)
  const high = Math.ceil(rank)
  return xs[low]! + (xs[high]! - xs[low]!) * (rank - low)
}

/** The median (p50). */
export function median(values: readonly number[]): number {
  return percentile(values, 50)
}

/** What the results file records about a set of samples. */
export interface Summary {
  n: number
  median: number
  p50: number
  p95: number
  min: number
  max: number
  mean: number
}

/** Median, p50/p95, extremes and mean of `values`. */
export function summarize(values: readonly number[]): Summary {
  const xs = sorted(values)
  return {
    n: xs.length,
    median: median(xs),
    p50: percentile(xs, 50),
    p95: percentile(xs, 95),
    min: xs[0]!,
    max: xs[xs.length - 1]!,
    mean: xs.reduce((sum, x) => sum + x, 0) / xs.length,
  }
}

/** Run `run` `times` times, one after another, and collect what each returned. */
export async function repeat<T>(times: number, run: (index: number) => T | Promise<T>): Promise<T[]> {
  const results: T[] = []
  for (let index = 0; index < times; index++) results.push(await run(index))
  return results
}

/** Time one asynchronous operation in milliseconds. */
export async function timed(operation: () => unknown): Promise<number> {
  const start = now()
  await operation()
  return now() - start
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
