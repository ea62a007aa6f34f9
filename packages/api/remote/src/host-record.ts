/**
 * The record a running server keeps in its home, `remote-host.json`: its URL
 * and process id, so a command on this machine (`dsh settings set`) finds the
 * running host of a deployment and goes through it instead of beside it. The
 * token stays in its own file; the record holds nothing secret, but is 0600
 * like everything else in the home.
 */
import { readFile, rename, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { makeHome, ownerFor, writeTemp } from './token.ts'

/** The record's file name inside the server's home. */
export const HOST_FILE = 'remote-host.json'

/** What the record holds. */
export interface HostRecord {
  /** The bound base URL, e.g. `http://127.0.0.1:5140`. */
  url: string
  /** The server's process. */
  pid: number
}

/**
 * Write this server's record into `home` (replacing a record another server
 * of the same home left: the newest server is the one a command reaches).
 * @returns a function that removes the record, unless another server has written its own since.
 */
export async function writeHostRecord(home: string, url: string): Promise<() => Promise<void>> {
  const file = join(home, HOST_FILE)
  const owner = await ownerFor(home)
  await makeHome(home, owner)
  const record: HostRecord = { url, pid: process.pid }
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
