/**
 * Mutual exclusion of the flock document lock under forced interleavings of simulated
 * acquirers in this process (see lock-schedules.ts): a flock conflicts between two open
 * files of one process as between two processes, so each acquirer is as good as a process
 * of its own. Deaths are not simulated here (an abandoned acquirer keeps its descriptor
 * open, as a dead process does not): real processes are killed in lock-flock.spec.ts.
 * The scripted cases replace the lock file under a waiter, the classic bug of locks on a
 * file that is removed: a waiter that locked a removed file must not enter.
 */
import { renameSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LockTimeoutError } from '../src/store/errors.ts'
import { kernelCallsAvailable } from '../src/store/kernel.ts'
import { acquireLock, type HeldLock, type LockStep } from '../src/store/lock.ts'
import type { LockOwner } from '../src/store/owner.ts'
import { breakers, everySchedule, EVERY_STEP, HIGH, HOLD, HOST, pauseAt, RETRY, runOnce, seeded, type ActorSpec, type Plant, type Policy } from './lock-schedules.ts'

let root: string
const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS

beforeAll(() => {
  delete process.env.DSH_SETTINGS_PORTABLE_FS
  // The premise of every test here: this Linux machine reaches flock (koffi loads).
  expect(kernelCallsAvailable()).toBe(true)
})
afterAll(() => {
  if (portableBefore !== undefined) process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
})

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-flock-interleavings-')))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** Pause at every step of the flock take and release; hold, then retry, only when nothing else can go. */
const FLOCK_STEPS: Policy = (step) => {
  if (step === 'open' || step === 'flock' || step === 'verify' || step === 'write-record' || step === 'release') return HIGH
  if (step === 'hold') return HOLD
  if (step === 'retry') return RETRY
  return undefined
}

describe('flock acquirers in every ordering of their open, flock, verify, write-record and release steps', () => {
  it.each<Plant>(['nothing', 'a dead owner lock'])('two acquirers starting from %s: one holder at a time, each gets in once, in every schedule', async (what) => {
    const orders = new Set<string>()
    const runs = await everySchedule(async (choose) => {
      const world = await runOnce(root, what, breakers(2, FLOCK_STEPS), choose)
      orders.add(world.log.join(', '))
      // Every holder wrote a flock record: the kernel's lock was taken, not the portable one.
      for (const line of world.log) expect(line).not.toMatch(/ (claim|create|place) /)
    }, 5000)
    expect(runs).toBeGreaterThanOrEqual(20)
    expect(orders.size).toBe(runs)
  }, 120_000)
})

describe('a live flock holder', () => {
  it('is never entered beside, however two others interleave every step while it holds (150 seeded schedules)', async () => {
    let contended = 0
    for (let seed = 1; seed <= 150; seed++) {
      const holder: ActorSpec = { name: 'H', policy: EVERY_STEP, holds: 6, preAcquired: true }
      const world = await runOnce(root, 'nothing', [holder, ...breakers(2, EVERY_STEP)], seeded(seed), `seed ${seed}`)
      const released = world.log.indexOf('H released')
      expect(world.log.findIndex((line) => /^[AB] holds$/.test(line)), `seed ${seed}`).toBeGreaterThan(released)
      if (world.log.slice(0, released).some((line) => line.endsWith(' finds it held'))) contended++
    }
    expect(contended).toBeGreaterThan(75)
  }, 120_000)
})

describe('seeded random schedules over every flock step', () => {
  it.each<Plant>(['nothing', 'a dead owner lock'])(
    'three acquirers starting from %s: one holder at a time, and all of them get through',
    async (what) => {
      for (let seed = 1; seed <= 100; seed++) await runOnce(root, what, breakers(3, EVERY_STEP).map((spec) => ({ ...spec, holds: 2 })), seeded(seed), `seed ${seed}`)
    },
    120_000,
  )
})

describe('the lock file replaced under a waiter', () => {
  let dir: string
  let lockPath: string
  const file = () => join(dir, 'settings.yaml')
  const acquireAs = (pid: number, step?: (step: LockStep, path: string) => void | Promise<void>, timeoutMs = 0) =>
    acquireLock(lockPath, { timeoutMs, file: file(), owner: { pid, hostname: HOST }, isGone: () => false, ...(step ? { step } : {}) })
  const record = async () => JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
  const listing = async () => (await readdir(dir)).sort()

  beforeEach(async () => {
    dir = join(root, 'scripted')
    lockPath = join(dir, 'settings.yaml.lock')
    await mkdir(dir)
  })

  async function timedOut(promise: Promise<unknown>): Promise<LockTimeoutError> {
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(LockTimeoutError)
    return error as LockTimeoutError
  }

  it('a waiter that locks the file a releaser removed finds the path names another file, and does not enter beside its holder', async () => {
    const holder = await acquireAs(1001)
    // The waiter opened the held file and stops before its flock.
    const waiter = pauseAt(lockPath, 'flock lock')
    const waiting = acquireAs(1002, waiter.step)
    await waiter.reached
    await holder.release()
    expect(await listing()).toEqual([])
    // A third writer creates the lock file afresh and holds it.
    const third = await acquireAs(1003)
    expect(await third.holds()).toBe(true)
    // The waiter's flock of the removed file succeeds; it must see that file is no longer the lock.
    waiter.go()
    const error = await timedOut(waiting)
    expect(error.owner).toEqual(third.owner)
    expect(await record()).toEqual(third.owner)
    expect(await third.holds()).toBe(true)
    await third.release()
    expect(await listing()).toEqual([])
  })

  it('the same waiter, given time, enters once the holder of the new file releases it', async () => {
    const holder = await acquireAs(1001)
    const waiter = pauseAt(lockPath, 'flock lock')
    const order: string[] = []
    const waiting = acquireAs(1002, waiter.step, 10_000).then((lock) => (order.push('waiter'), lock))
    await waiter.reached
    await holder.release()
    const third = await acquireAs(1003)
    waiter.go()
    await new Promise((resolve) => setTimeout(resolve, 50))
    order.push('third releases')
    await third.release()
    const lock = await waiting
    expect(order).toEqual(['third releases', 'waiter'])
    expect(await record()).toEqual(lock.owner)
    await lock.release()
    expect(await listing()).toEqual([])
  })

  it('a lock file replaced by hand while held: holds() turns false, and release spares the file that replaced it', async () => {
    const holder = await acquireAs(1001)
    // What a flock holder of the same document through another path would have written.
    writeFileSync(join(dir, 'replacement'), JSON.stringify({ pid: 424242, hostname: 'elsewhere.invalid', nonce: 'abcdef', lock: 'flock' }))
    renameSync(join(dir, 'replacement'), lockPath)
    expect(await holder.holds()).toBe(false)
    await holder.release()
    expect(await record()).toMatchObject({ pid: 424242 })
    // The file that replaced it has no flock on it: the next writer takes it at once (a flock record under a free flock: its holder died).
    const next: HeldLock = await acquireAs(1002)
    expect(next.tookOver).toBe(true)
    expect(await record()).toEqual(next.owner)
    await next.release()
    expect(await listing()).toEqual([])
  })

  it('a lock file removed by hand while held: holds() turns false, and a second writer that then takes the lock is not disturbed by the first release', async () => {
    const holder = await acquireAs(1001)
    await rm(lockPath)
    expect(await holder.holds()).toBe(false)
    const second = await acquireAs(1002)
    await holder.release()
    expect(await second.holds()).toBe(true)
    expect(await record()).toEqual(second.owner)
    await second.release()
  })
})
