/**
 * The command against the ways a user's machine attacks it, with real hosts
 * (`dsh start` children) and real `dsh settings` processes: a host killed
 * with SIGKILL whose pid is reused and whose port another listener takes; a
 * relay that passes the hello on to the real host; a second deployment in the
 * same folder and home as a running host's. No token ever reaches a listener
 * that is not the deployment's host (in no header, body or path, whole or in
 * part), the command goes on through the provider saying why in one note
 * line, and a stale record is removed. A host that proves itself is used.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dshProcess, holdsSlice, plant, useListeners, type Listener } from './attack.ts'
import { storedSettings } from './stored.ts'
import { useHosts, WORKSPACE } from './hosts.ts'

const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/cordis.yml`
const SECOND = `${FIXTURES}/second.cordis.yml`
const REAL = realpathSync(resolve(WORKSPACE, DEPLOYMENT))
const hosts = useHosts()
const listen = useListeners()

/** A home holding the clean example document, and a host of the example deployment running on it. */
async function hostOn(): Promise<{ dir: string; token: string; record: { url: string; pid: number; deployment: string }; child: import('node:child_process').ChildProcess }> {
  const dir = hosts.home('dsh-host-attacks-', `${FIXTURES}/clean.yaml`)
  const { child } = await hosts.start(dir, DEPLOYMENT)
  // Its catalog too (gathered a moment after start), so a command that takes the provider way knows the schemas.
  await expect.poll(() => existsSync(join(dir, 'settings-catalog.json')), { timeout: 10_000 }).toBe(true)
  const record = JSON.parse(readFileSync(join(dir, 'remote-host.json'), 'utf8')) as { url: string; pid: number; deployment: string }
  return { dir, token: readFileSync(join(dir, 'remote-token'), 'utf8').trim(), record, child }
}

/** The lines a command said about host records (other notes, such as unchecked values, are another part's). */
const recordNotes = (err: string[]) => err.filter((line) => line.includes('host record'))


/** The listener never saw an `Authorization` header nor any part of the token. */
function expectNothingOfTheToken(listener: Listener, token: string): void {
  for (const request of listener.requests) expect(request.headers.filter((_, index) => index % 2 === 0).map((name) => name.toLowerCase())).not.toContain('authorization')
  expect(holdsSlice(listener.text(), token)).toBe(false)
}

describe('a host that proves itself', () => {
  it('is used, with no note', { timeout: 90_000 }, async () => {
    const { dir, record } = await hostOn()
    const set = await dshProcess(dir, ['settings', 'set', 'web-search.limit', '31', '-d', DEPLOYMENT])
    expect(set).toMatchObject({ code: 0, out: [expect.stringContaining(`via the running host at ${record.url}`)] })
    expect(recordNotes(set.err)).toEqual([])
    expect(record.deployment).toBe(REAL)
  })
})

describe('a host that cannot prove itself gets nothing', () => {
  it('killed with SIGKILL, its pid reused and its port taken by another listener: no token leaves, the record goes', { timeout: 90_000 }, async () => {
    const { dir, token, record, child } = await hostOn()
    const recordFile = join(dir, 'remote-host.json')
    const exited = new Promise((done) => child.once('exit', done))
    child.kill('SIGKILL')
    await exited
    // The pid is taken again by a live process (this one), as a reused pid would be: no pid check decides anything.
    plant(recordFile, JSON.stringify({ ...record, pid: process.pid }))
    const listener = await listen({ port: Number(new URL(record.url).port), deployment: REAL })
    const get = await dshProcess(dir, ['settings', 'get', 'web-search.limit', '-d', DEPLOYMENT])
    expect(get.code).toBe(0)
    expect(get.out).toEqual(['25'])
    expect(recordNotes(get.err)).toEqual([`note: not using the host record ${recordFile}: ${record.url} answered the hello with a proof that does not verify with this deployment's token; removed it as stale`])
    expect(existsSync(recordFile)).toBe(false)
    const set = await dshProcess(dir, ['settings', 'set', 'web-search.limit', '33', '-d', DEPLOYMENT])
    expect(set.code).toBe(0)
    expect(set.out[0]).toContain('via the provider')
    expect(storedSettings(dir)['web-search'].limit).toBe(33)
    expect(listener.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /remote/hello'])
    expectNothingOfTheToken(listener, token)
  })

  it('a relay that passes the hello on to the real host: the proof names the host\'s own address, so nothing else follows', { timeout: 90_000 }, async () => {
    const { dir, token, record } = await hostOn()
    const recordFile = join(dir, 'remote-host.json')
    const relay = await listen({ relayTo: Number(new URL(record.url).port) })
    plant(recordFile, JSON.stringify({ ...record, url: relay.url }))
    const get = await dshProcess(dir, ['settings', 'get', 'web-search.limit', '-d', DEPLOYMENT])
    expect(get).toMatchObject({ code: 0, out: ['25'] })
    expect(recordNotes(get.err)).toEqual([`note: not using the host record ${recordFile}: ${relay.url} answered the hello with a proof for another address (a relay passing the hello on); removed it as stale`])
    expect(relay.requests.map((request) => `${request.method} ${request.url}`)).toEqual(['POST /remote/hello'])
    expectNothingOfTheToken(relay, token)
    expect(existsSync(recordFile)).toBe(false)
  })
})

describe('a host of another deployment in the same folder and home', () => {
  it('is not used: the write lands in the deployment asked about, never in the host\'s document', { timeout: 90_000 }, async () => {
    const { dir } = await hostOn()
    // Its own document, as one it wrote before (a fresh one holds nothing a command could write unchecked).
    mkdirSync(join(dir, 'second'), { mode: 0o700 })
    writeFileSync(join(dir, 'second', 'settings.yaml'), 'web-search:\n  limit: 20\n', { mode: 0o600 })
    const set = await dshProcess(dir, ['settings', 'set', 'web-search.limit', '33', '-d', SECOND])
    expect(set.code).toBe(0)
    expect(set.out[0]).toContain(`via the provider, ${join(dir, 'second', 'settings.yaml')}`)
    expect(recordNotes(set.err)).toEqual([`note: not using the host record ${join(dir, 'remote-host.json')}: its host serves another deployment, ${JSON.stringify(REAL)}`])
    expect(storedSettings(join(dir, 'second'))['web-search'].limit).toBe(33)
    expect(storedSettings(dir)['web-search'].limit).toBe(25)
    // The host's record stays: its host is alive and serves its own deployment.
    expect(existsSync(join(dir, 'remote-host.json'))).toBe(true)
  })
})
