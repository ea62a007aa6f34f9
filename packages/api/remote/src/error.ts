/** The machine-readable codes a remote call can fail with. */
export type RemoteErrorCode =
  | 'settings/invalid'
  | 'settings/rejected'
  | 'settings/conflict'
  | 'settings/unavailable'
  | 'remote/bad-request'
  | 'remote/unauthorized'
  | 'remote/forbidden'
  | 'remote/not-found'
  | 'remote/method-not-allowed'
  | 'remote/too-large'
  | 'remote/unavailable'
  | 'internal'
  | (string & {})

/** The error envelope on the wire: `{ "error": { code, message, details? } }`. */
export interface RemoteErrorEnvelope {
  code: RemoteErrorCode
  message: string
  details?: unknown
}

/**
 * A failed remote call, the same object on both ends: a service throws it,
 * the server sends its envelope, the client rebuilds it. `message` and
 * `details` travel to the caller, so they must never hold a secret.
 */
export class RemoteError extends Error {
  override readonly name = 'RemoteError'
  constructor(
    readonly code: RemoteErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
  }

  /** The wire envelope of this error. */
  toJSON(): RemoteErrorEnvelope {
    return { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) }
  }

  /** Rebuild an error from a wire envelope. */
  static from(envelope: RemoteErrorEnvelope): RemoteError {
    return new RemoteError(envelope.code, envelope.message, envelope.details)
  }
}

/** The HTTP status each code answers with; an unknown code is a 500. */
export const REMOTE_STATUS: Readonly<Record<string, number>> = {
  'settings/invalid': 400,
  'settings/rejected': 422,
  'settings/conflict': 409,
  'settings/unavailable': 503,
  'remote/bad-request': 400,
  'remote/unauthorized': 401,
  'remote/forbidden': 403,
  'remote/not-found': 404,
  'remote/method-not-allowed': 405,
  'remote/too-large': 413,
  'remote/unavailable': 503,
  internal: 500,
}

/** The HTTP status a code answers with: its {@link REMOTE_STATUS} entry, else 500. */
export function statusOf(code: string): number {
  return Object.hasOwn(REMOTE_STATUS, code) ? REMOTE_STATUS[code]! : 500
}

/** Why an exposure was refused on the server: a programming error, never sent over the wire. */
export type RemoteExposureCode = 'REMOTE_DUPLICATE' | 'REMOTE_BAD_NAME' | 'REMOTE_BAD_HANDLER'

/**
 * `expose` refused a service: its name is taken by a live exposure, a name
 * breaks the grammar (or is reserved), or a handler is not a function.
 */
export class RemoteExposureError extends Error {
  override readonly name = 'RemoteExposureError'
  constructor(
    readonly code: RemoteExposureCode,
    message: string,
  ) {
    super(message)
  }
}
