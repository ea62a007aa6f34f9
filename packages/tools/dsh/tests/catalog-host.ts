/**
 * What the no-host specs share: a catalog recorded as a person records one
 * (the host of the deployment started once, then stopped), and a fingerprint
 * of everything a read must leave as it was.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Hosts } from './hosts.ts'

/** Start the host of `deployment` on the home `dir`, wait until its catalog is written and settled, and stop it. */
export async function recordCatalog(hosts: Hosts, dir: string, deployment: string): Promise<void> {
  const host = await hosts.start(dir, deployment)
  const file = join(dir, 'settings-catalog.json')
  const deadline = Date.now() + 30_000
  let last = ''
  for (let steady = 0; steady < 4; ) {
    if (Date.now() > deadline) throw new Error(`the host wrote no catalog:\n${host.output()}`)
    await new Promise((done) => setTimeout(done, 100))
    const now = existsSync(file) ? readFileSync(file, 'utf8') : ''
    steady = now && now === last ? steady + 1 : 0
    last = now
  }
  const exited = new Promise((done) => host.child.once('exit', done))
  host.child.kill('SIGTERM')
  await exited
}

/** Every file under `dir` with its bytes and modification time, for a read to leave exactly as it found them. */
export function fingerprint(dir: string): Record<string, { bytes: string; mtimeMs: number }> {
  const found: Record<string, { bytes: string; mtimeMs: number }> = {}
  const walk = (folder: string, prefix: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name)
      const info = statSync(path)
      if (info.isDirectory()) walk(path, `${prefix}${name}/`)
      else found[`${prefix}${name}`] = { bytes: readFileSync(path).toString('base64'), mtimeMs: info.mtimeMs }
    }
  }
  walk(dir, '')
  return found
}
