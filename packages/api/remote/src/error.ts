/**
 * The machine-readable codes a remote call can fail with: dsh-remote's own
 * (`remote/*` and `internal`), and whatever codes the exposed services
 * register for themselves (`echo/empty`, say).
 */
export type RemoteErrorCode =
  | 'remote/bad-request'
  | 'remote/unauthorized'
  | 'remote/forbidden'
  | 'remote/not-found'
  | 'remote/method-not-allowed'
  | 'remote/too-large'
  | 'remote/unavailable'
  | 'internal'
  | (string & {})

/** The error envelope on the wire: `{ "error": { code, message, details? } }`. The status travels as the HTTP status. */
export interface RemoteErrorEnvelope {
  code: RemoteErrorCode
  message: string
  details?: unknown
}

/** Codes and the HTTP status each answers with, as a service registers them: `{ 'echo/empty': 422 }`. */
export type RemoteErrorStatuses = Readonly<Record<string, number>>

/** Options of a {@link RemoteError} beyond its code, message and details. */
export interface RemoteErrorOptions {
  /**
   * The HTTP status this error answers with (400 to 599). Without it the
   * server takes the status the throwing service registered for the code,
   * else dsh-remote's own for its codes, else 500.
   */
  status?: number
}

/** Whether `status` is an HTTP status an error may answer with. */
export function isErrorStatus(status: unknown): status is number {
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
}

/**
 * A failed remote call, the same object on both ends: a service throws it,
 * the server sends its envelope with its HTTP status, the client rebuilds it
 * (with the status it arrived with). `message` and `details` travel to the
 * caller, so they must never hold a secret.
 */
export class RemoteError extends Error {
  override readonly name = 'RemoteError'
  /** The HTTP status it answers (or, rebuilt by a client, answered) with; `undefined` leaves it to the code. */
  readonly status?: number

  /** @throws {RangeError} for a `status` outside 400 to 599: an error never answers as a success or a redirect. */
  constructor(
    readonly code: RemoteErrorCode,
    message: string,
    readonly details?: unknown,
    options: RemoteErrorOptions = {},
  ) {
    super(message)
    if (options.status !== undefined) {
      if (!isErrorStatus(options.status)) throw new RangeError(`remote: an error status must be an integer from 400 to 599, not ${String(options.status)}`)
      this.status = options.status
    }
  }

  /** The wire envelope of this error. */
  toJSON(): RemoteErrorEnvelope {
    return { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) }
  }

  /** Rebuild an error from a wire envelope and, when known, the HTTP status it came with. */
  static from(envelope: RemoteErrorEnvelope, status?: number): RemoteError {
    return new RemoteError(envelope.code, envelope.message, envelope.details, isErrorStatus(status) ? { status } : {})
  }
}

/**
 * The HTTP status of each of dsh-remote's own codes. Services add theirs when
 * they expose themselves (`expose(name, handlers, { errors })`); a code known
 * to neither answers 500.
 */
export const REMOTE_STATUS: RemoteErrorStatuses = Object.freeze({
  'remote/bad-request': 400,
  'remote/unauthorized': 401,
  'remote/forbidden': 403,
  'remote/not-found': 404,
  'remote/method-not-allowed': 405,
  'remote/too-large': 413,
  'remote/unavailable': 503,
  internal: 500,
})

/**
 * The HTTP status an error answers with: its own `status`, else the status
 * `registered` (its service's codes) gives its code, else dsh-remote's own
 * {@link REMOTE_STATUS}, else 500.
 */
export function statusOf(error: RemoteError, registered?: ReadonlyMap<string, number>): number {
  if (error.status !== undefined) return error.status
  return registered?.get(error.code) ?? (Object.hasOwn(REMOTE_STATUS, error.code) ? REMOTE_STATUS[error.code]! : 500)
}

/** Whether an error's status comes from somewhere other than the 500 fallback for unknown codes. */
export function hasKnownStatus(error: RemoteError, registered?: ReadonlyMap<string, number>): boolean {
  return error.status !== undefined || registered?.has(error.code) === true || Object.hasOwn(REMOTE_STATUS, error.code)
}

/** Why an exposure was refused on the server: a programming error, never sent over the wire. */
export type RemoteExposureCode = 'REMOTE_DUPLICATE' | 'REMOTE_BAD_NAME' | 'REMOTE_BAD_HANDLER' | 'REMOTE_BAD_ERRORS'

/**
 * `expose` refused a service: its name is taken by a live exposure, a name
 * breaks the grammar (or is reserved), a handler is not a function, or its
 * error codes are malformed (an empty code, one of dsh-remote's own, a status
 * outside 400 to 599).
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

/**
 * Check the codes a service registers and copy them into a lookup table.
 * @throws {RemoteExposureError} `REMOTE_BAD_ERRORS` for a table that is not an object, an empty code, one of
 *   dsh-remote's own codes (their statuses are the protocol's, not a service's), or a status outside 400 to 599.
 */
export function errorStatuses(service: string, statuses: RemoteErrorStatuses | undefined): ReadonlyMap<string, number> {
  const table = new Map<string, number>()
  if (statuses === undefined) return table
  const bad = (why: string): never => {
    throw new RemoteExposureError('REMOTE_BAD_ERRORS', `remote: the error codes of ${service} ${why}`)
  }
  if (typeof statuses !== 'object' || statuses === null || Array.isArray(statuses)) bad('must be an object of code: status')
  for (const [code, status] of Object.entries(statuses)) {
    if (!code) bad('hold an empty code')
    if (Object.hasOwn(REMOTE_STATUS, code)) bad(`re-map dsh-remote's own code ${code}`)
    if (!isErrorStatus(status)) bad(`give ${code} the status ${String(status)}, not one from 400 to 599`)
    table.set(code, status)
  }
  return table
}
