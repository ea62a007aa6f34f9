/**
 * The byte check of the YAML test suite spec: whether an edited text keeps
 * every byte of the old one outside the places the edit may change. A diff of
 * lines, narrowed to characters, finds what changed; each change must fall in
 * an allowed window.
 */

/** One change of a character diff: the old text's `[start, end)` gave way to `inserted`. */
interface Hunk {
  start: number
  end: number
  inserted: string
}

/** The changes that turn `a` into `b` (Myers' O(ND) diff, fewest elements first), as index hunks in order. */
function myers<T>(a: readonly T[], b: readonly T[]): { start: number; end: number; from: number; to: number }[] {
  const n = a.length
  const m = b.length
  const max = n + m
  const offset = max + 1
  let v = new Int32Array(2 * max + 3)
  const trace: Int32Array[] = []
  let found = -1
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice())
    const next = v.slice()
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      next[offset + k] = x
      if (x >= n && y >= m) {
        found = d
        break
      }
    }
    v = next
  }
  // Walk the trace back, one step per edit, then merge adjacent steps.
  const steps: { x: number; y: number; insert: boolean }[] = []
  let x = n
  let y = m
  for (let d = found; d > 0; d--) {
    const previous = trace[d]!
    const k = x - y
    const down = k === -d || (k !== d && previous[offset + k - 1]! < previous[offset + k + 1]!)
    const prevK = down ? k + 1 : k - 1
    const prevX = previous[offset + prevK]!
    steps.push({ x: prevX, y: prevX - prevK, insert: down })
    x = prevX
    y = prevX - prevK
  }
  const hunks: { start: number; end: number; from: number; to: number }[] = []
  for (const step of steps.reverse()) {
    const last = hunks[hunks.length - 1]
    const joins = last && last.end === step.x && last.to === step.y
    const hunk = joins ? last : { start: step.x, end: step.x, from: step.y, to: step.y }
    if (!joins) hunks.push(hunk)
    if (step.insert) hunk.to++
    else hunk.end++
  }
  return hunks
}

/** Lines with their line ends, so that joined they give the text back. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? []
}

/**
 * The changes that turn `before` into `after`, in text order: a diff of lines,
 * each changed run of lines narrowed to the characters that differ (a hunk, or
 * an added or removed line block and a hunk, when that reading `fits`; else a
 * character diff of the run).
 */
function diffHunks(before: string, after: string, fits: (hunk: Hunk) => boolean): Hunk[] {
  const a = lines(before)
  const b = lines(after)
  const startOf = (list: string[]) => {
    const offsets = [0]
    for (const line of list) offsets.push(offsets[offsets.length - 1]! + line.length)
    return offsets
  }
  const aAt = startOf(a)
  const bAt = startOf(b)
  /** One hunk for old lines `[i, j)` becoming new lines `[k, l)`: the characters that differ, between what both share at the ends. */
  const narrow = (i: number, j: number, k: number, l: number): Hunk => {
    const old = before.slice(aAt[i], aAt[j])
    const now = after.slice(bAt[k], bAt[l])
    let head = 0
    while (head < old.length && head < now.length && old[head] === now[head]) head++
    let tail = 0
    while (tail < old.length - head && tail < now.length - head && old[old.length - 1 - tail] === now[now.length - 1 - tail]) tail++
    return { start: aAt[i]! + head, end: aAt[j]! - tail, inserted: now.slice(head, now.length - tail) }
  }
  const hunks: Hunk[] = []
  for (const { start, end, from, to } of myers(a, b)) {
    // A run of lines may be a replacement with lines added or removed before or after it: try each reading.
    const extra = to - from - (end - start)
    const readings: Hunk[][] = [[narrow(start, end, from, to)]]
    if (extra > 0) readings.push([narrow(start, start, from, from + extra), narrow(start, end, from + extra, to)], [narrow(start, end, from, to - extra), narrow(end, end, to - extra, to)])
    if (extra < 0) readings.push([narrow(start, start - extra, from, from), narrow(start - extra, end, from, to)], [narrow(start, end + extra, from, to), narrow(end + extra, end, to, to)])
    const reading = readings.find((candidate) => candidate.every(fits))
    if (reading) {
      hunks.push(...reading)
      continue
    }
    const old = before.slice(aAt[start], aAt[end])
    const now = after.slice(bAt[from], bAt[to])
    for (const part of myers([...old], [...now])) hunks.push({ start: aAt[start]! + part.start, end: aAt[start]! + part.end, inserted: now.slice(part.from, part.to) })
  }
  return hunks
}

/** Whether a hunk (slid along equal text, for a pure deletion or insertion) lies inside one of `windows`. */
function inWindows(before: string, hunk: Hunk, windows: readonly [number, number][]): boolean {
  const fits = (start: number, end: number) => windows.some(([from, to]) => from <= start && end <= to)
  if (fits(hunk.start, hunk.end)) return true
  if (hunk.inserted && hunk.end > hunk.start) return false
  // A pure deletion of `before[s, e)` may as well be of `before[s + i, e + i)` while the text repeats; an insertion likewise.
  const text = hunk.inserted || before.slice(hunk.start, hunk.end)
  const width = hunk.end - hunk.start
  for (let shift = 1, probe = text; hunk.start - shift >= 0; shift++) {
    if (probe.at(-1) !== before[hunk.start - shift]) break
    probe = before[hunk.start - shift] + probe.slice(0, -1)
    if (fits(hunk.start - shift, hunk.start - shift + width)) return true
  }
  for (let shift = 1, probe = text; hunk.end + shift - 1 < before.length; shift++) {
    if (probe[0] !== before[hunk.end + shift - 1]) break
    probe = probe.slice(1) + before[hunk.end + shift - 1]
    if (fits(hunk.start + shift, hunk.end + shift)) return true
  }
  return false
}

/**
 * Whether `after` keeps every byte of `before` outside `windows`: each change
 * of a diff between the two must fall inside a window (a deletion or insertion
 * slid along equal text counts where it fits). With `insertion`, text may be
 * added anywhere, but nothing of `before` may go outside a window.
 */
export function keepsBytesOutside(before: string, after: string, windows: readonly [number, number][], insertion: boolean): boolean {
  const allowed = (hunk: Hunk) => (insertion && hunk.start === hunk.end) || inWindows(before, hunk, windows)
  return diffHunks(before, after, allowed).every(allowed)
}
