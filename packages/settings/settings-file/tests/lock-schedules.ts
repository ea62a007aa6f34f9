/**
 * The scheduler the lock interleaving tests share: several acquirers run in this process,
 * each with its own simulated owner record (a fake pid) and one liveness oracle the test
 * controls. Built on the lock's `step` hook, it pauses every acquirer before chosen
 * file-system steps and lets exactly one of them go at a time, in an order chosen either
 * systematically (every ordering, by depth-first search over the scheduler's choices) or
 * by a seeded random generator. A "death" abandons an acquirer's promise at a step, never
 * to resume, and tells the oracle it is gone (for the portable lock only: an abandoned
 * acquirer of a flock keeps its descriptor open, as no dead process does).
 *
 * While holding the lock an acquirer is in a critical section: on entry no other
 * acquirer may be in it, and at every point it is in it the lock file must still hold
 * its record. Every schedule must also end: each acquirer that did not die gets the
 * lock exactly once, and nothing is left in the directory but what the dead left.
 */
import { readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { expect } from 'vitest'
import { LockTimeoutError } from '../src/store/errors.ts'
import { acquireLock, type HeldLock, type LockStep } from '../src/store/lock.ts'
import type { LockOwner } from '../src/store/owner.ts'

export const HOST = 'simulated'
export const STALE: LockOwner = { pid: 900, hostname: HOST, nonce: '5ca1e0' }
export const CLAIMANT: LockOwner = { pid: 901, hostname: HOST, nonce: 'c1a1a0' }
export const STALE_CLAIM = `settings.yaml.lock.claim-${STALE.nonce}`
const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.tmp$/

/** What a step is about: `lock`, `claim` (a claim of the lock), `claim.claim` (a claim of that claim). */
export function kindOf(lockPath: string, path: string): string {
  const name = basename(path)
  const lock = basename(lockPath)
  if (name === lock) return 'lock'
  return name.slice(lock.length + 1).split('.claim-').map(() => 'claim').join('.')
}

/** Pick one of `count` options (0-based). */
export type Chooser = (count: number) => number

/** A pause of one acquirer before one of its steps, or at one of the scheduler's own points. */
interface Gate {
  actor: Actor
  label: string
  priority: number
  resume(): void
}

/** What pauses an acquirer: a priority (lower goes first), `'die'`, or nothing (the step runs at once). */
export type Policy = (step: LockStep | 'start' | 'hold' | 'retry', kind: string, nth: number) => number | 'die' | undefined

export interface ActorSpec {
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
export const HIGH = 0
export const HOLD = 1
export const RETRY = 2
/** Attempts (each with timeout 0, so each fails at once on a held lock) before an acquirer gives up: a run that needs more fails. */
const MAX_ATTEMPTS = 50

/**
 * One run of a scenario: a directory, the acquirers, and the scheduler that lets them
 * go one at a time. An acquirer runs on its own between two pauses; the scheduler picks
 * the next one to resume only once every acquirer is paused, finished or dead, so a run
 * is determined by its choices.
 */
export class World {
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
        if (!(error instanceof LockTimeoutError) || attempt >= MAX_ATTEMPTS) throw error
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
export type Plant = 'nothing' | 'a dead owner lock' | 'a dead owner lock and a dead claimant claim'

export async function plant(dir: string, what: Plant): Promise<void> {
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
export async function runOnce(root: string, what: Plant, specs: ActorSpec[], choose: Chooser, label = ''): Promise<World> {
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
export async function everySchedule(once: (choose: Chooser) => Promise<unknown>, limit: number): Promise<number> {
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
export function seeded(seed: number): Chooser {
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
export const TAKEOVER_STEPS: Policy = (step) => {
  if (step === 'claim' || step === 'verify' || step === 'replace') return HIGH
  if (step === 'hold') return HOLD
  if (step === 'retry') return RETRY
  return undefined
}

/** Pause before every step and every point, all alike. */
export const EVERY_STEP: Policy = () => HIGH

export const breakers = (count: number, policy: Policy = TAKEOVER_STEPS): ActorSpec[] => Array.from({ length: count }, (_, i) => ({ name: 'ABCDE'[i]!, policy }))

/** A step hook that pauses an acquirer at the nth `<step> <kind>` until `go()`; `reached` settles when it gets there. */
export function pauseAt(lockPath: string, target: string, nth = 1) {
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

