/**
 * The record a running server keeps in its home, `remote-host.json`: its URL,
 * process id and the deployment file it runs, so a command on this machine
 * (`dsh settings set`) finds the running host of a deployment and goes
 * through it instead of beside it. The token stays in its own file; the
 * record holds nothing secret, but is 0600 like everything else in the home.
 * A command trusts it only so far: it greets the URL (`POST /remote/hello`)
 * and sends the token only to a listener that proves it holds it.
 */
import { readFile, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { makeHome, ownerFor, writeTemp } from './token.ts'

/** The record's file name inside the server's home. */
export const HOST_FILE = 'remote-host.json'

/** The token file beside it (re-exported here, so a command that reads both loads nothing of the server). */
export { TOKEN_FILE } from './token.ts'

/** What the record holds. */
export interface HostRecord {
  /** The bound base URL, e.g. `http://127.0.0.1:5140`. */
  url: string
  /** The server's process. */
  pid: number
  /** The realpath of the deployment file the host runs; absent for a host no loader started (a command never uses that one). */
  deployment?: string
}

/**
 * Write this server's record into `home` (replacing a record another server
 * of the same home left: the newest server is the one a command reaches).
 * @returns a function that removes the record, unless another server has written its own since.
 */
export async function writeHostRecord(home: string, url: string, deployment?: string): Promise<() => Promise<void>> {
  const file = join(home, HOST_FILE)
  const owner = await ownerFor(home)
  await makeHome(home, owner)
  const record: HostRecord = { url, pid: process.pid, ...(deployment === undefined ? {} : { deployment }) }
  const text = `${JSON.stringify(record)}\n`
  const temp = await writeTemp(file, text, owner)
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  return async () => {
    const now = await readFile(file, 'utf8').catch(() => undefined)
    if (now === text) await unlink(file).catch(() => {})
  }
}
