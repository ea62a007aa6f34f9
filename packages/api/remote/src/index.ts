/**
 * dsh-remote: a small HTTP + Server-Sent Events protocol for calling cordis
 * services from other processes and browser pages. The server end is
 * `RemoteServer` (`ctx.remoteServer`, the default export); the client end is
 * `createRemote` and the `RemoteClient` plugin (`ctx.remote`), both also
 * available from the browser-safe `dsh-remote/client` and `dsh-remote/client-plugin`.
 */
export { RemoteServer, RemoteServer as default } from './server.ts'
export { createRemote, type RemoteClientOptions, type UntypedServices } from './client.ts'
export { RemoteClient } from './client-plugin.ts'
export {
  RemoteError,
  RemoteExposureError,
  REMOTE_STATUS,
  statusOf,
  type RemoteErrorCode,
  type RemoteErrorEnvelope,
  type RemoteErrorOptions,
  type RemoteErrorStatuses,
  type RemoteExposureCode,
} from './error.ts'
export { MAX_BODY_BYTES } from './body.ts'
export { PING_INTERVAL_MS } from './event-hub.ts'
export { RECONNECT_INITIAL_MS, RECONNECT_MAX_MS } from './event-stream.ts'
export { TOKEN_FILE } from './token.ts'
/** How the server writes what it keeps in its home (0600, exclusive temp, owner kept when run as root), shared with the settings controller's catalog. */
export { makeHome, ownerFor, writeTemp, type Owner } from './token.ts'
export { HOST_FILE, type HostRecord } from './host-record.ts'
export { DEFAULT_PORT_SPAN, RemotePortError, type RemotePortCode } from './ports.ts'
export type { FetchLike } from './transport.ts'
export { HELLO_PATH, HELLO_PURPOSE, helloKey, helloProof, isNonce, newNonce, verifyHost, type HelloAnswer, type HelloHost, type HostCheck, type HostRefusal } from './hello.ts'
export { greetHost, HostProofError, type GreetOptions, type HostProofCode } from './greet.ts'
export type {
  Remote,
  RemoteEvent,
  RemoteEventHandler,
  RemoteEvents,
  RemoteEventsOptions,
  RemoteExposeOptions,
  RemoteHandler,
  RemoteHandlers,
  RemoteMethod,
  RemoteRequest,
  RemoteService,
  RemoteServices,
} from './types.ts'
