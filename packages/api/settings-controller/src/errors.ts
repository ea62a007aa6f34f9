import type { Logger } from 'cordis'
import { RemoteError, type RemoteErrorStatuses } from 'dsh-remote'
import {
  SettingsConflictError,
  SettingsInputError,
  SettingsStoreError,
  SettingsUnavailableError,
  SettingsValidationError,
  type SettingsInputReason,
} from 'dsh-settings'

/**
 * The code of a call an in-process caller gave up by aborting its signal. On
 * the wire the server aborts the signal itself (the client went away, the
 * service was withdrawn) with a `RemoteError` as the reason, and that reason
 * is what the call fails with instead.
 */
export const CANCELLED = 'cancelled'

/** The plugin a deployment adds to get a settings provider; named in every "unavailable" message. */
const PROVIDER_HINT = 'add the dsh-settings-file plugin (or another settings provider) to the deployment'

/** Which section a failed call concerned, for `details`. */
export interface SectionFacts {
  ns: string
  scope?: string
}

/**
 * The controller's wire codes and the HTTP status of each, registered with
 * the remote server when the controller exposes itself there (dsh-remote
 * knows no service's codes). `cancelled` is not among them: on the wire an
 * aborted call fails with the server's own abort reason instead.
 */
export const SETTINGS_ERROR_STATUS: RemoteErrorStatuses = Object.freeze({
  'settings/invalid': 400,
  'settings/rejected': 422,
  'settings/conflict': 409,
  'settings/unavailable': 503,
})

/**
 * The wire code of each of the seam's input reasons: a malformed call is
 * `settings/invalid`; data a well-formed call carries that the seam will not
 * store (not JSON, a prototype key, no such array element) is
 * `settings/rejected`, as the seam's other refusals on the merits are. Typed
 * over the whole reason union, so a reason the seam adds cannot go unmapped.
 */
const INPUT_CODES: Readonly<Record<SettingsInputReason, 'settings/invalid' | 'settings/rejected'>> = {
  'bad-namespace': 'settings/invalid',
  'bad-scope': 'settings/invalid',
  'bad-revision': 'settings/invalid',
  'not-object': 'settings/invalid',
  'bad-op': 'settings/invalid',
  'too-many-ops': 'settings/invalid',
  'too-deep': 'settings/invalid',
  'too-large': 'settings/invalid',
  'bad-argument': 'settings/invalid',
  'not-json': 'settings/rejected',
  'prototype-key': 'settings/rejected',
  'bad-index': 'settings/rejected',
}

/** The wire code a seam input refusal answers with. */
export function inputCode(reason: SettingsInputReason): 'settings/invalid' | 'settings/rejected' {
  return INPUT_CODES[reason] ?? 'settings/invalid'
}

/** A malformed argument of the controller's own (arity, signal, preset id). */
export function invalid(message: string, details?: Record<string, unknown>): RemoteError {
  return new RemoteError('settings/invalid', message, details)
}

/** Something the controller or the settings service refused on its merits. */
export function rejected(message: string, details?: Record<string, unknown>): RemoteError {
  return new RemoteError('settings/rejected', message, details)
}

/** A capability this host does not have right now (no provider, no document, no opener). */
export function unavailable(message: string, details?: Record<string, unknown>): RemoteError {
  return new RemoteError('settings/unavailable', message, details)
}

/** The call was aborted before it finished: the abort's own `RemoteError` reason, else a `cancelled` one. */
export function cancelled(what: string, signal: AbortSignal | undefined): RemoteError {
  const reason: unknown = signal?.reason
  return reason instanceof RemoteError ? reason : new RemoteError(CANCELLED, `${what} was cancelled`)
}

/** The error every call answers while no settings provider is mounted. */
export function noProvider(): RemoteError {
  return unavailable(`no settings provider is mounted: ${PROVIDER_HINT}`)
}

/**
 * The error every call answers while the settings provider is mounted but has
 * not started: its last start failure's message (it names the store, never
 * its content) and code as `details.reason`, or that it is still starting.
 */
export function providerStarting(failure: SettingsStoreError | undefined): RemoteError {
  if (!failure) return unavailable('the settings provider is still starting')
  return unavailable(`the settings provider has not started yet, and keeps trying: ${failure.message}`, { reason: failure.code })
}

/**
 * `details` for one section: `scope` is left out for the global section
 * rather than sent as `undefined`, and the section is left out altogether
 * when the call never named a valid one (a malformed namespace).
 */
export function sectionDetails(facts: Partial<SectionFacts> | undefined, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...(facts?.ns === undefined ? {} : { ns: facts.ns }), ...(facts?.scope === undefined ? {} : { scope: facts.scope }), ...extra }
}

/**
 * Turn whatever a settings call threw into the `RemoteError` a caller sees,
 * by error class and reason, never by message text (decision 14):
 * - the seam's input refusal is `settings/invalid` or `settings/rejected` as
 *   its `reason` says ({@link inputCode}), with the seam's message and
 *   `{ ns?, scope?, path?, op?, reason }` (`path` names the refused place in the section, `op` the refused op);
 * - a stale `expectedRevision` is `settings/conflict` with `{ ns, scope?, expected, actual }`;
 * - schema and owner-check refusals, an unknown namespace and a read-only
 *   provider are `settings/rejected` with the service's own message (it is built
 *   never to quote a received value) and `{ ns, scope?, path?, reason }`;
 * - a store's refusal (`SettingsStoreError`) is `settings/rejected` or `settings/unavailable` as its
 *   `refusal` says (read-only: rejected; busy: unavailable); its message names the store, never its content;
 * - a service that is shutting down is `settings/unavailable`;
 * - anything else is `internal` with a generic message; the original goes to the log only,
 *   because its text (a storage error, say) was never vetted for the wire.
 * @param facts - the section the call concerned, once the call named a valid one.
 */
export function toRemoteError(error: unknown, facts: SectionFacts | undefined, logger: Logger, label: string): RemoteError {
  if (error instanceof RemoteError) return error
  if (error instanceof SettingsInputError) {
    const where = facts ?? (error.ns === undefined ? undefined : { ns: error.ns, scope: error.scope })
    const extra = { ...(error.path === undefined ? {} : { path: [...error.path] }), ...(error.op === undefined ? {} : { op: error.op }), reason: error.reason }
    return new RemoteError(inputCode(error.reason), error.message, sectionDetails(where, extra))
  }
  if (error instanceof SettingsConflictError) {
    return new RemoteError('settings/conflict', error.message, sectionDetails(facts, { expected: error.expected, actual: error.actual }))
  }
  if (error instanceof SettingsValidationError) {
    return rejected(error.message, sectionDetails(facts, { path: [...error.path], reason: error.code }))
  }
  if (error instanceof SettingsUnavailableError) {
    if (error.code === 'SETTINGS_DISPOSED') return unavailable(error.message, sectionDetails(facts, { reason: error.code }))
    return rejected(error.message, sectionDetails(facts, { reason: error.code }))
  }
  if (error instanceof SettingsStoreError) {
    const make = error.refusal === 'unavailable' ? unavailable : rejected
    const { position, path } = error as { position?: unknown; path?: unknown }
    // A store's own place (data the document cannot hold) is a path inside the section, as on a validation error.
    const at = Array.isArray(path) && path.every((segment) => typeof segment === 'string') ? { path: [...(path as string[])] } : {}
    return make(error.message, sectionDetails(facts, { ...at, reason: error.code, ...(position ? { position } : {}) }))
  }
  return internal(error, logger, label)
}

/** Log an unexpected failure and answer the generic `internal` error in its place. */
export function internal(error: unknown, logger: Logger, label: string): RemoteError {
  logger.error(`settings-controller: ${label} failed unexpectedly:`, error)
  return new RemoteError('internal', `${label} failed unexpectedly; the host log has the details`)
}
