import { createHash, timingSafeEqual } from 'node:crypto'

/** A SHA-256 digest: equal length whatever the input, so the compare below never short-cuts on length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/**
 * Whether an `Authorization` header carries `Bearer <token>`. The candidate and
 * the token are both hashed to 32 bytes and compared with `timingSafeEqual`, so
 * the time taken says nothing about how much of the token a guess got right,
 * nor about its length.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '')
  // A missing or malformed header is still compared (against nothing), so every refusal takes one path.
  const candidate = match?.[1] ?? ''
  const same = timingSafeEqual(digest(candidate), digest(token))
  return same && match !== null
}
