/**
 * Text formatting for the bench's tables: a padded Markdown table (so the
 * output pastes into the README as it is), and short human figures for
 * durations, sizes and rates.
 */

/** A Markdown table with every column padded to its widest cell. */
export function markdownTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)))
  const line = (cells: readonly string[]) => '| ' + widths.map((width, column) => (cells[column] ?? '').padEnd(width)).join(' | ') + ' |'
  return [line(header), '|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|', ...body.map(line)].join('\n')
}

/** Two significant-ish digits for small values, none for large ones. */
export function fixed(value: number): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2
  return value.toFixed(digits)
}

/** A duration: `0.23 ms`, `115 ms`, `3.30 s`. */
export function duration(ms: number): string {
  if (ms >= 1000) return `${fixed(ms / 1000)} s`
  return `${fixed(ms)} ms`
}

/** A size in bytes: `512 B`, `1.2 KB`, `10.0 MB` (powers of 1,024). */
export function size(bytes: number): string {
  if (Math.abs(bytes) < 1024) return `${Math.round(bytes)} B`
  if (Math.abs(bytes) < 1024 ** 2) return `${fixed(bytes / 1024)} KB`
  return `${fixed(bytes / 1024 ** 2)} MB`
}
