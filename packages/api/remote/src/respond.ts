import type { ServerResponse } from 'node:http'
import { RemoteError, statusOf, type RemoteErrorEnvelope } from './error.ts'

/**
 * The Content-Security-Policy of the page and its assets: the settings page's
 * own `<meta>` policy (its scripts, styles and images, and requests back to
 * this server), plus what only a header can say (`frame-ancestors`).
 */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** The Content-Security-Policy of every other answer (JSON, event streams): nothing to load, no framing. */
export const API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** The headers every response carries, whatever it answers (a page answer replaces the policy with {@link PAGE_POLICY}). */
export function setCommonHeaders(response: ServerResponse): void {
  response.setHeader('Cache-Control', 'no-store')
  response.setHeader('X-Content-Type-Options', 'nosniff')
  response.setHeader('X-Frame-Options', 'DENY')
  response.setHeader('Referrer-Policy', 'no-referrer')
  response.setHeader('Content-Security-Policy', API_POLICY)
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
