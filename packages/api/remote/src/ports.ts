import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** How many ports above `port` a server tries when `maxPort` is not set (Koishi's `port + 9`). */
export const DEFAULT_PORT_SPAN = 9

/** The highest TCP port. */
const MAX_TCP_PORT = 65535

/** The ports a server may bind, tried in order: `first` to `last`; `first` 0 means any free port. */
export interface PortRange {
  readonly first: number
  readonly last: number
}

/** Why a server could not take a port: every port of its range was in use, or the range is upside down. */
export type RemotePortCode = 'REMOTE_PORTS_BUSY' | 'REMOTE_BAD_PORT_RANGE'

/**
 * The server could not bind: `REMOTE_PORTS_BUSY` when another process holds
 * every port from `first` to `last` on `host`, `REMOTE_BAD_PORT_RANGE` when
 * `maxPort` is below `port`. The message names the address and the ports.
 */
export class RemotePortError extends Error {
  override readonly name = 'RemotePortError'
  constructor(
    readonly code: RemotePortCode,
    readonly host: string,
    readonly first: number,
    readonly last: number,
    message: string,
  ) {
    super(message)
  }
}

/** `5140` or `5140-5149`. */
export const describeRange = ({ first, last }: PortRange): string => (first === last ? String(first) : `${first}-${last}`)

/**
 * The range to try for `port` and `maxPort` as configured: `port` 0 is any
 * free port (`maxPort` does not apply); otherwise `port` to `maxPort`, which
 * defaults to `port + 9` (capped at 65535).
 * @throws {RemotePortError} `REMOTE_BAD_PORT_RANGE` for a `maxPort` below `port`.
 */
export function portRange(host: string, port: number, maxPort: number | undefined): PortRange {
  if (port === 0) return { first: 0, last: 0 }
  const last = maxPort ?? Math.min(port + DEFAULT_PORT_SPAN, MAX_TCP_PORT)
  if (last < port) throw new RemotePortError('REMOTE_BAD_PORT_RANGE', host, port, last, `remote: maxPort ${last} is below port ${port}`)
  return { first: port, last }
}

/** Listen once; resolves with the bound address, rejects with the listen error, and leaves no listener behind either way. */
function listenOnce(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const listening = () => {
      server.off('error', failed)
      resolve(server.address() as AddressInfo)
    }
    const failed = (error: Error) => {
      server.off('listening', listening)
      reject(error)
    }
    server.once('error', failed)
    server.once('listening', listening)
    server.listen({ host, port })
  })
}

/**
 * Bind `server` to the first port of `range` that is free on `host`. Only a
 * port in use (`EADDRINUSE`) moves on to the next one: any other failure
 * (`EACCES` for a privileged port, `EADDRNOTAVAIL` for a foreign address)
 * would fail the same way on every port, and is thrown as it is.
 * @returns the bound address and the ports found busy before it.
 * @throws {RemotePortError} `REMOTE_PORTS_BUSY` naming the range when every port is in use.
 */
export async function listenInRange(server: Server, host: string, range: PortRange): Promise<{ address: AddressInfo; busy: number[] }> {
  const busy: number[] = []
  for (let port = range.first; port <= range.last; port++) {
    try {
      // A server whose listen failed may listen again (node:net allows it after an error).
      return { address: await listenOnce(server, host, port), busy }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
      busy.push(port)
    }
  }
  const ports = range.first === range.last ? `port ${range.first} is` : `every port from ${range.first} to ${range.last} is`
  throw new RemotePortError(
    'REMOTE_PORTS_BUSY',
    host,
    range.first,
    range.last,
    `remote: ${ports} in use on ${host} (another host is running there?); set port and maxPort (DSH_PORT in cordis.yml) to a free range`,
  )
}
