import { createHash, timingSafeEqual } from 'node:crypto'

/** A SHA-256 digest: equal length whatever the input, so the compare below never short-cuts on length. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** The `Authorization` grammar this server accepts: the scheme (any case), spaces, one token, optional trailing spaces. */
const BEARER = /^Bearer +(\S+) *$/i

/**
 * A checker for one token, for a server that checks every request against
 * the same one: the token's digest is taken once, here, and each call hashes
 * only the candidate. The comparison is the one {@link bearerMatches} describes.
 * @param token - the token every accepted request must carry.
 * @returns whether an `Authorization` header carries `Bearer <token>`.
 */
export function bearerCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token)
  return (header) => {
    const match = BEARER.exec(header ?? '')
    // A missing or malformed header is still compared (against nothing), so every refusal takes one path.
    const candidate = match?.[1] ?? ''
    const same = timingSafeEqual(digest(candidate), expected)
    return same && match !== null
  }
}

/**
 * Whether an `Authorization` header carries `Bearer <token>`. The candidate and
 * the token are both hashed to 32 bytes and compared with `timingSafeEqual`, so
 * the time taken says nothing about how much of the token a guess got right,
 * nor about its length.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  return bearerCheck(token)(header)
}
