import { isErrorStatus, RemoteError, type RemoteErrorEnvelope } from './error.ts'

/** The part of `fetch` a client uses; pass your own to go through a proxy or to record traffic. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

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
