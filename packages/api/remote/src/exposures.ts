import { errorStatuses, RemoteError, RemoteExposureError, type RemoteErrorStatuses } from './error.ts'
import { isMethodName, isServiceName } from './names.ts'
import type { RemoteHandler, RemoteHandlers } from './types.ts'

/** One exposed service: a snapshot of its handlers and the calls it is running. */
export interface Exposure {
  readonly service: string
  /** The handler object, the `this` of each call. */
  readonly receiver: RemoteHandlers
  readonly handlers: ReadonlyMap<string, RemoteHandler>
  /** The error codes the service registered, and the HTTP status of each. */
  readonly errors: ReadonlyMap<string, number>
  /** Aborted when the exposure is removed, so handlers can stop work nobody can receive. */
  readonly calls: Set<AbortController>
}

/**
 * The services a server currently exposes, by name. A name has at most one
 * live exposure; the handler list is copied when a service is exposed, so
 * methods added to the object later are not reachable.
 */
export class Exposures {
  private readonly services = new Map<string, Exposure>()

  /**
   * Add a service, with the error codes it answers with.
   * @throws {RemoteExposureError} `REMOTE_BAD_NAME` for a malformed or reserved service or method name,
   *   `REMOTE_BAD_HANDLER` for a handler that is not a function, `REMOTE_BAD_ERRORS` for malformed
   *   error codes, `REMOTE_DUPLICATE` while the name is exposed.
   */
  add(service: string, receiver: RemoteHandlers, errors?: RemoteErrorStatuses): Exposure {
    if (typeof service !== 'string' || !isServiceName(service)) {
      throw new RemoteExposureError('REMOTE_BAD_NAME', `remote: ${JSON.stringify(service)} is not a valid service name (a letter, then letters, digits, "_" or "-"; not "events" or "then")`)
    }
    if (typeof receiver !== 'object' || receiver === null) {
      throw new RemoteExposureError('REMOTE_BAD_HANDLER', `remote: the handlers of ${service} must be an object of functions`)
    }
    const handlers = new Map<string, RemoteHandler>()
    for (const method of Object.keys(receiver)) {
      if (!isMethodName(method)) throw new RemoteExposureError('REMOTE_BAD_NAME', `remote: ${service}.${JSON.stringify(method)} is not a valid method name`)
      const handler = receiver[method]
      if (typeof handler !== 'function') throw new RemoteExposureError('REMOTE_BAD_HANDLER', `remote: ${service}.${method} is not a function`)
      handlers.set(method, handler)
    }
    const statuses = errorStatuses(service, errors)
    if (this.services.has(service)) throw new RemoteExposureError('REMOTE_DUPLICATE', `remote: the service ${service} is already exposed`)
    const exposure: Exposure = { service, receiver, handlers, errors: statuses, calls: new Set() }
    this.services.set(service, exposure)
    return exposure
  }

  /** Remove an exposure (a later one under the same name is left alone) and abort its running calls. */
  remove(exposure: Exposure): void {
    if (this.services.get(exposure.service) === exposure) this.services.delete(exposure.service)
    const withdrawn = new RemoteError('remote/unavailable', `the service ${exposure.service} was withdrawn`)
    for (const call of exposure.calls) call.abort(withdrawn)
    exposure.calls.clear()
  }

  /** The live exposure of `service`, if any. */
  get(service: string): Exposure | undefined {
    return this.services.get(service)
  }
}
