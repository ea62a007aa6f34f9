/**
 * The declared name nearest to a mistyped one, by edit distance, for "did you
 * mean limit?" when a path or namespace is not declared.
 */

/** The Levenshtein distance between two texts (insertions, deletions and substitutions of one character each). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution)
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * The name of `names` nearest to `word` (the first one on a tie), when it is
 * near enough to be a likely typo: at most 2 edits, or a third of the longer
 * text. `undefined` when none is.
 */
export function nearestName(word: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined
  for (const name of names) {
    const distance = editDistance(word.toLowerCase(), name.toLowerCase())
    if (!best || distance < best.distance) best = { name, distance }
  }
  if (!best) return undefined
  const allowed = Math.max(2, Math.floor(Math.max(word.length, best.name.length) / 3))
  return best.distance <= allowed ? best.name : undefined
}
