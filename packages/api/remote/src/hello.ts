/**
 * The hello: how a server proves, before any client sends it a credential,
 * that it holds the token and is the host it claims to be. The client sends a
 * fresh nonce to `POST /remote/hello` (no token); the server answers what it
 * serves (its URL, process and deployment file) and an HMAC-SHA256 of all of
 * it under the token. A listener without the token cannot answer, and a relay
 * that forwards the hello to the real server gets a proof bound to the real
 * server's URL, not its own. Browser-safe: Web Crypto only.
 */

/** The route of the hello. */
export const HELLO_PATH = '/remote/hello'

/**
 * Prefixed to everything the proof covers, so an HMAC of the token made here
 * can never stand for any other use of the same token, nor the reverse.
 */
export const HELLO_PURPOSE = 'dsh-remote host proof v1'

/** How many random bytes a nonce holds. */
const NONCE_BYTES = 32

/** What a server says it is, in its hello answer. */
export interface HelloHost {
  /** Its bound base URL, e.g. `http://127.0.0.1:5140`. */
  url: string
  /** Its process id. */
  pid: number
  /** The realpath of the deployment file it runs; absent for a host no loader started. */
  deployment?: string
}

/** The `value` of a hello answer. */
export interface HelloAnswer {
  host: HelloHost
  /** base64url HMAC-SHA256, under the token, of {@link HELLO_PURPOSE}, the nonce and `host`. */
  proof: string
}

/** Why a hello answer was not accepted. */
export type HostRefusal = 'malformed' | 'proof' | 'url' | 'deployment'

/** The verdict of {@link verifyHost}. */
export type HostCheck = { ok: true; host: HelloHost } | { ok: false; reason: HostRefusal }

const utf8 = new TextEncoder()

/** Bytes as base64url without padding. */
function toBase64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** base64url text as bytes; `undefined` for anything that is not canonical base64url. */
function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  let binary: string
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return undefined
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0))
  // Stray low bits in the last character decode to the same bytes: only the one spelling is taken.
  return toBase64url(bytes) === text ? bytes : undefined
}

/**
 * The two primitives a client's side of the hello needs. Web Crypto's by
 * default ({@link WEB_CRYPTO}, in browsers and Node alike); a Node tool that
 * must answer at once may pass `node:crypto`'s, which are ready immediately
 * where Web Crypto takes a few milliseconds to start.
 */
export interface HelloCrypto {
  /** `count` random bytes from a secure source. */
  random(count: number): Uint8Array
  /** Whether `mac` is HMAC-SHA256 of `data` under `key`, compared in constant time. */
  verifyHmac(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>, mac: Uint8Array<ArrayBuffer>): Promise<boolean>
}

/** {@link HelloCrypto} over Web Crypto. */
export const WEB_CRYPTO: HelloCrypto = {
  random: (count) => crypto.getRandomValues(new Uint8Array(count)),
  verifyHmac: async (key, data, mac) => crypto.subtle.verify('HMAC', await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']), mac, data),
}

/** A fresh nonce: 32 random bytes, base64url (43 characters). */
export function newNonce(primitives: HelloCrypto = WEB_CRYPTO): string {
  return toBase64url(primitives.random(NONCE_BYTES))
}

/** Whether `value` is a nonce as {@link newNonce} makes them: canonical base64url of exactly 32 bytes. */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && value.length === 43 && fromBase64url(value)?.length === NONCE_BYTES
}

/** The token as an HMAC-SHA256 key; import it once and prove many hellos with it. */
export function helloKey(token: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', utf8.encode(token), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
}

/** The exact bytes the proof covers: a JSON array, so no field can run into the next. */
function covered(nonce: string, host: HelloHost): Uint8Array<ArrayBuffer> {
  return utf8.encode(JSON.stringify([HELLO_PURPOSE, nonce, host.url, host.deployment ?? null, host.pid]))
}

/** The proof a server holding `key` answers `nonce` with, as `host`. */
export async function helloProof(key: CryptoKey, nonce: string, host: HelloHost): Promise<string> {
  return toBase64url(new Uint8Array(await crypto.subtle.sign('HMAC', key, covered(nonce, host))))
}

/** `answer` as a {@link HelloAnswer}, or `undefined` when it has another shape. */
function helloAnswerOf(answer: unknown): HelloAnswer | undefined {
  const { host, proof } = (typeof answer === 'object' && answer !== null ? answer : {}) as { host?: Partial<HelloHost>; proof?: unknown }
  if (typeof proof !== 'string' || typeof host !== 'object' || host === null) return undefined
  if (typeof host.url !== 'string' || !Number.isSafeInteger(host.pid)) return undefined
  if (host.deployment !== undefined && typeof host.deployment !== 'string') return undefined
  const clean: HelloHost = { url: host.url, pid: host.pid!, ...(host.deployment === undefined ? {} : { deployment: host.deployment }) }
  return { host: clean, proof }
}

/**
 * Check a hello answer (the `value` of `POST /remote/hello`) against the
 * client's own copy of the token and what it expects: the proof must verify
 * (Web Crypto's HMAC verify, which compares in constant time), and the host
 * must name the very URL the client sent the hello to and the deployment it
 * asked about. Only then may the client send the token there.
 * @param expected - `url`: the base URL the hello went to; `deployment`: the realpath of the deployment file.
 * @param primitives - how to verify the HMAC (Web Crypto's by default; see {@link HelloCrypto}).
 */
export async function verifyHost(token: string, nonce: string, answer: unknown, expected: { url: string; deployment: string }, primitives: HelloCrypto = WEB_CRYPTO): Promise<HostCheck> {
  const hello = helloAnswerOf(answer)
  if (!hello) return { ok: false, reason: 'malformed' }
  const proof = fromBase64url(hello.proof)
  const valid = proof !== undefined && (await primitives.verifyHmac(utf8.encode(token), covered(nonce, hello.host), proof))
  if (!valid) return { ok: false, reason: 'proof' }
  // Proven by the token's holder, but for another address: a relay passed our hello on.
  if (hello.host.url !== expected.url.replace(/\/+$/, '')) return { ok: false, reason: 'url' }
  if (hello.host.deployment !== expected.deployment) return { ok: false, reason: 'deployment' }
  return { ok: true, host: hello.host }
}
