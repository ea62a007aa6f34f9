/**
 * Secrets encrypted at rest (a database row, as Grafana keeps
 * `secureJsonData`): AES-256-GCM under a 32-byte key from the deployment's
 * environment, a random 96-bit IV per box, and the box written as text,
 * `v1:<iv>:<tag>:<ciphertext>` (each standard base64).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { SecretBoxError, SecretKeyError } from './errors.ts'

/** The environment variable that holds the at-rest key. */
export const SECRET_KEY_VARIABLE = 'DSH_SETTINGS_SECRET_KEY'

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

function checkKey(key: Uint8Array): void {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) throw new SecretKeyError(`an at-rest secret key must be ${KEY_BYTES} bytes`)
}

/**
 * `plain` encrypted under `key` (32 bytes) as a `v1:` box. Two boxes of one
 * value differ (a fresh IV each time).
 * @throws {SecretKeyError} for a key that is not 32 bytes.
 */
export function encryptSecret(plain: string, key: Uint8Array): string {
  checkKey(key)
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}`
}

/** One base64 field of a box, decoded, or undefined when it is not canonical base64 of the expected length. */
function field(text: string | undefined, bytes?: number): Buffer | undefined {
  if (text === undefined || !BASE64.test(text)) return undefined
  const decoded = Buffer.from(text, 'base64')
  if (decoded.toString('base64') !== text) return undefined
  return bytes === undefined || decoded.length === bytes ? decoded : undefined
}

/**
 * The value in a box made by {@link encryptSecret} under the same key.
 * @throws {SecretBoxError} `malformed` for text that is not a `v1:` box,
 *   `rejected` for a wrong key or a box altered since it was made.
 * @throws {SecretKeyError} for a key that is not 32 bytes.
 */
export function decryptSecret(box: string, key: Uint8Array): string {
  checkKey(key)
  const parts = typeof box === 'string' ? box.split(':') : []
  const [version, ivText, tagText, bodyText] = parts
  const iv = field(ivText, IV_BYTES)
  const tag = field(tagText, TAG_BYTES)
  const body = field(bodyText)
  if (parts.length !== 4 || version !== 'v1' || !iv || !tag || !body) {
    throw new SecretBoxError('malformed', 'is not a v1 box (v1:<iv>:<tag>:<ciphertext>, base64)')
  }
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
  decipher.setAuthTag(tag)
  let plain: Buffer
  try {
    plain = Buffer.concat([decipher.update(body), decipher.final()])
  } catch {
    throw new SecretBoxError('rejected', 'does not open with this key (a different key, or the box was altered)')
  }
  return plain.toString('utf8')
}

/** The 32 bytes a key text spells as 64 hex digits or base64 (standard or URL-safe, padded or not), or undefined. */
export function parseSecretKey(text: string): Uint8Array | undefined {
  const trimmed = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return new Uint8Array(Buffer.from(trimmed, 'hex'))
  const standard = trimmed.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]{43}$/.test(standard)) return undefined
  const decoded = Buffer.from(standard, 'base64')
  // The last character carries 2 spare bits: only the canonical spelling is taken, so one key has one text.
  if (decoded.length !== KEY_BYTES || decoded.toString('base64').replace(/=+$/, '') !== standard) return undefined
  return new Uint8Array(decoded)
}

/**
 * The at-rest key from `DSH_SETTINGS_SECRET_KEY` in `env`: 32 bytes written
 * as 64 hex digits or as base64 (`openssl rand -hex 32`, `openssl rand
 * -base64 32`); surrounding white space is ignored. `undefined` when the
 * variable is unset or empty.
 * @throws {SecretKeyError} for a malformed key; the message names the
 *   variable, never its value.
 */
export function secretKeyFromEnv(env: Readonly<Record<string, string | undefined>>): Uint8Array | undefined {
  const text = Object.hasOwn(env, SECRET_KEY_VARIABLE) || env === process.env ? env[SECRET_KEY_VARIABLE] : undefined
  if (typeof text !== 'string' || text.trim() === '') return undefined
  const key = parseSecretKey(text)
  if (!key) {
    throw new SecretKeyError(
      `${SECRET_KEY_VARIABLE} is not a usable key: it must be 32 bytes written as 64 hex digits or as base64 (make one with \`openssl rand -hex 32\`)`,
      SECRET_KEY_VARIABLE,
    )
  }
  return key
}
