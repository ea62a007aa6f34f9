/**
 * What PostgreSQL's `jsonb` cannot hold although JSON can: the character
 * U+0000 (refused with SQLSTATE 22P05) and a UTF-16 surrogate without its pair
 * (22P02), in a string or in a key. Found before any SQL runs, so one such
 * write is refused alone instead of failing the transaction of its group.
 */

/** Why a place cannot be stored. */
export type UnholdableReason = 'nul' | 'unpaired-surrogate'

/** The first place of a value `jsonb` cannot hold. */
export interface UnholdablePlace {
  /** Keys and array indexes from the value's root down to the place. */
  path: (string | number)[]
  /** Whether the key at the end of `path` is at fault, or the string stored there. */
  kind: 'key' | 'string'
  reason: UnholdableReason
}

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNHOLDABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function reasonIn(text: string): UnholdableReason | undefined {
  const found = UNHOLDABLE.exec(text)
  if (!found) return undefined
  return found[0] === '\u0000' ? 'nul' : 'unpaired-surrogate'
}

/**
 * The first place in `value` (JSON data, as the seam hands a section) that
 * `jsonb` cannot hold, depth first in key order, or `undefined` when it holds
 * all of it. Reads each string and key once.
 */
export function unholdablePlace(value: unknown): UnholdablePlace | undefined {
  return search(value, [])
}

/** `path` is the trail down to `value`, extended and restored in place as the search goes. */
function search(value: unknown, path: (string | number)[]): UnholdablePlace | undefined {
  if (typeof value === 'string') {
    const reason = reasonIn(value)
    return reason && { path: [...path], kind: 'string', reason }
  }
  if (typeof value !== 'object' || value === null) return undefined
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value)
  for (const [key, child] of entries) {
    path.push(key)
    const reason = typeof key === 'string' ? reasonIn(key) : undefined
    const place = reason ? { path: [...path], kind: 'key' as const, reason } : search(child, path)
    path.pop()
    if (place) return place
  }
  return undefined
}
