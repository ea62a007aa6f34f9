/**
 * The lock on a file system without hard links (exFAT, some network and FUSE mounts):
 * here every `link` fails EPERM, as exFAT answers it, and both kinds of lock must still
 * take, wait, release, take a dead owner's lock over and take turns. The portable lock is
 * forced with DSH_SETTINGS_PORTABLE_FS=1; the flock lock runs without it.
 */
import { mkdtemp, readdir, readFile, realpath, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { LockTimeoutError } from '../src/store/errors.ts'
import { acquireLock } from '../src/store/lock.ts'
import type { LockOwner } from '../src/store/owner.ts'

/** Every hard link fails as exFAT fails it. */
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const eperm = (path: unknown) => Object.assign(new Error(`EPERM: operation not permitted, link '${String(path)}'`), { code: 'EPERM', syscall: 'link' })
  const linkSync = (existing: unknown) => {
    throw eperm(existing)
  }
  const link = (existing: unknown, _new: unknown, callback: (error: Error) => void) => callback(eperm(existing))
  const promises = { ...actual.promises, link: async (existing: unknown) => Promise.reject(eperm(existing)) }
  return { ...actual, linkSync, link, promises, default: { ...actual, linkSync, link, promises } }
})

const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS
let dir: string
let lockPath: string
let file: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-no-links-')))
  lockPath = join(dir, 'settings.yaml.lock')
  file = join(dir, 'settings.yaml')
})

afterEach(async () => {
  if (portableBefore === undefined) delete process.env.DSH_SETTINGS_PORTABLE_FS
  else process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
  await rm(dir, { recursive: true, force: true })
})

const record = async () => JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
const listing = async () => (await readdir(dir)).sort()

describe.each([
  ['portable', '1'],
  ['flock', undefined],
] as const)('the %s lock with every link failing EPERM', (kind, portable) => {
  beforeEach(() => {
    if (portable) process.env.DSH_SETTINGS_PORTABLE_FS = portable
    else delete process.env.DSH_SETTINGS_PORTABLE_FS
  })

  it('takes, holds, makes a second writer wait, and releases', async () => {
    const { linkSync } = await import('node:fs')
    expect(() => linkSync(file, `${file}.x`)).toThrow(expect.objectContaining({ code: 'EPERM' }))
    const lock = await acquireLock(lockPath, { timeoutMs: 1000, file })
    expect(lock.owner.lock).toBe(kind)
    expect(await record()).toEqual(lock.owner)
    expect(await lock.holds()).toBe(true)
    const error = await acquireLock(lockPath, { timeoutMs: 100, file }).catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(LockTimeoutError)
    expect((error as LockTimeoutError).owner).toEqual(lock.owner)
    await lock.release()
    expect(await listing()).toEqual([])
  })

  it('takes the lock of a dead owner over at once, leaving nothing after its release', async () => {
    await writeFile(lockPath, JSON.stringify({ pid: 900, hostname: 'simulated', nonce: 'dead01' }))
    // A claim a dead claimant left, too: taken over one level down where claims are used.
    await writeFile(`${lockPath}.claim-dead01`, JSON.stringify({ pid: 901, hostname: 'simulated', nonce: 'dead02' }))
    const lock = await acquireLock(lockPath, { timeoutMs: 0, file, isGone: (owner) => owner.hostname === 'simulated' })
    expect(lock.tookOver).toBe(true)
    expect(await record()).toEqual(lock.owner)
    await lock.release()
    // The flock take leaves the dead claimant's claim for the holder's sweep; the portable one dropped it taking over.
    expect(await listing()).toEqual(kind === 'flock' ? ['settings.yaml.lock.claim-dead01'] : [])
  })

  it('a waiter reserves the next turn and gets in before a later writer', async () => {
    const holder = await acquireLock(lockPath, { timeoutMs: 1000, file })
    const order: string[] = []
    const waiter = acquireLock(lockPath, { timeoutMs: 10_000, file }).then((lock) => (order.push('waiter'), lock))
    await vi.waitFor(async () => expect(await listing()).toContain('settings.yaml.lock.next'), { timeout: 5000 })
    const later = acquireLock(lockPath, { timeoutMs: 10_000, file }).then((lock) => (order.push('later'), lock))
    await new Promise((resolve) => setTimeout(resolve, 60))
    await holder.release()
    await (await waiter).release()
    await (await later).release()
    expect(order).toEqual(['waiter', 'later'])
    expect(await listing()).toEqual([])
  })

  it('an empty lock file (a writer killed between create and record) is waited for, then taken once past the grace period', async () => {
    await writeFile(lockPath, '')
    const then = new Date(Date.now() - 5000)
    await utimes(lockPath, then, then)
    const lock = await acquireLock(lockPath, { timeoutMs: 0, file, graceMs: 1000 })
    expect(await record()).toEqual(lock.owner)
    expect(lock.owner.hostname).toBe(hostname())
    await lock.release()
    expect(await listing()).toEqual([])
  })
})
