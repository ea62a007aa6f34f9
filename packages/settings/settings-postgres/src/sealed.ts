/**
 * A secret as a row holds it at rest: `{ "$encrypted": "v1:…" }`, an
 * AES-256-GCM box (dsh-settings-secrets) of the value together with the place
 * it was written for (document, scope, namespace, path). The secrets package
 * takes no associated data, so the place travels inside the authenticated
 * plaintext instead: a box copied to another row or path opens, but is
 * refused as made for another place.
 */
import { decryptSecret, encryptSecret, SecretBoxError } from 'dsh-settings-secrets'
import { isPlainObject } from 'dsh-settings/data'
import { dataEqual } from 'dsh-settings/equal'

/** The JSON key of an encrypted value in a row. */
export const ENCRYPTED_KEY = '$encrypted'

/** Where a box belongs: the row (document, scope `''` for global, namespace) and the path inside its section. */
export interface SealedPlace {
  document: string
  scope: string
  ns: string
  path: readonly string[]
}

function placeList(place: SealedPlace): string[] {
  return [place.document, place.scope, place.ns, ...place.path]
}

/** The box text of a row value `{ "$encrypted": "<box>" }` (exactly that one key, a string), else `undefined`. */
export function boxOfJson(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined
  const keys = Object.keys(value)
  return keys.length === 1 && keys[0] === ENCRYPTED_KEY && typeof value[ENCRYPTED_KEY] === 'string' ? value[ENCRYPTED_KEY] : undefined
}

/** `value` (any JSON) sealed for `place` under `key`, as the row holds it. */
export function seal(value: unknown, place: SealedPlace, key: Uint8Array): { [ENCRYPTED_KEY]: string } {
  return { [ENCRYPTED_KEY]: encryptSecret(JSON.stringify({ at: placeList(place), value }), key) }
}

/** Why a box did not open, in words that quote neither the box nor the value. */
export type OpenFailure = 'rejected' | 'malformed' | 'misplaced'

/**
 * The value in `box` when it opens under `key` and was made for `place`;
 * otherwise why not.
 */
export function unseal(box: string, place: SealedPlace, key: Uint8Array): { value: unknown } | { failure: OpenFailure } {
  let plain: string
  try {
    plain = decryptSecret(box, key)
  } catch (error) {
    return { failure: error instanceof SecretBoxError ? error.reason : 'malformed' }
  }
  let content: unknown
  try {
    content = JSON.parse(plain)
  } catch {
    return { failure: 'malformed' }
  }
  if (!isPlainObject(content) || !Object.hasOwn(content, 'value')) return { failure: 'malformed' }
  return dataEqual(content.at, placeList(place)) ? { value: content.value } : { failure: 'misplaced' }
}
