/**
 * The flock document lock (src/store/lock-flock.ts) on a real file system with real
 * processes: the kernel holds the lock and drops it when the holder dies, so the next
 * writer takes a killed holder's lock at once, without judging anyone dead. Also: the
 * record that says which lock is held, /proc/locks, a holder of the portable lock met
 * by a flock writer, a symlink at the lock path, a failed record write, and waiters
 * taking turns. Forced interleavings are in lock-flock-interleavings.spec.ts.
 *
 * Every test makes its own directory and kills only the children it spawned, by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs, { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi, type TestContext } from 'vitest'
import { endChildren, eventually } from 'dsh-testing'
import { LockTimeoutError } from '../src/store/errors.ts'
import { kernelCallsAvailable } from '../src/store/kernel.ts'
import { sweepLeftovers } from '../src/store/leftovers.ts'
import { acquireLock, type HeldLock, type LockOptions } from '../src/store/lock.ts'
import { currentOwner, processStartTime, type LockOwner } from '../src/store/owner.ts'
import { deadPid } from './processes-helpers.ts'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const childScript = (name: string) => fileURLToPath(new URL(`./children/${name}.ts`, import.meta.url))
const NONCE = /^[0-9a-f]{18}$/
const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.tmp$/
/** Nobody is ever judged dead: whatever a flock writer takes, it takes without a take-over. */
const NEVER_GONE = () => false

const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS
beforeAll(() => {
  delete process.env.DSH_SETTINGS_PORTABLE_FS
  // The premise of every test here: this Linux machine reaches flock (koffi loads).
  expect(kernelCallsAvailable()).toBe(true)
})
afterAll(() => {
  if (portableBefore !== undefined) process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
})

interface Fixture {
  dir: string
  lockPath: string
  file: string
  options(timeoutMs: number, more?: Partial<LockOptions>): LockOptions
  take(timeoutMs?: number, more?: Partial<LockOptions>): Promise<HeldLock>
  readRecord(path?: string): Promise<LockOwner & { nonce: string }>
  listing(): Promise<string[]>
  /** Start a child script of tests/children (with `env` added to this process's environment). */
  start(script: string, args: string[], env?: Record<string, string>): Child
}

interface Child {
  process: ChildProcess
  pid: number
  ready: Promise<void>
  result: Promise<any>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
}

async function fixture({ onTestFinished }: TestContext): Promise<Fixture> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-flock-')))
  const lockPath = join(dir, 'settings.yaml.lock')
  const file = join(dir, 'settings.yaml')
  const held: HeldLock[] = []
  const spawned: ChildProcess[] = []
  onTestFinished(async () => {
    for (const lock of held) await lock.release()
    await endChildren(spawned)
    await rm(dir, { recursive: true, force: true })
  })
  const options = (timeoutMs: number, more: Partial<LockOptions> = {}): LockOptions => ({ timeoutMs, file, ...more })
  return {
    dir,
    lockPath,
    file,
    options,
    async take(timeoutMs = 2000, more = {}) {
      const lock = await acquireLock(lockPath, options(timeoutMs, more))
      held.push(lock)
      return lock
    },
    async readRecord(path = lockPath) {
      return JSON.parse(await readFile(path, 'utf8')) as LockOwner & { nonce: string }
    },
    async listing() {
      return (await readdir(dir)).sort()
    },
    start(script, args, env = {}) {
      const argv = ['--conditions=source', '--import', 'tsx', childScript(script), ...args]
      const child = spawn(process.execPath, argv, { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
      spawned.push(child)
      let stderr = ''
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => void (stderr += chunk))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
        child.once('error', reject)
        child.once('close', (code, signal) => resolve({ code, signal }))
      })
      const messages: Record<string, unknown> = {}
      let readied!: () => void
      const ready = new Promise<void>((resolve) => (readied = resolve))
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = /^@@(ready|result)(?: (.*))?$/.exec(line)
        if (!match) return
        messages[match[1]!] = match[2] === undefined ? null : JSON.parse(match[2])
        if (match[1] === 'ready') readied()
      })
      const result = exited.then(({ code, signal }) => {
        if (!('result' in messages)) throw new Error(`child ${script} (pid ${child.pid}) ended (code ${code}, signal ${signal}) without a result:\n${stderr}`)
        return messages.result
      })
      result.catch(() => {})
      return { process: child, pid: child.pid!, ready, result, exited, stderr: () => stderr }
    },
  }
}

async function timeoutOf(promise: Promise<unknown>): Promise<LockTimeoutError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(LockTimeoutError)
  return error as LockTimeoutError
}

/** The lines of /proc/locks for the file at `path` (by its inode): what `cat /proc/locks` shows a person. */
async function kernelLocksOn(path: string): Promise<string[]> {
  const { ino } = await stat(path)
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .filter((line) => line.split(/\s+/).some((field) => field.endsWith(`:${ino}`)))
}

describe('taking and releasing the kernel lock', () => {
  it('writes a record that says "lock": "flock", shows in /proc/locks as a FLOCK of this pid, and removes the file on release', async (context) => {
    const f = await fixture(context)
    const lock = await f.take()
    const record = await f.readRecord()
    expect(record).toEqual({ ...currentOwner(), nonce: expect.stringMatching(NONCE), lock: 'flock' })
    expect(lock.owner).toEqual(record)
    expect(lock.tookOver).toBe(false)
    expect(await lock.holds()).toBe(true)
    const [line, ...more] = await kernelLocksOn(f.lockPath)
    expect(more).toEqual([])
    expect(line).toMatch(new RegExp(`FLOCK\\s+ADVISORY\\s+WRITE\\s+${process.pid}\\s`))
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    await lock.release()
    expect(await f.listing()).toEqual([])
    expect(await lock.holds()).toBe(false)
    await lock.release()
  })

  it('is exclusive between two open files of one process: the second waits, names the holder, and gets in after the release', async (context) => {
    const f = await fixture(context)
    const first = await f.take()
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(100)))
    expect(error.code).toBe('LOCK_TIMEOUT')
    expect(error.owner).toEqual(first.owner)
    expect(error.message).toContain(`pid ${process.pid} on ${hostname()}`)
    const second = acquireLock(f.lockPath, f.options(10_000))
    await new Promise((resolve) => setTimeout(resolve, 30))
    await first.release()
    const lock = await second
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(lock.owner.nonce).not.toBe(first.owner.nonce)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })

  it('never takes the lock of a live child, even when told every owner is gone, and takes it at once after the child is SIGKILLed', async (context) => {
    const f = await fixture(context)
    const holder = f.start('lock-holder', [f.lockPath, f.file])
    await holder.ready
    const record = await f.readRecord()
    expect(record).toEqual({ ...currentOwner(), pid: holder.pid, startTime: processStartTime(holder.pid), nonce: expect.stringMatching(NONCE), lock: 'flock' })
    // A flock record is never judged: the kernel says whether its holder lives.
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(300, { isGone: () => true })))
    expect(error.owner).toEqual(record)
    holder.process.kill('SIGKILL')
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' })
    // The kernel dropped the dead child's lock: taken on the first try, nobody judged dead.
    const lock = await f.take(0, { isGone: NEVER_GONE })
    expect(lock.tookOver).toBe(true)
    expect(await f.readRecord()).toEqual(lock.owner)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })
})

/** The steps of a flock take and release, with what a child killed there leaves: the lock file empty, or holding its record. */
const FLOCK_KILLS: [string, string][] = [
  ['open', ''],
  ['flock', 'lock:empty'],
  ['verify', 'lock:empty'],
  ['write-record', 'lock:empty'],
  ['release', 'lock:child'],
]

describe('a process SIGKILLed at each step of the flock take and release', () => {
  it('meets these steps, and leaves nothing when it is not killed', async (context) => {
    const f = await fixture(context)
    const child = f.start('lock-step-killer', [f.lockPath, f.file, '-', '0'])
    expect(await child.result).toEqual({ acquired: true, trace: FLOCK_KILLS.map(([step]) => `${step} lock`) })
    expect(await child.exited).toEqual({ code: 0, signal: null })
    expect(await f.listing()).toEqual([])
  })

  it.concurrent.for(FLOCK_KILLS)('killed at %s: the next writer takes the lock at once without judging anyone dead', async ([step, left], context) => {
    const f = await fixture(context)
    const child = f.start('lock-step-killer', [f.lockPath, f.file, step, '1'])
    context.expect(await child.exited, child.stderr()).toEqual({ code: null, signal: 'SIGKILL' })
    const described = await Promise.all(
      (await f.listing()).map(async (name) => {
        if (name !== 'settings.yaml.lock') return `other:${name}`
        const text = await readFile(join(f.dir, name), 'utf8')
        return text === '' ? 'lock:empty' : (JSON.parse(text) as LockOwner).pid === child.pid ? 'lock:child' : `lock:${text}`
      }),
    )
    context.expect(described.join(' ')).toBe(left)
    const lock = await f.take(0, { isGone: NEVER_GONE })
    context.expect(await lock.holds()).toBe(true)
    context.expect(lock.tookOver).toBe(left === 'lock:child')
    context.expect(await f.readRecord()).toEqual(lock.owner)
    await lock.release()
    context.expect(await f.listing()).toEqual([])
  })
})

describe('a writer of the portable lock met by a flock writer', () => {
  it('is waited for while its owner lives, though the flock on its file is free', async (context) => {
    const f = await fixture(context)
    const portable = f.start('lock-holder', [f.lockPath, f.file], { DSH_SETTINGS_PORTABLE_FS: '1' })
    await portable.ready
    expect(await f.readRecord()).toMatchObject({ pid: portable.pid, lock: 'portable' })
    expect(await kernelLocksOn(f.lockPath)).toEqual([])
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(300)))
    expect(error.owner).toMatchObject({ pid: portable.pid, lock: 'portable' })
    portable.process.kill('SIGKILL')
    await portable.exited
    // Its owner is certainly gone now: its lock is taken at once.
    const lock = await f.take(0)
    expect(lock.tookOver).toBe(true)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(lock.owner.lock).toBe('flock')
  })

  it('waits for a record of the link lock of earlier versions (no kind) of a live owner, and takes one of a dead owner at once', async (context) => {
    const f = await fixture(context)
    await writeFile(f.lockPath, JSON.stringify({ ...currentOwner(), nonce: 'ea71e7' }))
    await timeoutOf(acquireLock(f.lockPath, f.options(100)))
    await writeFile(f.lockPath, JSON.stringify({ ...currentOwner(), pid: await deadPid((child) => child), startTime: '1', nonce: 'dead01' }))
    const lock = await f.take(0)
    expect(lock.tookOver).toBe(true)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })
})

describe('what stands at the lock path', () => {
  it('a symlink is never opened or written through: the portable take-over replaces the link itself', async (context) => {
    const f = await fixture(context)
    const target = join(f.dir, 'precious')
    await writeFile(target, 'not a lock record')
    await symlink(target, f.lockPath)
    const lock = await f.take(1000, { graceMs: 0 })
    expect(await readFile(target, 'utf8')).toBe('not a lock record')
    expect((await fs.promises.lstat(f.lockPath)).isSymbolicLink()).toBe(false)
    expect(await f.readRecord()).toEqual(lock.owner)
    await lock.release()
    expect(await f.listing()).toEqual(['precious'])
  })

  it('a symlink leading nowhere holds writers out only for the grace period, then is replaced; nothing is created where it points', async (context) => {
    const f = await fixture(context)
    const nowhere = join(f.dir, 'nowhere')
    await symlink(nowhere, f.lockPath)
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(100)))
    expect(error.owner).toBeUndefined()
    // Meanwhile the event loop ran: the waiter paused between its looks rather than spinning.
    let ticks = 0
    const ticker = setInterval(() => ticks++, 5)
    await new Promise((resolve) => setTimeout(resolve, 20))
    const lock = await f.take(1000, { graceMs: 10 }).finally(() => clearInterval(ticker))
    expect(ticks).toBeGreaterThan(0)
    expect(existsSync(nowhere)).toBe(false)
    expect((await fs.promises.lstat(f.lockPath)).isSymbolicLink()).toBe(false)
    expect(await f.readRecord()).toEqual(lock.owner)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })

  it('a failed record write (ENOSPC) leaves no lock file, and the next take works', async (context) => {
    const f = await fixture(context)
    const thrown = Object.assign(new Error('ENOSPC: no space left on device (simulated)'), { code: 'ENOSPC' })
    const spy = vi.spyOn(fs, 'writeSync').mockImplementation(() => {
      throw thrown
    })
    let error: unknown
    try {
      error = await acquireLock(f.lockPath, f.options(1000)).catch((failure: unknown) => failure)
    } finally {
      spy.mockRestore()
    }
    expect(error).toBe(thrown)
    expect(await f.listing()).toEqual([])
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })
})

describe('flock waiters take turns', () => {
  it('a waiter gets in within a few turns of a writer that releases and retakes the lock in a loop', async (context) => {
    const f = await fixture(context)
    let hogTurns = 0
    let waiterIn = false
    const hog = (async () => {
      while (!waiterIn && hogTurns < 200) {
        const lock = await acquireLock(f.lockPath, f.options(10_000))
        hogTurns++
        await new Promise((resolve) => setTimeout(resolve, 5))
        await lock.release()
      }
    })()
    await eventually(() => expect(hogTurns).toBeGreaterThan(0))
    const startTurns = hogTurns
    const waiter = await acquireLock(f.lockPath, f.options(10_000))
    waiterIn = true
    const turnsWaited = hogTurns - startTurns
    await waiter.release()
    await hog
    expect(turnsWaited).toBeLessThan(30)
    expect(hogTurns).toBeLessThan(200)
    expect(await f.listing()).toEqual([])
  })

  it.concurrent.for<[string, string]>([
    ['reserve@next', ''],
    ['write-record@next', ''],
    ['place@next', 'next-temp'],
    ['unreserve@next', 'lock next'],
  ])('a waiter SIGKILLed at %s leaves what the next writer clears: the lock at once, nothing after the sweep', async ([killAt, left], context) => {
    const { expect } = context
    const f = await fixture(context)
    const holder = await f.take()
    const child = f.start('lock-step-killer', [f.lockPath, f.file, killAt, '1'])
    await eventually(async () => {
      if (killAt.startsWith('unreserve')) expect(existsSync(`${f.lockPath}.next`)).toBe(true)
      else expect(await Promise.race([child.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10))])).toBe(true)
    })
    await holder.release()
    expect(await child.exited, child.stderr()).toEqual({ code: null, signal: 'SIGKILL' })
    const kinds = (await f.listing()).map((name) => {
      if (name === 'settings.yaml.lock') return 'lock'
      if (name === 'settings.yaml.lock.next') return 'next'
      const temp = TEMP.exec(name)
      if (temp?.[1] === 'settings.yaml.lock.next' && Number(temp[3]) === child.pid) return 'next-temp'
      return `other:${name}`
    })
    expect(kinds.sort()).toEqual(left.split(' ').filter(Boolean).sort())
    const lock = await f.take(0)
    expect(await lock.holds()).toBe(true)
    await sweepLeftovers(f.dir, 'settings.yaml', true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    await lock.release()
    expect(await f.listing()).toEqual([])
  })
})
