/**
 * References: a field of a settings document that names where its value
 * lives instead of holding it. YAML writes them as tags (`!secret name`,
 * `!env VARIABLE`, `!file /path`), JSON as a one-key object
 * (`{ "$secret": "name" }`).
 */
import { SecretNameError } from './errors.ts'

/** The kinds of reference: a name in the deployment's secret store, a host environment variable, a file's content. */
export type SecretReferenceKind = 'secret' | 'env' | 'file'

/**
 * Where a value lives: `secret` names an entry of the secret store, `env` a
 * variable of the host's environment, `file` a path (its content, one
 * trailing newline dropped, is the value).
 */
export interface SecretReference {
  kind: SecretReferenceKind
  name: string
}

/** The YAML tag of each kind of reference. */
export const REFERENCE_TAGS: Readonly<Record<SecretReferenceKind, string>> = Object.freeze({
  secret: '!secret',
  env: '!env',
  file: '!file',
})

/** The JSON key of each kind of reference: `$secret`, `$env`, `$file`. */
export const REFERENCE_KEYS: Readonly<Record<SecretReferenceKind, string>> = Object.freeze({
  secret: '$secret',
  env: '$env',
  file: '$file',
})

const KIND_OF_KEY: ReadonlyMap<string, SecretReferenceKind> = new Map(
  (Object.keys(REFERENCE_KEYS) as SecretReferenceKind[]).map((kind) => [REFERENCE_KEYS[kind], kind]),
)

/** Whether `value` is a plain object (made by a literal, `JSON.parse` or `Object.create(null)`). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The reference a JSON value spells, or `undefined` when it spells none: a
 * reference is a plain object with exactly one own key, `$secret`, `$env` or
 * `$file`, whose value is a non-empty string. Anything else (more keys, an
 * empty name, a class instance) is an ordinary value.
 */
export function referenceOfJson(value: unknown): SecretReference | undefined {
  if (!isPlainObject(value)) return undefined
  // The three keys are looked up before the object's keys are listed: a large map holding none of them is not listed.
  let found: [key: string, kind: SecretReferenceKind] | undefined
  for (const [key, kind] of KIND_OF_KEY) {
    if (!Object.hasOwn(value, key)) continue
    if (found) return undefined
    found = [key, kind]
  }
  if (!found || Reflect.ownKeys(value).length !== 1) return undefined
  const name = value[found[0]]
  return typeof name === 'string' && name !== '' ? { kind: found[1], name } : undefined
}

/**
 * Whether `value` is a well-formed {@link SecretReference}: a known kind and
 * a non-empty string name.
 */
export function isSecretReference(value: unknown): value is SecretReference {
  if (typeof value !== 'object' || value === null) return false
  const { kind, name } = value as { kind?: unknown; name?: unknown }
  return typeof kind === 'string' && Object.hasOwn(REFERENCE_KEYS, kind) && typeof name === 'string' && name !== ''
}

/**
 * The JSON form of a reference, `{ "$env": "SEARCH_API_KEY" }`, which
 * {@link referenceOfJson} reads back.
 * @throws {SecretNameError} for an unknown kind or an empty name.
 */
export function referenceToJson(reference: SecretReference): Record<string, string> {
  if (!isSecretReference(reference)) throw new SecretNameError('a reference needs a kind of secret, env or file and a non-empty name')
  return { [REFERENCE_KEYS[reference.kind]]: reference.name }
}

/**
 * How messages name a reference: `!env SEARCH_API_KEY`; a name with spaces,
 * quotes or control characters is JSON-quoted so it reads as one token.
 */
export function formatReference(reference: SecretReference): string {
  const name = /^[\p{L}\p{N}_.\/:@+~-]+$/u.test(reference.name) ? reference.name : JSON.stringify(reference.name)
  return `${REFERENCE_TAGS[reference.kind] ?? `!${String(reference.kind)}`} ${name}`
}
