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
 * Answer with an error envelope. A `RemoteError` is sent as it is, with the
 * status {@link statusOf} gives it (`registered` holds the codes of the
 * service that threw it); anything else must have been logged by the caller
 * and goes out as the generic `internal` envelope, 500.
 * @returns false when the error had to be replaced by `internal` (its details were not JSON).
 */
export function sendError(response: ServerResponse, error: unknown, registered?: ReadonlyMap<string, number>): boolean {
  if (!(error instanceof RemoteError)) {
    sendJson(response, 500, JSON.stringify({ error: INTERNAL }))
    return true
  }
  let body: string
  try {
    body = JSON.stringify({ error: error.toJSON() })
  } catch {
    sendJson(response, 500, JSON.stringify({ error: INTERNAL }))
    return false
  }
  sendJson(response, statusOf(error, registered), body)
  return true
}
