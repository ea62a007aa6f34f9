/**
 * The client's side of the hello: send a fresh nonce to a URL where a server
 * is said to run, and accept the answer only if it proves (see `hello.ts`)
 * that the listener holds the token, for that very URL and deployment. Nothing
 * secret is sent: the request carries the nonce alone. Browser-safe.
 */
import { HELLO_PATH, newNonce, verifyHost, type HelloCrypto, type HelloHost, type HostRefusal } from './hello.ts'
import { postOver, type FetchLike, type PostLike } from './transport.ts'

/**
 * Why a listener was not taken for the server: `unreachable` (nothing
 * answered: `detail` holds the network code, `ECONNREFUSED` when nothing
 * listens), `timeout`, `not-a-hello` (an answer that is not a hello: another
 * kind of listener), or a {@link HostRefusal} of the answer itself.
 */
export type HostProofCode = 'unreachable' | 'timeout' | 'not-a-hello' | HostRefusal

/** A listener did not prove it is the server it was taken for. Its message names no secret. */
export class HostProofError extends Error {
  override readonly name = 'HostProofError'
  constructor(
    readonly code: HostProofCode,
    message: string,
    /** For `unreachable`: the network error's code (`ECONNREFUSED`…), when there is one. */
    readonly detail?: string,
  ) {
    super(message)
  }
}

/** What {@link greetHost} needs. */
export interface GreetOptions {
  /** The base URL to greet, e.g. `http://127.0.0.1:5140`. */
  url: string
  /** The client's own copy of the token, to check the proof with; it is never sent. */
  token: string
  /** The realpath of the deployment file the host must be running. */
  deployment: string
  /** The `fetch` to use; the global one by default. */
  fetch?: FetchLike
  /** How to POST the hello, instead of `fetch` (a Node tool's `node:http`, say); see {@link PostLike}. */
  post?: PostLike
  /** The nonce's randomness and the proof's check, instead of Web Crypto's (a Node tool's `node:crypto`); see {@link HelloCrypto}. */
  crypto?: HelloCrypto
  /** How long the listener may take to answer; 3 s by default. */
  timeoutMs?: number
}

/** The most of a hello answer read: a real one is a few hundred bytes. */
const MAX_ANSWER_BYTES = 64 * 1024


/** A failed fetch as a {@link HostProofError}: a timeout, else the network code it gives. */
function failure(base: string, error: unknown, timeoutMs: number): HostProofError {
  if ((error as { name?: unknown })?.name === 'TimeoutError') return new HostProofError('timeout', `${base} did not answer the hello within ${timeoutMs} ms`)
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause
  const code = typeof cause?.code === 'string' ? cause.code : undefined
  return new HostProofError('unreachable', `${base} did not answer the hello (${code ?? 'no connection'})`, code)
}

/**
 * Greet the listener at `url`: `POST /remote/hello` with a fresh nonce and no
 * token, then {@link verifyHost} on the answer. Redirects are not followed.
 * @returns what the proven server says it is.
 * @throws {HostProofError} when nothing answers in time, the answer is not a hello, or it proves nothing.
 */
export async function greetHost(options: GreetOptions): Promise<HelloHost> {
  const base = options.url.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? 3000
  const post: PostLike = options.post ?? postOver(options.fetch)
  const nonce = newNonce(options.crypto)
  let text: string | undefined
  let status: number
  try {
    ;({ status, text } = await post(`${base}${HELLO_PATH}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nonce }), timeoutMs, maxBytes: MAX_ANSWER_BYTES }))
  } catch (error) {
    throw failure(base, error, timeoutMs)
  }
  let value: unknown
  try {
    value = status === 200 && text !== undefined ? (JSON.parse(text) as { value?: unknown }).value : undefined
  } catch {
    value = undefined
  }
  if (value === undefined) throw new HostProofError('not-a-hello', `${base} answered the hello with HTTP ${status} and no hello`)
  const check = await verifyHost(options.token, nonce, value, { url: base, deployment: options.deployment }, options.crypto)
  if (check.ok) return check.host
  const why: Record<HostRefusal, string> = {
    malformed: 'an answer that is not a hello',
    proof: 'a proof that does not verify with this deployment\'s token',
    url: 'a proof for another address (a relay passing the hello on)',
    deployment: 'a proof for another deployment',
  }
  throw new HostProofError(check.reason, `${base} answered the hello with ${why[check.reason]}`)
}
