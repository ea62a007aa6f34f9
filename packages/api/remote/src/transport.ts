import { isErrorStatus, RemoteError, type RemoteErrorEnvelope } from './error.ts'

/** The part of `fetch` a client uses; pass your own to go through a proxy or to record traffic. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

/** One JSON POST as a method call and the hello make it. */
export interface PostRequest {
  headers: Record<string, string>
  body: string
  /** Give up after this long: the promise rejects with an error named `TimeoutError`. */
  timeoutMs?: number
  /** Read at most this many bytes of the answer: past it, `text` is `undefined`. */
  maxBytes?: number
}

/**
 * What a method call and the hello need of the network: POST a body and get
 * the answer's status and text. Redirects are never followed (a 3xx is an
 * answer like any other). A network failure rejects with an error whose
 * `cause.code` names it (`ECONNREFUSED`); a timeout with one named `TimeoutError`.
 * The default goes through `fetch`; a Node tool may pass one over `node:http`,
 * which starts much faster than `fetch` does.
 */
export type PostLike = (url: string, request: PostRequest) => Promise<{ status: number; text: string | undefined }>

/** The body of `response`, or `undefined` once it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder().decode(bytes)
}

/** {@link PostLike} over a `fetch` (the global one by default). */
export function postOver(fetch: FetchLike = (input, init) => globalThis.fetch(input, init)): PostLike {
  return async (url, request) => {
    const init: RequestInit = { method: 'POST', headers: request.headers, body: request.body, redirect: 'manual' }
    if (request.timeoutMs !== undefined) init.signal = AbortSignal.timeout(request.timeoutMs)
    const response = await fetch(url, init)
    const text = request.maxBytes === undefined ? await response.text() : await readCapped(response, request.maxBytes)
    return { status: response.status, text }
  }
}

function isEnvelope(value: unknown): value is RemoteErrorEnvelope {
  return typeof value === 'object' && value !== null && typeof (value as RemoteErrorEnvelope).code === 'string' && typeof (value as RemoteErrorEnvelope).message === 'string'
}

/** A network failure as the caller sees it: `remote/unavailable`, naming the server and the cause (never the token). */
export function unreachable(base: string, error: unknown): RemoteError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause
  const reason = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error)
  return new RemoteError('remote/unavailable', `cannot reach ${base}: ${reason}`)
}

/** Read a JSON answer; `undefined` when the body is not JSON. A body that cannot be read is a network failure. */
export async function readJson(base: string, response: Response): Promise<unknown> {
  let text: string
  try {
    text = await response.text()
  } catch (error) {
    throw unreachable(base, error)
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * The error an answer stands for: the envelope it carries, rebuilt with the
 * answer's status, or a generic one naming the status.
 */
export function errorFrom(status: number, payload: unknown): RemoteError {
  const envelope = (payload as { error?: unknown } | undefined)?.error
  if (isEnvelope(envelope)) return RemoteError.from(envelope, status)
  return new RemoteError(status >= 500 ? 'remote/unavailable' : 'internal', `the server answered HTTP ${status} without an error envelope`, undefined, isErrorStatus(status) ? { status } : {})
}

/** {@link errorFrom} for a response whose body has not been read yet. */
export async function errorFromResponse(response: Response): Promise<RemoteError> {
  const payload = await readJson(response.url || 'the server', response).catch(() => undefined)
  return errorFrom(response.status, payload)
}
