import { randomFillSync } from 'node:crypto'

/**
 * Random hex digits for names (temp files, kept versions, lock nonces), drawn
 * from a pooled buffer: one `randomBytes` call costs a few microseconds
 * whatever its size, and a write names four or five things.
 */
const pool = Buffer.alloc(512)
let used = pool.length

/** `bytes` random bytes as hex (twice as many digits), from the system's secure generator. */
export function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const hex = pool.toString('hex', used, used + bytes)
  used += bytes
  return hex
}
