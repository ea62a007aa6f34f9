import { createServer, type Server } from 'node:net'

/** Consecutive ports on 127.0.0.1 held by plain TCP listeners of this process, as another host would hold them. */
export interface HeldPorts {
  /** The first held port. */
  first: number
  /** The last held port. */
  last: number
  /** Close every listener (idempotent). */
  release(): Promise<void>
}

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(undefined))
    server.listen({ host: '127.0.0.1', port }, () => resolve(server))
  })
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()))

/**
 * Hold `count` consecutive ports, with `free` more ports after them that were
 * free a moment ago (probed, then let go), at a random base between 20000 and
 * 60000; another base is tried when one is taken (tests run in parallel).
 */
export async function holdPorts(count: number, free = 0): Promise<HeldPorts> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const first = 20_000 + Math.floor(Math.random() * 40_000)
    const held: Server[] = []
    for (let port = first; port < first + count + free; port++) {
      const server = await listen(port)
      if (!server) break
      held.push(server)
    }
    if (held.length === count + free) {
      // The probes above the held range go again, so those ports are free for the server under test.
      for (const server of held.splice(count)) await close(server)
      let released: Promise<void> | undefined
      return { first, last: first + count - 1, release: () => (released ??= Promise.all(held.map(close)).then(() => {})) }
    }
    for (const server of held) await close(server)
  }
  throw new Error(`could not find ${count + free} free consecutive ports`)
}
