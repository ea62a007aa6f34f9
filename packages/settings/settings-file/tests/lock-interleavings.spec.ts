/**
 * Mutual exclusion of the document lock under forced interleavings. Several acquirers
 * run in this process, each with its own simulated owner record (a fake pid) and one
 * liveness oracle the test controls. A scheduler built on the lock's `step` hook pauses
 * every acquirer before chosen file-system steps and lets exactly one of them go at a
 * time, in an order chosen either systematically (every ordering, by depth-first search
 * over the scheduler's choices) or by a seeded random generator. A "death" abandons an
 * acquirer's promise at a step, never to resume, and tells the oracle it is gone.
 *
 * While holding the lock an acquirer is in a critical section: on entry no other
 * acquirer may be in it, and at every point it is in it the lock file must still hold
 * its record. Every schedule must also end: each acquirer that did not die gets the
 * lock exactly once, and nothing is left in the directory but what the dead left.
 */
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsLockTimeoutError } from 'dsh-settings-file'
import { acquireLock, type HeldLock, type LockStep } from '../src/lock.ts'
import type { LockOwner } from '../src/owner.ts'

const HOST = 'simulated'
const STALE: LockOwner = { pid: 900, hostname: HOST, nonce: '5ca1e0' }
const CLAIMANT: LockOwner = { pid: 901, hostname: HOST, nonce: 'c1a1a0' }
const STALE_CLAIM = `settings.yaml.lock.claim-${STALE.nonce}`
const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.tmp$/

let root: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-interleavings-')))
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** What a step is about: `lock`, `claim` (a claim of the lock), `claim.claim` (a claim of that claim). */
function kindOf(lockPath: string, path: string): string {
  const name = basename(path)
  const lock = basename(lockPath)
  if (name === lock) return 'lock'
  return name.slice(lock.length + 1).split('.claim-').map(() => 'claim').join('.')
}

/** Pick one of `count` options (0-based). */
type Chooser = (count: number) => number

/** A pause of one acquirer before one of its steps, or at one of the scheduler's own points. */
interface Gate {
  actor: Actor
  label: string
  priority: number
  resume(): void
}

/** What pauses an acquirer: a priority (lower goes first), `'die'`, or nothing (the step runs at once). */
type Policy = (step: LockStep | 'start' | 'hold' | 'retry', kind: string, nth: number) => number | 'die' | undefined

interface ActorSpec {
  name: string
  policy: Policy
  /** Points at which it pauses while holding the lock (at least 1). */
  holds?: number
  /** Takes the lock before the scheduling starts, without pausing. */
  preAcquired?: boolean
}

interface Actor extends ActorSpec {
  index: number
  owner: LockOwner
  acquired: number
  released: boolean
  dead: boolean
  counts: Map<string, number>
}

/**
 * Priorities of pauses: the scheduler chooses only among the waiting pauses of the lowest
 * number. In the systematic runs protocol steps are HIGH, a holder's pause in its critical
 * section HOLD and a retry after a failed attempt RETRY: a holder stays in its critical
 * section while the others take every step they can, and nobody spins on a held lock
 * (which keeps the number of schedules finite). The random runs put every pause at HIGH.
 */
const HIGH = 0
const HOLD = 1
const RETRY = 2
/** Attempts (each with timeout 0, so each fails at once on a held lock) before an acquirer gives up: a run that needs more fails. */
const MAX_ATTEMPTS = 50

/**
 * One run of a scenario: a directory, the acquirers, and the scheduler that lets them
 * go one at a time. An acquirer runs on its own between two pauses; the scheduler picks
 * the next one to resume only once every acquirer is paused, finished or dead, so a run
 * is determined by its choices.
 */
class World {
  readonly lockPath: string
  readonly file: string
  readonly gone = new Set<number>([STALE.pid, CLAIMANT.pid])
  readonly log: string[] = []
  readonly violations: string[] = []
  readonly actors: Actor[]
  private readonly holders = new Set<Actor>()
  private readonly waiting: Gate[] = []
  private running = 0
  private quietWaiters: (() => void)[] = []
  private readonly failures: unknown[] = []

  constructor(
    readonly dir: string,
    specs: ActorSpec[],
  ) {
    this.lockPath = join(dir, 'settings.yaml.lock')
    this.file = join(dir, 'settings.yaml')
    this.actors = specs.map((spec, index) => ({
      holds: 1,
      ...spec,
      index,
      owner: { pid: 1000 + index, hostname: HOST },
      acquired: 0,
      released: false,
      dead: false,
      counts: new Map(),
    }))
  }

  readonly isGone = (owner: LockOwner) => owner.hostname === HOST && this.gone.has(owner.pid)

  /** The step hook of `actor`: pause, die, or go on, as its policy says. */
  private at(actor: Actor, step: LockStep | 'start' | 'hold' | 'retry', path?: string): void | Promise<void> {
    const kind = path === undefined ? '' : kindOf(this.lockPath, path)
    const label = kind ? `${step} ${kind}` : step
    const nth = (actor.counts.get(label) ?? 0) + 1
    actor.counts.set(label, nth)
    const decision = actor.policy(step, kind, nth)
    if (decision === undefined) return
    if (decision === 'die') {
      actor.dead = true
      this.gone.add(actor.owner.pid)
      this.holders.delete(actor)
      this.log.push(`${actor.name} dies at ${label}`)
      this.running--
      this.settle()
      return new Promise<void>(() => {})
    }
    return new Promise<void>((resume) => {
      this.waiting.push({ actor, label, priority: decision, resume })
      this.running--
      this.settle()
    })
  }

  private settle(): void {
    if (this.running === 0) for (const resolve of this.quietWaiters.splice(0)) resolve()
  }

  private quiet(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((resolve) => this.quietWaiters.push(resolve))
  }

  /** What an acquirer must find whenever it is in the critical section: only itself there, and its record in the lock. */
  private checkHeld(actor: Actor, lock: HeldLock, where: string): void {
    if (this.holders.size !== 1 || !this.holders.has(actor)) {
      this.violations.push(`${actor.name} ${where}: holders are ${[...this.holders].map((other) => other.name).join(', ')}`)
    }
    let record: LockOwner | undefined
    try {
      record = JSON.parse(readFileSync(this.lockPath, 'utf8')) as LockOwner
    } catch {}
    if (record?.nonce !== lock.owner.nonce) this.violations.push(`${actor.name} ${where}: the lock holds ${JSON.stringify(record)}`)
  }

  private async acquire(actor: Actor): Promise<HeldLock> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await acquireLock(this.lockPath, {
          timeoutMs: 0,
          file: this.file,
          owner: actor.owner,
          isGone: this.isGone,
          step: (step, path) => this.at(actor, step, path),
        })
      } catch (error) {
        if (!(error instanceof SettingsLockTimeoutError) || attempt >= MAX_ATTEMPTS) throw error
        this.log.push(`${actor.name} finds it held`)
        await this.at(actor, 'retry')
      }
    }
  }

  private async hold(actor: Actor, lock: HeldLock): Promise<void> {
    if (this.holders.size > 0) this.violations.push(`${actor.name} enters while ${[...this.holders].map((other) => other.name).join(', ')} hold(s) the lock`)
    this.holders.add(actor)
    actor.acquired++
    this.log.push(`${actor.name} holds`)
    this.checkHeld(actor, lock, 'on entry')
    for (let i = 0; i < actor.holds!; i++) {
      await this.at(actor, 'hold')
      this.checkHeld(actor, lock, `at hold point ${i + 1}`)
    }
    this.holders.delete(actor)
    await lock.release()
    actor.released = true
    this.log.push(`${actor.name} released`)
  }

  /** Run every acquirer to its end, resuming one paused acquirer at a time as `choose` says. */
  async run(choose: Chooser, maxChoices = 5000): Promise<void> {
    const preAcquired = new Map<Actor, HeldLock>()
    for (const actor of this.actors.filter((actor) => actor.preAcquired)) {
      preAcquired.set(actor, await acquireLock(this.lockPath, { timeoutMs: 0, file: this.file, owner: actor.owner, isGone: this.isGone }))
    }
    for (const actor of this.actors) {
      this.running++
      const task = async () => {
        const held = preAcquired.get(actor)
        if (!held) await this.at(actor, 'start')
        await this.hold(actor, held ?? (await this.acquire(actor)))
      }
      task().then(
        () => {
          this.running--
          this.settle()
        },
        (error: unknown) => {
          this.failures.push(error)
          this.log.push(`${actor.name} failed: ${String(error)}`)
          this.running--
          this.settle()
        },
      )
    }
    for (let choices = 0; ; choices++) {
      await this.quiet()
      if (this.failures.length) throw this.failures[0]
      if (!this.waiting.length) return
      if (choices >= maxChoices) throw new Error(`no end after ${maxChoices} choices:\n${this.log.slice(-40).join('\n')}`)
      const top = Math.min(...this.waiting.map((gate) => gate.priority))
      const options = this.waiting.filter((gate) => gate.priority === top).sort((a, b) => a.actor.index - b.actor.index)
      const chosen = choose(options.length)
      const gate = options[chosen]
      if (!gate) throw new Error(`choice ${chosen} of ${options.length}`)
      this.waiting.splice(this.waiting.indexOf(gate), 1)
      this.log.push(`${gate.actor.name} ${gate.label}`)
      this.running++
      gate.resume()
    }
  }

  /** The files left in the directory, each with the pid it names (temps) or holds (lock and claims). */
  async leftovers(): Promise<{ name: string; pid: number | undefined }[]> {
    const left = []
    for (const name of (await readdir(this.dir)).sort()) {
      const temp = TEMP.exec(name)
      let pid: number | undefined
      if (temp) pid = Number(temp[3])
      else {
        try {
          pid = (JSON.parse(await readFile(join(this.dir, name), 'utf8')) as LockOwner).pid
        } catch {}
      }
      left.push({ name, pid })
    }
    return left
  }
}

/** What a scenario plants before its acquirers start. */
type Plant = 'nothing' | 'a dead owner lock' | 'a dead owner lock and a dead claimant claim'

async function plant(dir: string, what: Plant): Promise<void> {
  if (what === 'nothing') return
  await writeFile(join(dir, 'settings.yaml.lock'), JSON.stringify(STALE))
  if (what === 'a dead owner lock and a dead claimant claim') await writeFile(join(dir, STALE_CLAIM), JSON.stringify(CLAIMANT))
}

let runCount = 0

/**
 * Run one schedule of a scenario in a fresh directory and check what every schedule must
 * satisfy; returns the world for the scenario's own checks. The directory is removed
 * when the run passed.
 */
async function runOnce(what: Plant, specs: ActorSpec[], choose: Chooser, label = ''): Promise<World> {
  const dir = join(root, `run-${++runCount}`)
  await mkdir(dir)
  await plant(dir, what)
  const world = new World(dir, specs)
  const context = () => `\n${label ? `${label}, ` : ''}starting from ${what}; schedule:\n  ${world.log.join('\n  ')}`
  await world.run(choose).catch((error: unknown) => {
    throw new Error(`${String(error)}${context()}`)
  })
  expect(world.violations, context()).toEqual([])
  for (const actor of world.actors) {
    if (actor.dead) expect(actor.released, context()).toBe(false)
    else expect({ [actor.name]: actor.acquired, released: actor.released }, context()).toEqual({ [actor.name]: 1, released: true })
  }
  // Nothing is left but what the dead left: their temps and claims (and the lock if one died holding it).
  const dead = new Set(world.actors.filter((actor) => actor.dead).map((actor) => actor.owner.pid))
  for (const { name, pid } of await world.leftovers()) expect({ name, pid, deadWriter: pid !== undefined && dead.has(pid) }, context()).toMatchObject({ deadWriter: true })
  // And whatever they left, the next acquirer gets the lock at once.
  const next = await acquireLock(world.lockPath, { timeoutMs: 0, file: world.file, owner: { pid: 1999, hostname: HOST }, isGone: world.isGone })
  expect(JSON.parse(await readFile(world.lockPath, 'utf8')), context()).toEqual(next.owner)
  await next.release()
  await rm(dir, { recursive: true, force: true })
  return world
}

/**
 * Run `once` under every sequence of choices: a depth-first search that replays a prefix
 * of choices and takes the first option after it, then moves to the next untried option
 * at the deepest choice point that has one. Returns the number of schedules run.
 */
async function everySchedule(once: (choose: Chooser) => Promise<unknown>, limit: number): Promise<number> {
  let prefix: number[] = []
  for (let runs = 1; ; runs++) {
    const made: number[] = []
    const counts: number[] = []
    await once((count) => {
      const depth = made.length
      const choice = depth < prefix.length ? prefix[depth]! : 0
      if (choice >= count) throw new Error(`a replayed schedule offered ${count} options where it offered more before: the runs are not deterministic`)
      made.push(choice)
      counts.push(count)
      return choice
    })
    let depth = made.length - 1
    while (depth >= 0 && made[depth]! + 1 >= counts[depth]!) depth--
    if (depth < 0) return runs
    if (runs >= limit) throw new Error(`more than ${limit} schedules`)
    prefix = [...made.slice(0, depth), made[depth]! + 1]
  }
}

/** A small seeded generator (mulberry32), so a failing seed can be replayed. */
function seeded(seed: number): Chooser {
  let state = seed >>> 0
  return (count) => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * count)
  }
}

/** Pause at claim, verify and replace (at every level) before anything else; hold, then retry, only when nothing else can go. */
const TAKEOVER_STEPS: Policy = (step) => {
  if (step === 'claim' || step === 'verify' || step === 'replace') return HIGH
  if (step === 'hold') return HOLD
  if (step === 'retry') return RETRY
  return undefined
}

/** Pause before every step and every point, all alike. */
const EVERY_STEP: Policy = () => HIGH

const breakers = (count: number, policy: Policy = TAKEOVER_STEPS): ActorSpec[] => Array.from({ length: count }, (_, i) => ({ name: 'ABCDE'[i]!, policy }))

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
      const world = await runOnce('a dead owner lock', breakers(2), choose)
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
      const world = await runOnce('a dead owner lock', breakers(3).map((spec) => ({ ...spec, holds: 2 })), choose)
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
      if (sawLiveRecord(await runOnce('a dead owner lock', breakers(2, policy), choose))) late++
    }, 5000)
    expect(runs).toBeGreaterThanOrEqual(100)
    // In some, a breaker first looked at the lock only after the other had replaced the dead record.
    expect(late).toBeGreaterThan(0)
  }, 120_000)

  it('two breakers meeting a dead claimant claim take it over one level down, in every schedule', async () => {
    const runs = await everySchedule(async (choose) => {
      const world = await runOnce('a dead owner lock and a dead claimant claim', breakers(2), choose)
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
      const world = await runOnce('a dead owner lock', [mortal, ...breakers(3).slice(1)], choose)
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
      const world = await runOnce('nothing', [holder, ...breakers(2, EVERY_STEP)], seeded(seed), `seed ${seed}`)
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
      for (let seed = 1; seed <= SEEDS; seed++) await runOnce(what, breakers(3, EVERY_STEP).map((spec) => ({ ...spec, holds: 2 })), seeded(seed), `seed ${seed}`)
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
      const world = await runOnce(what, [mortal, ...breakers(3, EVERY_STEP).slice(1).map((spec) => ({ ...spec, holds: 2 }))], seeded(seed), `seed ${seed}`)
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

/** A step hook that pauses an acquirer at the nth `<step> <kind>` until `go()`; `reached` settles when it gets there. */
function pauseAt(lockPath: string, target: string, nth = 1) {
  let reach!: () => void
  let go!: () => void
  const reached = new Promise<void>((resolve) => (reach = resolve))
  const gate = new Promise<void>((resolve) => (go = resolve))
  let seen = 0
  const step = (step: LockStep, path: string): void | Promise<void> => {
    if (`${step} ${kindOf(lockPath, path)}` === target && ++seen === nth) {
      reach()
      return gate
    }
  }
  return { step, reached, go }
}

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

  async function timedOut(promise: Promise<unknown>): Promise<SettingsLockTimeoutError> {
    const error = await promise.then(
      () => undefined,
      (failure: unknown) => failure,
    )
    expect(error).toBeInstanceOf(SettingsLockTimeoutError)
    return error as SettingsLockTimeoutError
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
