/**
 * The record's rules, each against a listener that records every request:
 * a host record (or token file) that is not the user's own regular file with
 * mode 0600, that is reached through a symbolic link, that names a URL off
 * loopback, no deployment or another one, is refused with one note line
 * before anything is sent anywhere, and left in place. A record whose
 * listener cannot prove it holds the token (a forged proof, nothing
 * listening) is removed as stale, and the listener heard only the nonce.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findHost } from '../src/values/host.ts'
import { CAN_PLANT_AS_ANOTHER, holdsSlice, plant, plantAsNobody, useListeners, type Listener } from './attack.ts'
import { useHosts, WORKSPACE } from './hosts.ts'

const DEPLOYMENT = realpathSync(resolve(WORKSPACE, 'packages/tools/dsh/tests/fixtures/cordis.yml'))
const hosts = useHosts()
const listen = useListeners()

if (!CAN_PLANT_AS_ANOTHER) console.warn('SKIPPED: the records planted by another user need root (runuser -u nobody); this process is not root')

/** A home as a shared `DSH_HOME` would be (mode 0777), holding the user's own token file. */
function sharedHome(): { dir: string; token: string; record: string } {
  const dir = hosts.home('dsh-host-rules-')
  chmodSync(dir, 0o777)
  const token = randomBytes(32).toString('base64url')
  plant(join(dir, 'remote-token'), `${token}\n`)
  return { dir, token, record: join(dir, 'remote-host.json') }
}

/** A record naming `url` (this deployment unless told otherwise). */
const recordText = (url: string, deployment: string | null = DEPLOYMENT) => JSON.stringify({ url, pid: 1, ...(deployment === null ? {} : { deployment }) })

/** Look for the host as a command does; answers whether one was used, and the notes. */
async function find(dir: string): Promise<{ used: boolean; notes: string[] }> {
  const notes: string[] = []
  const access = await findHost(DEPLOYMENT, { DSH_HOME: dir, DSH_PORT: '0' }, (line) => notes.push(line))
  await access?.close()
  return { used: access !== undefined, notes }
}

/** The listener heard nothing at all, and the command said why in one line. */
function expectRefusedBeforeSending(found: { used: boolean; notes: string[] }, listener: Listener, record: string, why: RegExp): void {
  expect(found.used).toBe(false)
  expect(found.notes).toHaveLength(1)
  expect(found.notes[0]).toMatch(new RegExp(`^note: not using the host record ${record.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `))
  expect(found.notes[0]).toMatch(why)
  expect(listener.requests).toEqual([])
}

describe('a record or token file the user does not own alone is refused before anything is sent', () => {
  it('a record others can write (0666) in a shared home', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url), 0o666)
    expectRefusedBeforeSending(await find(dir), listener, record, /: other users may read or write it \(only a file of mode 0600 is trusted\)$/)
    expect(existsSync(record)).toBe(true)
  })

  it.skipIf(!CAN_PLANT_AS_ANOTHER)('a 0600 record another user planted', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plantAsNobody(record, recordText(listener.url))
    expectRefusedBeforeSending(await find(dir), listener, record, /: it belongs to another user$/)
    expect(existsSync(record)).toBe(true)
  })

  it.skipIf(!CAN_PLANT_AS_ANOTHER)('a 0600 token file another user planted', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url))
    execFileSync('rm', [join(dir, 'remote-token')])
    plantAsNobody(join(dir, 'remote-token'), 'their-own-token-0123456789\n')
    expectRefusedBeforeSending(await find(dir), listener, record, /the token file .*remote-token: it belongs to another user$/)
  })

  it('a record that is a symbolic link, even to a file of the user\'s own', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(join(dir, 'elsewhere.json'), recordText(listener.url))
    symlinkSync(join(dir, 'elsewhere.json'), record)
    expectRefusedBeforeSending(await find(dir), listener, record, /it is a symbolic link$/)
  })

  it('a token file that is a symbolic link', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url))
    plant(join(dir, 'their-token'), 'a-token-someone-chose-0123456789\n')
    execFileSync('rm', [join(dir, 'remote-token')])
    symlinkSync(join(dir, 'their-token'), join(dir, 'remote-token'))
    expectRefusedBeforeSending(await find(dir), listener, record, /the token file .*remote-token: it is a symbolic link$/)
  })

  it('a token file others can read (0644)', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url))
    chmodSync(join(dir, 'remote-token'), 0o644)
    expectRefusedBeforeSending(await find(dir), listener, record, /the token file .*remote-token: other users may read or write it/)
  })

  it('a record that is a FIFO or a folder (never blocked on)', async () => {
    for (const make of [(path: string) => execFileSync('mkfifo', ['-m', '600', path]), (path: string) => mkdirSync(path, { mode: 0o700 })]) {
      const { dir, record } = sharedHome()
      const listener = await listen({ deployment: DEPLOYMENT })
      make(record)
      expectRefusedBeforeSending(await find(dir), listener, record, /it is not a regular file$/)
    }
  })
})

describe('a record of the user\'s own is still refused before anything is sent when it names', () => {
  it('a URL that is not loopback (0.0.0.0 reaches this machine too)', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ host: '0.0.0.0', deployment: DEPLOYMENT })
    plant(record, recordText(`http://0.0.0.0:${listener.port}`))
    expectRefusedBeforeSending(await find(dir), listener, record, /its URL is not http: on a loopback address/)
  })

  it('no deployment (a host no loader started)', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen()
    plant(record, recordText(listener.url, null))
    expectRefusedBeforeSending(await find(dir), listener, record, /it names no deployment/)
  })

  it('another deployment', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: '/elsewhere/cordis.yml' })
    plant(record, recordText(listener.url, '/elsewhere/cordis.yml'))
    expectRefusedBeforeSending(await find(dir), listener, record, /its host serves another deployment, "\/elsewhere\/cordis\.yml"$/)
  })

  it('a host but there is no token to check it with', async () => {
    const { dir, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url))
    execFileSync('rm', [join(dir, 'remote-token')])
    expectRefusedBeforeSending(await find(dir), listener, record, /there is no token file .* to check its host with$/)
  })
})

describe('a record whose listener cannot prove it holds the token', () => {
  it('is removed as stale after a forged proof, and the listener heard the nonce and nothing of the token', async () => {
    const { dir, token, record } = sharedHome()
    const listener = await listen({ deployment: DEPLOYMENT })
    plant(record, recordText(listener.url))
    const found = await find(dir)
    expect(found.used).toBe(false)
    expect(found.notes).toEqual([`note: not using the host record ${record}: ${listener.url} answered the hello with a proof that does not verify with this deployment's token; removed it as stale`])
    expect(listener.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /remote/hello'])
    expect(listener.requests[0]!.headers.map((name) => name.toLowerCase())).not.toContain('authorization')
    expect(holdsSlice(listener.text(), token)).toBe(false)
    expect(existsSync(record)).toBe(false)
  })

  it('is removed as stale when nothing listens at its URL any more', async () => {
    const { dir, record } = sharedHome()
    // A port just freed: nothing listens there now.
    const probe = createNetServer()
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done))
    const free = (probe.address() as { port: number }).port
    await new Promise((done) => probe.close(done))
    plant(record, recordText(`http://127.0.0.1:${free}`))
    const found = await find(dir)
    expect(found.notes).toEqual([`note: not using the host record ${record}: http://127.0.0.1:${free} did not answer the hello (ECONNREFUSED); removed it as stale`])
    expect(existsSync(record)).toBe(false)
  })

  it('is kept, and not used, when its listener does not answer in time (a busy host is not stale)', { timeout: 20_000 }, async () => {
    const { dir, record } = sharedHome()
    const hung = createServer(() => {})
    await new Promise<void>((done) => hung.listen(0, '127.0.0.1', done))
    try {
      const url = `http://127.0.0.1:${(hung.address() as { port: number }).port}`
      plant(record, recordText(url))
      const found = await find(dir)
      expect(found).toEqual({ used: false, notes: [`note: not using the host record ${record}: ${url} did not answer the hello within 3000 ms`] })
      expect(existsSync(record)).toBe(true)
    } finally {
      hung.closeAllConnections()
      await new Promise((done) => hung.close(done))
    }
  })
})
