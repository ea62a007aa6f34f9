/**
 * Secret names: how a secret written through the seam is named in a store.
 * `web-search.apiKey` for namespace `web-search`, path `['apiKey']`;
 * `preset/coder/web-search.apiKey` for the same in scope `preset/coder`. A
 * string segment that would not read back plainly (empty; holding `.`, `/`,
 * brackets, quotes, a backslash, white space or a control character) is
 * written in brackets with JSON quoting (`web-search["a.b"]`), and a number
 * segment (an array index) as `[0]`, so every name parses back to exactly
 * the namespace, scope and path it was made of.
 */
import { SecretNameError } from './errors.ts'

/** What a secret name is made of. */
export interface SecretNameParts {
  ns: string
  path: (string | number)[]
  scope?: string
}

/** Characters a namespace or a scope may not hold: they delimit the name's parts. */
const HEAD_RESERVED = /[.[\]"\\\s\p{C}]/u

/** A string segment written bare only if it holds none of these (and is not empty). */
const NEEDS_BRACKETS = /[./[\]"\\\s\p{C}]/u

function segmentText(segment: string | number): string {
  if (typeof segment === 'number') {
    if (!Number.isSafeInteger(segment) || segment < 0) throw new SecretNameError('a number path segment must be a non-negative integer')
    return `[${segment}]`
  }
  if (typeof segment !== 'string') throw new SecretNameError('a path segment must be a string or a number')
  return segment === '' || NEEDS_BRACKETS.test(segment) ? `[${JSON.stringify(segment)}]` : `.${segment}`
}

/**
 * The store name of the secret at `path` in namespace `ns` (and `scope`, if
 * any): `web-search.apiKey`, `preset/coder/web-search.apiKey`,
 * `web-search["a.b"]`, `web-search.servers[0].token`.
 * @throws {SecretNameError} for an empty namespace or one holding `/`, `.`,
 *   brackets, quotes, white space or control characters; a scope holding any
 *   of those but `/` (or empty parts); an empty path; a negative or
 *   fractional number segment.
 */
export function secretName(ns: string, path: readonly (string | number)[], scope?: string): string {
  if (typeof ns !== 'string' || ns === '' || ns.includes('/') || HEAD_RESERVED.test(ns)) {
    throw new SecretNameError('a secret name needs a namespace without "/", ".", brackets, quotes or white space')
  }
  if (scope !== undefined && (typeof scope !== 'string' || HEAD_RESERVED.test(scope) || scope.split('/').includes(''))) {
    throw new SecretNameError('a secret name\'s scope must be non-empty parts joined by "/", without ".", brackets, quotes or white space')
  }
  if (path.length === 0) throw new SecretNameError('a secret name needs a path inside the namespace')
  const head = scope === undefined ? ns : `${scope}/${ns}`
  return head + path.map(segmentText).join('')
}

/** Read one bracketed segment at `at` (just after `[`): its value and the index after `]`, or undefined. */
function readBracket(name: string, at: number): { segment: string | number; next: number } | undefined {
  const integer = /^(0|[1-9][0-9]*)\]/.exec(name.slice(at))
  if (integer) return { segment: Number(integer[1]), next: at + integer[0].length }
  if (name[at] !== '"') return undefined
  // A JSON string ends at the first quote not escaped by a backslash.
  let end = at + 1
  while (end < name.length && name[end] !== '"') end += name[end] === '\\' ? 2 : 1
  if (name[end + 1] !== ']') return undefined
  try {
    const segment: unknown = JSON.parse(name.slice(at, end + 1))
    return typeof segment === 'string' ? { segment, next: end + 2 } : undefined
  } catch {
    return undefined
  }
}

/** The path segments after the head, or undefined when malformed. */
function readPath(name: string, at: number): (string | number)[] | undefined {
  const path: (string | number)[] = []
  while (at < name.length) {
    if (name[at] === '[') {
      const read = readBracket(name, at + 1)
      if (!read) return undefined
      path.push(read.segment)
      at = read.next
    } else if (name[at] === '.') {
      let end = at + 1
      while (end < name.length && name[end] !== '.' && name[end] !== '[') end++
      path.push(name.slice(at + 1, end))
      at = end
    } else return undefined
  }
  return path
}

/**
 * The namespace, path and scope a secret name was made of by
 * {@link secretName}, or `undefined` for a name it would not make (an
 * entry a person or another program put in the store, or a name written in
 * a form other than the one `secretName` writes). So `secretName(parts)`
 * of the result is the name again, exactly.
 */
export function parseSecretName(name: string): SecretNameParts | undefined {
  if (typeof name !== 'string') return undefined
  const headEnd = name.search(/[.[]/)
  if (headEnd <= 0) return undefined
  const head = name.slice(0, headEnd)
  const slash = head.lastIndexOf('/')
  const ns = head.slice(slash + 1)
  const path = readPath(name, headEnd)
  if (!path) return undefined
  const parts: SecretNameParts = slash < 0 ? { ns, path } : { ns, path, scope: head.slice(0, slash) }
  try {
    return secretName(parts.ns, parts.path, parts.scope) === name ? parts : undefined
  } catch {
    return undefined
  }
}
