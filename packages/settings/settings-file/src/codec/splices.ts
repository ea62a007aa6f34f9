/** One replacement of the byte range `[start, end)` of a source text. */
export interface Splice {
  start: number
  end: number
  text: string
}

/**
 * `text` with `splices` applied, from the end so earlier offsets stay valid.
 * By offset; at one offset insertions come before a replacement, and a wider
 * replacement before a narrower one; one that falls inside a wider replacement
 * is covered by it, and insertions at one offset keep their planned order.
 * @throws {Error} when two splices overlap without one containing the other.
 */
export function applySplices(text: string, splices: readonly Splice[]): string {
  const ordered = splices.map((splice, order) => ({ ...splice, order }))
  ordered.sort((a, b) => a.start - b.start || Number(b.start === b.end) - Number(a.start === a.end) || b.end - a.end || a.order - b.order)
  const kept: Splice[] = []
  for (const splice of ordered) {
    const last = kept[kept.length - 1]
    const insertion = splice.start === splice.end
    if (last && last.end > last.start) {
      const covered = insertion ? splice.start > last.start && splice.start < last.end : splice.start >= last.start && splice.end <= last.end
      if (covered) continue
      if (splice.start < last.end) throw new Error('overlapping YAML edits')
    }
    if (last && insertion && last.start === last.end && splice.start === last.start) {
      last.text += splice.text
      continue
    }
    kept.push({ start: splice.start, end: splice.end, text: splice.text })
  }
  let result = text
  for (const splice of kept.reverse()) result = result.slice(0, splice.start) + splice.text + result.slice(splice.end)
  return result
}
