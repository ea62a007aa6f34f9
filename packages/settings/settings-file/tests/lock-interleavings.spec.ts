/**
 * Mutual exclusion of the portable document lock (forced with DSH_SETTINGS_PORTABLE_FS=1)
 * under forced interleavings of simulated acquirers (see lock-schedules.ts), with deaths at
 * any step: the take-over of a dead owner's lock by claims. The flock lock's interleavings
 * are in lock-flock-interleavings.spec.ts.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { LockTimeoutError } from '../src/store/errors.ts'
import { acquireLock, type LockStep } from '../src/store/lock.ts'
import type { LockOwner } from '../src/store/owner.ts'
import { breakers, CLAIMANT, everySchedule, EVERY_STEP, HIGH, HOST, pauseAt, plant, runOnce, seeded, STALE, TAKEOVER_STEPS, type ActorSpec, type Plant, type Policy, type World } from './lock-schedules.ts'

let root: string
const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS

beforeAll(() => void (process.env.DSH_SETTINGS_PORTABLE_FS = '1'))
afterAll(() => {
  if (portableBefore === undefined) delete process.env.DSH_SETTINGS_PORTABLE_FS
  else process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
})

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-interleavings-')))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** The protocol steps (at claim, verify and replace) of a schedule, in order: what "every ordering" ranges over. */
const takeoverOrder = (world: World) => world.log.filter((line) => / (claim|verify|replace) /.test(`${line} `)).join(', ')

describe('breakers of one dead owner lock, in every ordering of their claim, verify and replace steps', () => {
  /** Whether some acquirer found the lock held on an attempt in which it never claimed (it saw a live record). */
  const sawLiveRecord = (world: World) =>
    world.actors.some(({ name }) => {
      const held = world.log.indexOf(`${name} finds it held`)
      return held >= 0 && !world.log.slice(0, held).includes(`${name} claim claim`)
    })

  it('two breakers: exactly one takes the lock over, the other waits for it, in every schedule', async () => {
    const orders = new Set<string>()
    let lateClaims = 0
    let busyClaims = 0
    const runs = await everySchedule(async (choose) => {
      const world = await runOnce(root, 'a dead owner lock', breakers(2), choose)
      orders.add(takeoverOrder(world))
      const verifies = world.log.filter((line) => line.endsWith(' verify lock')).length
      // The loser claimed after the winner had replaced the lock and dropped its claim, and found the record gone.
      if (verifies === 2) lateClaims++
      // The loser found the claim taken by the (live) winner.
      if (verifies === 1) busyClaims++
    }, 1000)
    // Whoever claims first (2 ways) wins; the other claims before the winner verifies, between its
    // verify and replace, or after it replaced the lock (3 ways): 6 orderings, each its own schedule.
    expect(runs).toBe(6)
    expect(orders.size).toBe(runs)
    expect(lateClaims).toBe(2)
    expect(busyClaims).toBe(4)
  })

  it('three breakers: exactly one takes the lock over, the others wait for it, in every schedule', async () => {
    const orders = new Set<string>()
    let lateVerifies = 0
    const runs = await everySchedule(async (choose) => {
      const world = await runOnce(root, 'a dead owner lock', breakers(3).map((spec) => ({ ...spec, holds: 2 })), choose)
      orders.add(takeoverOrder(world))
      expect(world.log.filter((line) => line.endsWith(' replace lock'))).toHaveLength(1)
      const firstHold = world.log.findIndex((line) => line.endsWith(' holds'))
      if (world.log.slice(firstHold).some((line) => line.endsWith(' verify lock'))) lateVerifies++
    }, 20_000)
    // Each ordering of the take-over steps is run twice: the two losers retry in either order.
    expect(runs).toBe(2 * orders.size)
    expect(orders.size).toBeGreaterThanOrEqual(40)
    // In some, a loser verified (and gave up) while the winner was holding the lock.
    expect(lateVerifies).toBeGreaterThan(0)
  }, 120_000)

  it('two breakers pausing also before every look at the lock and the claims: every schedule', async () => {
    const policy: Policy = (step, kind, nth) => (step === 'inspect' ? HIGH : TAKEOVER_STEPS(step, kind, nth))
    let late = 0
    const runs = await everySchedule(async (choose) => {
      if (sawLiveRecord(await runOnce(root, 'a dead owner lock', breakers(2, policy), choose))) late++
    }, 5000)
    expect(runs).toBeGreaterThanOrEqual(100)
    // In some, a breaker first looked at the lock only after the other had replaced the dead record.
    expect(late).toBeGreaterThan(0)
  }, 120_000)

  it('two breakers meeting a dead claimant claim take it over one level down, in every schedule', async () => {
    const runs = await everySchedule(async (choose) => {
      const world = await runOnce(root, 'a dead owner lock and a dead claimant claim', breakers(2), choose)
      expect(world.log.filter((line) => line.endsWith(' replace claim'))).toHaveLength(1)
      expect(world.log.filter((line) => line.endsWith(' replace lock'))).toHaveLength(1)
    }, 20_000)
    expect(runs).toBeGreaterThanOrEqual(50)
  }, 120_000)
})

describe('a claimant that dies mid take-over', () => {
  it.each(['verify', 'replace'] as const)('dying before its %s (its claim taken, the lock not yet replaced) blocks none of two others, in every schedule', async (dieAt) => {
    let deaths = 0
    const runs = await everySchedule(async (choose) => {
      const mortal: ActorSpec = { name: 'A', policy: (step, kind) => (step === dieAt && kind === 'lock' ? 'die' : TAKEOVER_STEPS(step, kind, 0)) }
      const world = await runOnce(root, 'a dead owner lock', [mortal, ...breakers(3).slice(1)], choose)
      const death = world.log.indexOf(`A dies at ${dieAt} lock`)
      const replaced = world.log.findIndex((line) => /^[BC] replace lock$/.test(line))
      if (death >= 0 && death < replaced) {
        // It died holding the claim while the lock still held the dead record: a survivor took its claim over one level down.
        deaths++
        expect(world.log.slice(death), world.log.join('\n')).toContainEqual(expect.stringMatching(/^[BC] replace claim$/))
      }
    }, 20_000)
    expect(deaths).toBeGreaterThanOrEqual(20)
    expect(runs).toBeGreaterThan(deaths)
  }, 120_000)
})

describe('a live holder', () => {
  it('is never taken over, however two others interleave every step while it holds (150 seeded schedules)', async () => {
    let contended = 0
    for (let seed = 1; seed <= 150; seed++) {
      const holder: ActorSpec = { name: 'H', policy: EVERY_STEP, holds: 6, preAcquired: true }
      const world = await runOnce(root, 'nothing', [holder, ...breakers(2, EVERY_STEP)], seeded(seed), `seed ${seed}`)
      // The others went on only after H released the lock.
      const released = world.log.indexOf('H released')
      expect(world.log.findIndex((line) => /^[AB] holds$/.test(line)), `seed ${seed}`).toBeGreaterThan(released)
      if (world.log.slice(0, released).some((line) => line.endsWith(' finds it held'))) contended++
    }
    // In most schedules the others looked at the lock (and found it held) while H held it.
    expect(contended).toBeGreaterThan(75)
  }, 120_000)
})

describe('seeded random schedules over every step', () => {
  const SEEDS = 100

  it.each<Plant>(['nothing', 'a dead owner lock', 'a dead owner lock and a dead claimant claim'])(
    'three acquirers starting from %s: one holder at a time, and all of them get through',
    async (what) => {
      for (let seed = 1; seed <= SEEDS; seed++) await runOnce(root, what, breakers(3, EVERY_STEP).map((spec) => ({ ...spec, holds: 2 })), seeded(seed), `seed ${seed}`)
    },
    120_000,
  )

  it('three acquirers, one of which dies at a random step: the others still get through, one at a time', async () => {
    const deaths = { holding: 0, claiming: 0, before: 0, never: 0 }
    for (let seed = 1; seed <= SEEDS * 2; seed++) {
      // A dies when it reaches its nth pause (any step or point), n drawn from the seed.
      const dieAt = 1 + seeded(seed * 7919)(30)
      let pauses = 0
      const mortal: ActorSpec = { name: 'A', holds: 2, policy: () => (++pauses === dieAt ? 'die' : HIGH) }
      const what = (['a dead owner lock', 'a dead owner lock and a dead claimant claim', 'nothing'] as const)[seed % 3]!
      const world = await runOnce(root, what, [mortal, ...breakers(3, EVERY_STEP).slice(1).map((spec) => ({ ...spec, holds: 2 }))], seeded(seed), `seed ${seed}`)
      const death = world.log.find((line) => line.startsWith('A dies at '))
      if (!death) deaths.never++
      else if (world.log.includes('A holds')) deaths.holding++
      else if (/claim|verify|replace/.test(death)) deaths.claiming++
      else deaths.before++
    }
    // The deaths fell everywhere: before claiming, while claiming (also one level down), while holding.
    expect(deaths.holding).toBeGreaterThan(10)
    expect(deaths.claiming).toBeGreaterThan(10)
    expect(deaths.before).toBeGreaterThan(10)
  }, 120_000)
})

describe('scripted interleavings', () => {
  let dir: string
  let lockPath: string
  const gone = new Set<number>([STALE.pid, CLAIMANT.pid])
  const isGone = (owner: LockOwner) => owner.hostname === HOST && gone.has(owner.pid)
  /** Acquire as the simulated process `pid`, trying once (timeout 0). */
  const acquireAs = (pid: number, step?: (step: LockStep, path: string) => void | Promise<void>) =>
    acquireLock(lockPath, { timeoutMs: 0, file: join(dir, 'settings.yaml'), owner: { pid, hostname: HOST }, isGone, ...(step ? { step } : {}) })
  const record = async () => JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
  const listing = async () => (await readdir(dir)).sort()

  beforeEach(async () => {
    dir = join(root, 'scripted')
    lockPath = join(dir, 'settings.yaml.lock')
    await mkdir(dir)
    for (const pid of [...gone]) if (pid !== STALE.pid && pid !== CLAIMANT.pid) gone.delete(pid)
  })

  async function timedOut(promise: Promise<unknown>): Promise<LockTimeoutError> {
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(LockTimeoutError)
    return error as LockTimeoutError
  }

  it('a breaker that saw the dead record and paused before claiming does not take the lock a third took after the take-over was released', async () => {
    await plant(dir, 'a dead owner lock')
    const late = pauseAt(lockPath, 'claim claim')
    const lateAcquire = acquireAs(1001, late.step)
    await late.reached
    const breaker = await acquireAs(1002)
    expect(await record()).toEqual(breaker.owner)
    await breaker.release()
    const third = await acquireAs(1003)
    late.go()
    // It claims the record it saw, finds the lock no longer holds it, and gives up.
    const error = await timedOut(lateAcquire)
    expect(error.owner).toEqual(STALE)
    expect(await record()).toEqual(third.owner)
    expect(await third.holds()).toBe(true)
    // Its claim is gone with it.
    expect(await listing()).toEqual(['settings.yaml.lock'])
    await third.release()
    expect(await listing()).toEqual([])
  })

  it('a late breaker does not recreate by take-over a lock that was taken over and released', async () => {
    await plant(dir, 'a dead owner lock')
    const late = pauseAt(lockPath, 'claim claim')
    const lateAcquire = acquireAs(1001, late.step)
    await late.reached
    const breaker = await acquireAs(1002)
    await breaker.release()
    late.go()
    await timedOut(lateAcquire)
    expect(await listing()).toEqual([])
  })

  it('a late breaker does not replace the live holder that took over the same dead record', async () => {
    await plant(dir, 'a dead owner lock')
    const late = pauseAt(lockPath, 'verify lock')
    const lateAcquire = acquireAs(1001, late.step)
    await late.reached
    // The late breaker holds the claim: nobody else may replace the dead record meanwhile.
    await timedOut(acquireAs(1002))
    expect(await record()).toEqual(STALE)
    late.go()
    const winner = await lateAcquire
    expect(await record()).toEqual(winner.owner)

    // Now the other way round: a breaker paused before claiming, the winner holding.
    await winner.release()
    await plant(dir, 'a dead owner lock')
    const late2 = pauseAt(lockPath, 'claim claim')
    const late2Acquire = acquireAs(1003, late2.step)
    await late2.reached
    const holder = await acquireAs(1004)
    late2.go()
    await timedOut(late2Acquire)
    expect(await record()).toEqual(holder.owner)
    expect(await holder.holds()).toBe(true)
    expect(await listing()).toEqual(['settings.yaml.lock'])
  })

  it('a breaker one level down that paused before claiming the dead claimant claim does not take the lock after another took over both', async () => {
    await plant(dir, 'a dead owner lock and a dead claimant claim')
    const late = pauseAt(lockPath, 'claim claim.claim')
    const lateAcquire = acquireAs(1001, late.step)
    await late.reached
    const breaker = await acquireAs(1002)
    expect(await listing()).toEqual(['settings.yaml.lock'])
    await breaker.release()
    const third = await acquireAs(1003)
    late.go()
    await timedOut(lateAcquire)
    expect(await record()).toEqual(third.owner)
    expect(await listing()).toEqual(['settings.yaml.lock'])
  })

  it('a claimant paused while holding the claim one level down keeps every other breaker out', async () => {
    await plant(dir, 'a dead owner lock and a dead claimant claim')
    const slow = pauseAt(lockPath, 'replace claim')
    const slowAcquire = acquireAs(1001, slow.step)
    await slow.reached
    await timedOut(acquireAs(1002))
    await timedOut(acquireAs(1003))
    expect(await record()).toEqual(STALE)
    slow.go()
    const lock = await slowAcquire
    expect(await record()).toEqual(lock.owner)
    expect(await listing()).toEqual(['settings.yaml.lock'])
  })

  it.each(['release lock', 'inspect lock'])('a release paused at %s, while another took the lock over, spares the new holder', async (target) => {
    const pausing = pauseAt(lockPath, target)
    const first = await acquireAs(1001, pausing.step)
    const releasing = first.release()
    await pausing.reached
    gone.add(1001)
    const second = await acquireAs(1002)
    pausing.go()
    await releasing
    expect(await record()).toEqual(second.owner)
    expect(await second.holds()).toBe(true)
    expect(await first.holds()).toBe(false)
    await second.release()
    expect(await listing()).toEqual([])
  })
})
