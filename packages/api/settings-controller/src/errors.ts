import type { Logger } from 'cordis'
import { RemoteError } from 'dsh-remote'
import { SettingsConflictError, SettingsInputError, SettingsStoreError, SettingsUnavailableError, SettingsValidationError } from 'dsh-settings'

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

/** A failed shape check at the controller's boundary. */
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

/** `details` for one section: `scope` is left out for the global section rather than sent as `undefined`. */
export function sectionDetails(facts: SectionFacts, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ns: facts.ns, ...(facts.scope === undefined ? {} : { scope: facts.scope }), ...extra }
}

/**
 * Read the seam's `$`-rooted path text (`$.a.b`, `$.list[0]`, `$["odd key"]`)
 * back into segments, so `details.path` has one shape whichever error produced it.
 * @returns the segments, or `undefined` for text that is not such a path.
 */
export function parsePathText(text: string): string[] | undefined {
  if (!text.startsWith('$')) return undefined
  const segments: string[] = []
  let at = 1
  while (at < text.length) {
    if (text[at] === '.') {
      const match = /^[A-Za-z_$][\w$-]*/.exec(text.slice(at + 1))
      if (!match) return undefined
      segments.push(match[0])
      at += 1 + match[0].length
    } else if (text.startsWith('["', at)) {
      // Scan the JSON string literal to its closing quote, stepping over escapes.
      let end = at + 2
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      if (text[end + 1] !== ']') return undefined
      try {
        segments.push(JSON.parse(text.slice(at + 1, end + 1)) as string)
      } catch {
        return undefined
      }
      at = end + 2
    } else if (text[at] === '[') {
      const match = /^\[(\d+)\]/.exec(text.slice(at))
      if (!match) return undefined
      segments.push(match[1]!)
      at += match[0].length
    } else {
      return undefined
    }
  }
  return segments
}

/**
 * Turn whatever a settings call threw into the `RemoteError` a caller sees,
 * by error class and never by message text (decision 14):
 * - a stale `expectedRevision` is `settings/conflict` with `{ ns, scope?, expected, actual }`;
 * - input, schema and owner-check refusals, an unknown namespace and a read-only
 *   provider are `settings/rejected` with the service's own message (it is built
 *   never to quote a received value) and `{ ns, scope?, path?, reason }`;
 * - a store's refusal (`SettingsStoreError`) is `settings/rejected` or `settings/unavailable` as its
 *   `refusal` says (read-only: rejected; busy: unavailable); its message names the store, never its content;
 * - a service that is shutting down is `settings/unavailable`;
 * - anything else is `internal` with a generic message; the original goes to the log only,
 *   because its text (a storage error, say) was never vetted for the wire.
 */
export function toRemoteError(error: unknown, facts: SectionFacts, logger: Logger, label: string): RemoteError {
  if (error instanceof RemoteError) return error
  if (error instanceof SettingsConflictError) {
    return new RemoteError('settings/conflict', error.message, sectionDetails(facts, { expected: error.expected, actual: error.actual }))
  }
  if (error instanceof SettingsValidationError) {
    return rejected(error.message, sectionDetails(facts, { path: [...error.path], reason: error.code }))
  }
  if (error instanceof SettingsInputError) {
    const path = error.path === undefined ? undefined : parsePathText(error.path)
    return rejected(error.message, sectionDetails(facts, { ...(path ? { path } : {}), reason: error.code }))
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
