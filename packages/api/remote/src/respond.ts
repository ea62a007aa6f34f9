import type { ServerResponse } from 'node:http'
import { RemoteError, statusOf, type RemoteErrorEnvelope } from './error.ts'

/** The headers every response carries, whatever it answers. */
export function setCommonHeaders(response: ServerResponse): void {
  response.setHeader('Cache-Control', 'no-store')
  response.setHeader('X-Content-Type-Options', 'nosniff')
}

/** Whether a response can still be written: not answered yet and its connection still open. */
function canAnswer(response: ServerResponse): boolean {
  return !response.headersSent && !response.destroyed && !response.writableEnded
}

/** Answer with a JSON body. */
export function sendJson(response: ServerResponse, status: number, body: string): void {
  if (!canAnswer(response)) return
  response.statusCode = status
  response.setHeader('Content-Type', 'application/json; charset=utf-8')
  response.setHeader('Content-Length', Buffer.byteLength(body))
  response.end(body)
}

/** The generic envelope for every failure that is not a `RemoteError`: its details stay in the log. */
export const INTERNAL: RemoteErrorEnvelope = { code: 'internal', message: 'internal error' }

/**
 * Answer with an error envelope. A `RemoteError` is sent as it is (its status
 * from its code); anything else must have been logged by the caller and goes
 * out as the generic `internal` envelope.
 * @returns false when the error had to be replaced by `internal` (its details were not JSON).
 */
export function sendError(response: ServerResponse, error: unknown): boolean {
  let envelope = error instanceof RemoteError ? error.toJSON() : INTERNAL
  let body: string
  let sent = true
  try {
    body = JSON.stringify({ error: envelope })
  } catch {
    envelope = INTERNAL
    body = JSON.stringify({ error: envelope })
    sent = false
  }
  sendJson(response, statusOf(envelope.code), body)
  return sent
}
