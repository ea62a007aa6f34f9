import fs from 'node:fs'
/**
 * The portable document lock (src/store/lock-portable.ts, forced here with
 * DSH_SETTINGS_PORTABLE_FS=1, which the children inherit) on a real file system: taking,
 * waiting, releasing, taking over a lock (or a claim) whose owner is certainly gone and
 * never one whose owner may live, unreadable lock files, failing steps, and real processes
 * SIGKILLed at every step of the protocol. Forced interleavings of simulated acquirers are
 * in lock-interleavings.spec.ts; the flock lock is in lock-flock.spec.ts.
 *
 * Every test makes its own directory (and kills only the children it spawned, by pid),
 * so the kill tests can run concurrently.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi, type TestContext } from 'vitest'
import { deadPid, spawnIdle } from './processes-helpers.ts'
import { LockTimeoutError } from '../src/store/errors.ts'
import { sweepLeftovers } from '../src/store/leftovers.ts'
import { acquireLock, StandingRecord, type HeldLock, type LockOptions, type LockStep } from '../src/store/lock.ts'
import { currentOwner, processStartTime, type LockOwner } from '../src/store/owner.ts'
import { endChildren, eventually } from 'dsh-testing'

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const childScript = (name: string) => fileURLToPath(new URL(`./children/${name}.ts`, import.meta.url))
const NONCE = /^[0-9a-f]{18}$/
const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.tmp$/

// The portable lock on every take of this file (and of the children it starts, which inherit the environment).
const portableBefore = process.env.DSH_SETTINGS_PORTABLE_FS
beforeAll(() => void (process.env.DSH_SETTINGS_PORTABLE_FS = '1'))
afterAll(() => {
  if (portableBefore === undefined) delete process.env.DSH_SETTINGS_PORTABLE_FS
  else process.env.DSH_SETTINGS_PORTABLE_FS = portableBefore
})

interface Fixture {
  dir: string
  lockPath: string
  file: string
  options(timeoutMs: number, more?: Partial<LockOptions>): LockOptions
  /** Acquire the lock (released when the test ends, if still held). */
  take(timeoutMs?: number, more?: Partial<LockOptions>): Promise<HeldLock>
  /** Write a lock file holding `record` (a string as is, anything else as JSON); returns its text. */
  plant(record: unknown, path?: string): Promise<string>
  readRecord(path?: string): Promise<LockOwner & { nonce: string }>
  listing(): Promise<string[]>
  /** A child process, killed (by its pid) when the test ends if it still runs. */
  track(child: ChildProcess): ChildProcess
}

/** A fresh directory for one test, removed with everything the test left when it ends. */
async function fixture({ onTestFinished }: TestContext): Promise<Fixture> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-')))
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
    async plant(record, path = lockPath) {
      const text = typeof record === 'string' ? record : JSON.stringify(record)
      await writeFile(path, text)
      return text
    },
    async readRecord(path = lockPath) {
      return JSON.parse(await readFile(path, 'utf8')) as LockOwner & { nonce: string }
    },
    async listing() {
      return (await readdir(dir)).sort()
    },
    track(child) {
      spawned.push(child)
      return child
    },
  }
}



/** A record of a process of this host that has exited, as a lock file of the current format holds it. */
async function deadRecord(f: Fixture, nonce: string): Promise<LockOwner> {
  return { ...currentOwner(), pid: await deadPid(f.track), startTime: '1', nonce }
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (failure: unknown) => failure,
  )
}

async function timeoutOf(promise: Promise<unknown>): Promise<LockTimeoutError> {
  const error = await rejectionOf(promise)
  expect(error).toBeInstanceOf(LockTimeoutError)
  return error as LockTimeoutError
}

/** A child script of tests/children, run through tsx; `prefix` runs it under another command (e.g. `sh -c 'ulimit ...'`). */
interface Child {
  pid: number
  result: Promise<any>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
}

function startChild(f: Fixture, script: string, args: string[], prefix: string[] = []): Child {
  const argv = [process.execPath, '--conditions=source', '--import', 'tsx', childScript(script), ...args]
  const [command, ...rest] = [...prefix, ...argv]
  const child = f.track(spawn(command!, rest, { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] }))
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => void (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code, signal) => resolve({ code, signal }))
  })
  const messages: Record<string, unknown> = {}
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const match = /^@@(ready|result)(?: (.*))?$/.exec(line)
    if (match) messages[match[1]!] = match[2] === undefined ? null : JSON.parse(match[2])
  })
  const result = exited.then(({ code, signal }) => {
    if (!('result' in messages)) throw new Error(`child ${script} (pid ${child.pid}) ended (code ${code}, signal ${signal}) without a result:\n${stderr}`)
    return messages.result
  })
  result.catch(() => {})
  return { pid: child.pid!, result, exited, stderr: () => stderr }
}

describe('taking and releasing', () => {
  it('writes this process owner record with a fresh nonce, and holds it', async (context) => {
    const f = await fixture(context)
    const lock = await f.take()
    const record = await f.readRecord()
    expect(record).toEqual({ ...currentOwner(), nonce: expect.stringMatching(NONCE), lock: 'portable' })
    expect(record.startTime).toBe(processStartTime(process.pid))
    expect(lock.owner).toEqual(record)
    expect(await lock.holds()).toBe(true)
    // A free lock is taken, not taken over: nobody may have left anything behind.
    expect(lock.tookOver).toBe(false)
    // Nothing but the lock: the temp the record was written to is gone.
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('gives every acquisition its own nonce, also within one process', async (context) => {
    const f = await fixture(context)
    const nonces = new Set<string>()
    for (let i = 0; i < 5; i++) {
      const lock = await f.take()
      nonces.add((await f.readRecord()).nonce)
      await lock.release()
    }
    expect(nonces.size).toBe(5)
  })

  it('is exclusive: a second acquirer keeps finding the lock held, and gets it once it is released', async (context) => {
    const f = await fixture(context)
    const first = await f.take()
    const firstRecord = await readFile(f.lockPath, 'utf8')
    let looks = 0
    let thirdLook!: () => void
    const lookedThrice = new Promise<void>((resolve) => (thirdLook = resolve))
    let secondHeld = false
    const second = acquireLock(f.lockPath, {
      ...f.options(10_000),
      step: (step) => {
        if (step === 'inspect' && ++looks === 3) thirdLook()
      },
    }).then((lock) => {
      secondHeld = true
      return lock
    })
    // The second has found the lock held twice, backed off, and is looking a third time.
    await lookedThrice
    expect(secondHeld).toBe(false)
    expect(await readFile(f.lockPath, 'utf8')).toBe(firstRecord)
    await first.release()
    const lock = await second
    expect((await f.readRecord()).nonce).toBe(lock.owner.nonce)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })

  it('removes its lock file on release, and releasing twice is harmless even after another took the lock', async (context) => {
    const f = await fixture(context)
    const lock = await f.take()
    await lock.release()
    expect(existsSync(f.lockPath)).toBe(false)
    expect(await lock.holds()).toBe(false)
    const next = await f.take()
    await lock.release()
    expect((await f.readRecord()).nonce).toBe(next.owner.nonce)
  })

  it('does not remove a lock file that no longer holds its record', async (context) => {
    const f = await fixture(context)
    const lock = await f.take()
    const other = await f.plant({ pid: 424242, hostname: `not-${hostname()}.invalid`, nonce: 'abcdef' })
    expect(await lock.holds()).toBe(false)
    await lock.release()
    expect(await readFile(f.lockPath, 'utf8')).toBe(other)
  })

  it('holds() is true while held, false once another acquirer took the lock over and after release, and release spares the new holder', async (context) => {
    const f = await fixture(context)
    const gone = new Set<number>()
    const isGone = (owner: LockOwner) => gone.has(owner.pid)
    const a = await f.take(0, { owner: { pid: 1001, hostname: 'simulated' }, isGone })
    expect(await a.holds()).toBe(true)
    expect(a.owner).toEqual({ pid: 1001, hostname: 'simulated', nonce: expect.stringMatching(NONCE), lock: 'portable' })
    // While its owner counts as alive, nobody takes it.
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(0, { owner: { pid: 1002, hostname: 'simulated' }, isGone })))
    expect(error.owner).toEqual(a.owner)
    gone.add(1001)
    const b = await f.take(0, { owner: { pid: 1002, hostname: 'simulated' }, isGone })
    expect(await a.holds()).toBe(false)
    expect(await b.holds()).toBe(true)
    await a.release()
    expect(await f.readRecord()).toEqual(b.owner)
    expect(await b.holds()).toBe(true)
    await b.release()
    expect(await b.holds()).toBe(false)
    expect(await f.listing()).toEqual([])
  })
})

describe('taking over a lock whose owner is certainly gone', () => {
  it('takes over the lock of a dead pid of this host at once, leaving nothing but its own lock', async (context) => {
    const f = await fixture(context)
    await f.plant(await deadRecord(f, 'dead0001'))
    // A zero timeout proves no waiting was involved: the stale lock is taken over on the first look.
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(lock.owner.pid).toBe(process.pid)
    // Said so, for the writer to look for what the dead owner left.
    expect(lock.tookOver).toBe(true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    await lock.release()
    expect(await f.listing()).toEqual([])
  })

  it('reads a record of any size: one larger than a record ever is still names its dead owner', async (context) => {
    const f = await fixture(context)
    // Past the 4 KB a record is read with at once: the rest is read too, and the owner found.
    await f.plant({ ...(await deadRecord(f, 'dead0002')), padding: 'x'.repeat(6000) })
    const lock = await f.take(0)
    expect(lock.tookOver).toBe(true)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('never takes a lock whose live owner wrote a record larger than a record ever is', async (context) => {
    const f = await fixture(context)
    await f.plant({ ...currentOwner(), nonce: 'live0001', padding: 'x'.repeat(6000) })
    const error = await timeoutOf(f.take(100))
    expect(error.owner).toMatchObject({ pid: process.pid })
  })

  it('takes over a record of the earlier format (no nonce, boot or namespace) of a dead pid', async (context) => {
    const f = await fixture(context)
    await f.plant({ pid: await deadPid(f.track), hostname: hostname(), startTime: '12345' })
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('takes over a lock whose pid is alive but started at another time (pid reuse)', async (context) => {
    const f = await fixture(context)
    const child = await spawnIdle(f.track)
    const start = processStartTime(child.pid!)!
    await f.plant({ ...currentOwner(), pid: child.pid, startTime: `${Number(start) + 7}`, nonce: 'abc' })
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('takes over a lock of an earlier boot of this host, though its pid runs now', async (context) => {
    const f = await fixture(context)
    await f.plant({ ...currentOwner(), boot: 'an-earlier-boot', nonce: 'abc' })
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('takes over, one level down, the claim of a claimant that died before replacing the lock', async (context) => {
    const f = await fixture(context)
    await f.plant(await deadRecord(f, 'dead0001'))
    await f.plant(await deadRecord(f, 'dead0002'), `${f.lockPath}.claim-dead0001`)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    // Its claim, and its claim of the dead claimant's claim, are dropped once the lock is taken.
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('takes over a claim of a claim, two levels down', async (context) => {
    const f = await fixture(context)
    await f.plant(await deadRecord(f, 'dead0001'))
    await f.plant(await deadRecord(f, 'dead0002'), `${f.lockPath}.claim-dead0001`)
    await f.plant(await deadRecord(f, 'dead0003'), `${f.lockPath}.claim-dead0001.claim-dead0002`)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('waits while a live claimant holds the claim of a dead owner lock, and takes over once the claim is gone', async (context) => {
    const f = await fixture(context)
    const stale = await f.plant(await deadRecord(f, 'dead0001'))
    const child = await spawnIdle(f.track)
    const claim = `${f.lockPath}.claim-dead0001`
    await f.plant({ ...currentOwner(), pid: child.pid, startTime: processStartTime(child.pid!), nonce: 'live0001' }, claim)
    // The live claimant is the only one allowed to replace that record: the others wait.
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(100)))
    expect(error.owner).toMatchObject({ nonce: 'dead0001' })
    expect(await readFile(f.lockPath, 'utf8')).toBe(stale)
    await rm(claim)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('ignores a claim left for a record the lock no longer holds', async (context) => {
    const f = await fixture(context)
    await f.plant(await deadRecord(f, 'dead0002'), `${f.lockPath}.claim-dead0001`)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(await f.listing()).toEqual(['settings.yaml.lock', 'settings.yaml.lock.claim-dead0001'])
  })
})

describe('never breaking a lock whose owner may be alive', () => {
  it('times out on a lock this process holds, naming the document and the owner', async (context) => {
    const f = await fixture(context)
    const lock = await f.take()
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(error.code).toBe('LOCK_TIMEOUT')
    expect(error.file).toBe(f.file)
    expect(error.owner).toEqual(lock.owner)
    expect(error.message).toContain(f.file)
    expect(error.message).toContain(`pid ${process.pid} on ${hostname()}`)
    expect(error.message).toContain('200 ms')
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('never takes the lock a live child process holds, and takes it at once after the child is SIGKILLed', async (context) => {
    const f = await fixture(context)
    const holder = f.track(spawn(process.execPath, ['--conditions=source', '--import', 'tsx', childScript('lock-holder'), f.lockPath, f.file], { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'inherit'] }))
    const ready = await new Promise<string>((resolve, reject) => {
      holder.once('error', reject)
      holder.once('exit', (code, signal) => reject(new Error(`lock-holder exited (code ${code}, signal ${signal})`)))
      createInterface({ input: holder.stdout! }).on('line', (line) => line.startsWith('@@ready') && resolve(line))
    })
    expect(ready).toBe(`@@ready ${JSON.stringify({ pid: holder.pid })}`)
    const record = await readFile(f.lockPath, 'utf8')
    expect(JSON.parse(record)).toEqual({ ...currentOwner(), pid: holder.pid, startTime: processStartTime(holder.pid!), nonce: expect.stringMatching(NONCE), lock: 'portable' })
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(300)))
    expect(error.owner?.pid).toBe(holder.pid)
    expect(await readFile(f.lockPath, 'utf8')).toBe(record)

    const exited = new Promise((resolve) => holder.once('exit', (code, signal) => resolve({ code, signal })))
    holder.kill('SIGKILL')
    expect(await exited).toEqual({ code: null, signal: 'SIGKILL' })
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it('never takes the lock of a live process recorded without a start time', async (context) => {
    const f = await fixture(context)
    const child = await spawnIdle(f.track)
    const record = await f.plant({ pid: child.pid, hostname: hostname() })
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(error.owner?.pid).toBe(child.pid)
    expect(await readFile(f.lockPath, 'utf8')).toBe(record)
  })

  it('never takes the lock of another host, even when its pid is free here', async (context) => {
    const f = await fixture(context)
    const pid = await deadPid(f.track)
    const record = await f.plant({ pid, hostname: `not-${hostname()}.invalid`, startTime: '1', nonce: 'abc' })
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(error.owner).toMatchObject({ pid, hostname: `not-${hostname()}.invalid` })
    expect(await readFile(f.lockPath, 'utf8')).toBe(record)
  })

  it('never takes the lock of another pid namespace, even when its pid is free here', async (context) => {
    const f = await fixture(context)
    const record = await f.plant({ ...(await deadRecord(f, 'abc')), pidns: 'pid:[1]' })
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(error.owner?.pidns).toBe('pid:[1]')
    expect(await readFile(f.lockPath, 'utf8')).toBe(record)
  })
})

describe('a standing record (a long-lived writer\'s owner)', () => {
  it('names the writer in every take, each with a nonce of its own, and stands nowhere on disk', async (context) => {
    const f = await fixture(context)
    const record = new StandingRecord({ ...currentOwner(), nonce: 'ignored' }, () => f.dir)
    const nonces = new Set<string>()
    for (let take = 0; take < 3; take++) {
      const lock = await f.take(1000, { record })
      const { nonce, ...rest } = await f.readRecord()
      expect(rest).toEqual({ ...currentOwner(), lock: 'portable' })
      nonces.add(nonce)
      expect(await f.listing()).toEqual(['settings.yaml.lock'])
      await lock.release()
      expect(await f.listing()).toEqual([])
    }
    expect(nonces.size).toBe(3)
    expect(nonces.has('ignored')).toBe(false)
    record.drop()
  })

  it('waits while another writer holds the lock, and takes a lock whose owner is certainly gone over', async (context) => {
    const f = await fixture(context)
    const record = new StandingRecord(currentOwner())
    await f.plant(await deadRecord(f, 'dead0001'))
    const lock = await f.take(1000, { record })
    expect(lock.tookOver).toBe(true)
    expect(await f.readRecord()).toEqual(lock.owner)
    await lock.release()
    const held = await f.take(1000)
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(50, { record })))
    expect(error.owner).toEqual(held.owner)
  })
})

describe('an empty or unreadable lock file', () => {
  const unreadable = [
    ['an empty file', ''],
    ['text that is not JSON', 'garbage \u0000 not json'],
    ['a truncated record', '{"pid":12,"hostna'],
    ['JSON without a pid', JSON.stringify({ hostname: hostname() })],
  ] as const

  it.for(unreadable)('waits for %s younger than the grace period, timing out without an owner', async ([, text], context) => {
    const f = await fixture(context)
    await f.plant(text)
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(error.code).toBe('LOCK_TIMEOUT')
    expect(error.owner).toBeUndefined()
    expect(error.message).toContain('an unknown owner')
    expect(await readFile(f.lockPath, 'utf8')).toBe(text)
  })

  it.for(unreadable)('takes over %s older than the grace period at once', async ([, text], context) => {
    const f = await fixture(context)
    await f.plant(text)
    const then = new Date(Date.now() - 2500)
    await utimes(f.lockPath, then, then)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('takes over an unreadable lock file once it has aged past graceMs while waiting', async (context) => {
    const f = await fixture(context)
    await f.plant('')
    const written = (await stat(f.lockPath)).mtimeMs
    const lock = await f.take(5000, { graceMs: 300 })
    // The take-over happened only once the file was older than the grace period.
    expect(Date.now() - written).toBeGreaterThan(300)
    expect(await f.readRecord()).toEqual(lock.owner)
  })
})

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device (simulated)'), { code: 'ENOSPC' })

describe('a step or a write that fails', () => {
  it.for<LockStep>(['write-record', 'create'])('fails at %s without leaving a lock or a temp file, and the next acquire works', async (failAt, context) => {
    const f = await fixture(context)
    const thrown = enospc()
    const error = await rejectionOf(
      acquireLock(f.lockPath, {
        ...f.options(1000),
        step: (step) => {
          if (step === failAt) throw thrown
        },
      }),
    )
    expect(error).toBe(thrown)
    expect(await f.listing()).toEqual([])
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })

  it.for<[LockStep, number]>([
    ['write-record', 2],
    ['create', 2],
    ['verify', 1],
    ['replace', 1],
  ])('fails at %s #%i of a take-over leaving the stale lock as it was and no claim or temp, and the next acquire takes over', async ([failAt, nth], context) => {
    const f = await fixture(context)
    const stale = await f.plant(await deadRecord(f, 'dead0001'))
    const thrown = enospc()
    let seen = 0
    const error = await rejectionOf(
      acquireLock(f.lockPath, {
        ...f.options(1000),
        step: (step) => {
          if (step === failAt && ++seen === nth) throw thrown
        },
      }),
    )
    expect(error).toBe(thrown)
    expect(await readFile(f.lockPath, 'utf8')).toBe(stale)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('leaves no temp file when writing the record itself fails (a real EFBIG in a child run with a file size limit of 0)', async (context) => {
    const f = await fixture(context)
    const child = startChild(f, 'lock-step-killer', [f.lockPath, f.file, '-', '0'], ['sh', '-c', 'ulimit -f 0 && exec "$0" "$@"'])
    const result = await child.result
    expect(await child.exited).toEqual({ code: 0, signal: null })
    expect(result).toMatchObject({ acquired: false, error: { code: 'EFBIG' }, trace: ['write-record lock', 'create lock'] })
    expect(await f.listing()).toEqual([])
  })

  it.for<[string, boolean, number]>([
    ['the lock record', false, 1],
    ['the claim record of a take-over', true, 1],
    ['the replacing record of a take-over', true, 2],
  ])('leaves no temp file when writing %s fails (ENOSPC from the write itself)', async ([, stale, nth], context) => {
    const f = await fixture(context)
    const staleText = stale ? await f.plant(await deadRecord(f, 'dead0001')) : undefined
    // Every record is written with fs.writeFileSync (a few bytes, synchronously): fail the nth write of this acquisition.
    const original = fs.writeFileSync
    const thrown = enospc()
    let writes = 0
    const spy = vi.spyOn(fs, 'writeFileSync').mockImplementation((...args: Parameters<typeof fs.writeFileSync>) => {
      if (++writes === nth) throw thrown
      return original(...args)
    })
    let error: unknown
    try {
      error = await rejectionOf(acquireLock(f.lockPath, f.options(1000)))
    } finally {
      spy.mockRestore()
    }
    expect(error).toBe(thrown)
    expect(writes).toBe(nth)
    expect(await f.listing()).toEqual(stale ? ['settings.yaml.lock'] : [])
    if (staleText !== undefined) expect(await readFile(f.lockPath, 'utf8')).toBe(staleText)
    const lock = await f.take(0)
    expect(await f.readRecord()).toEqual(lock.owner)
  })
})

/**
 * The protocol's steps as a child process meets them on each path (its trace), with what
 * the directory holds if the child is SIGKILLed when it reaches that step: `lock:<who>` is
 * the lock file holding the record of `<who>` (`stale`: the dead owner planted before,
 * `claimant`: the dead claimant planted before, `child`), `claim:<who>` a claim of the
 * lock, `claim.claim:<who>` a claim of that claim, and `<file>-temp:child` a temp file the
 * child wrote for one of them.
 */
const KILL_PATHS = {
  plain: {
    stale: false,
    claimant: false,
    steps: [
      ['write-record lock', ''],
      ['create lock', ''],
      ['release lock', 'lock:child'],
      ['inspect lock', 'lock:child'],
    ],
  },
  'take-over': {
    stale: true,
    claimant: false,
    steps: [
      ['write-record lock', 'lock:stale'],
      ['create lock', 'lock:stale'],
      ['inspect lock', 'lock:stale'],
      ['claim claim', 'lock:stale'],
      ['write-record claim', 'lock:stale'],
      ['create claim', 'lock:stale'],
      ['verify lock', 'lock:stale claim:child'],
      ['inspect lock', 'lock:stale claim:child'],
      ['replace lock', 'lock:stale claim:child lock-temp:child'],
      ['drop-claim claim', 'lock:child claim:child'],
      ['inspect claim', 'lock:child claim:child'],
      ['release lock', 'lock:child'],
      ['inspect lock', 'lock:child'],
    ],
  },
  'take-over of a dead claimant claim': {
    stale: true,
    claimant: true,
    steps: [
      ['write-record lock', 'lock:stale claim:claimant'],
      ['create lock', 'lock:stale claim:claimant'],
      ['inspect lock', 'lock:stale claim:claimant'],
      ['claim claim', 'lock:stale claim:claimant'],
      ['write-record claim', 'lock:stale claim:claimant'],
      ['create claim', 'lock:stale claim:claimant'],
      ['inspect claim', 'lock:stale claim:claimant'],
      ['claim claim.claim', 'lock:stale claim:claimant'],
      ['write-record claim.claim', 'lock:stale claim:claimant'],
      ['create claim.claim', 'lock:stale claim:claimant'],
      ['verify claim', 'lock:stale claim:claimant claim.claim:child'],
      ['inspect claim', 'lock:stale claim:claimant claim.claim:child'],
      ['replace claim', 'lock:stale claim:claimant claim.claim:child claim-temp:child'],
      ['drop-claim claim.claim', 'lock:stale claim:child claim.claim:child'],
      ['inspect claim.claim', 'lock:stale claim:child claim.claim:child'],
      ['verify lock', 'lock:stale claim:child'],
      ['inspect lock', 'lock:stale claim:child'],
      ['replace lock', 'lock:stale claim:child lock-temp:child'],
      ['drop-claim claim', 'lock:child claim:child'],
      ['inspect claim', 'lock:child claim:child'],
      ['release lock', 'lock:child'],
      ['inspect lock', 'lock:child'],
    ],
  },
} satisfies Record<string, { stale: boolean; claimant: boolean; steps: [string, string][] }>

type KillPath = keyof typeof KILL_PATHS

const KILLS = Object.entries(KILL_PATHS).flatMap(([path, { steps }]) => {
  const seen = new Map<string, number>()
  return steps.map(([traced, left]) => {
    const [step] = traced.split(' ') as [LockStep]
    seen.set(step, (seen.get(step) ?? 0) + 1)
    return { path: path as KillPath, step, nth: seen.get(step)!, traced, left }
  })
})

/** Plant what a path starts from: nothing, a dead owner's lock, or that and a dead claimant's claim. */
async function plantPath(f: Fixture, path: KillPath): Promise<{ stale?: LockOwner; claimant?: LockOwner }> {
  const { stale, claimant } = KILL_PATHS[path]
  const planted: { stale?: LockOwner; claimant?: LockOwner } = {}
  if (stale) await f.plant((planted.stale = await deadRecord(f, 'dead0001')))
  if (claimant) await f.plant((planted.claimant = await deadRecord(f, 'dead0002')), `${f.lockPath}.claim-dead0001`)
  return planted
}

/** What the directory holds, in the words of KILL_PATHS. */
async function describeLeft(f: Fixture, childPid: number, planted: { stale?: LockOwner; claimant?: LockOwner }): Promise<string[]> {
  const kindOf = (name: string) => {
    if (name === 'settings.yaml.lock') return 'lock'
    if (!name.startsWith('settings.yaml.lock.claim-')) return undefined
    return name.slice('settings.yaml.lock.'.length).split('.claim-').map(() => 'claim').join('.')
  }
  const described: string[] = []
  for (const name of await f.listing()) {
    const temp = TEMP.exec(name)
    if (temp && kindOf(temp[1]!)) {
      described.push(`${kindOf(temp[1]!)}-temp:${Number(temp[3]) === childPid ? 'child' : `pid ${temp[3]}`}`)
      continue
    }
    const kind = kindOf(name)
    if (!kind) {
      described.push(`other:${name}`)
      continue
    }
    const record = await f.readRecord(join(f.dir, name))
    const who =
      record.nonce === planted.stale?.nonce ? 'stale' : record.nonce === planted.claimant?.nonce ? 'claimant' : record.pid === childPid ? 'child' : `pid ${record.pid}`
    described.push(`${kind}:${who}`)
  }
  return described.sort()
}

describe('taking turns: a waiter reserves the next turn', () => {
  const turnPath = (f: Fixture) => `${f.lockPath}.next`
  /** A record of this (live) process under another acquisition's nonce: a waiter that is certainly alive. */
  const liveWaiter = (nonce: string): LockOwner => ({ ...currentOwner(), nonce })

  it('gets in within a few turns of a writer that releases and retakes the lock in a loop', async (context) => {
    const f = await fixture(context)
    // The hog retakes the lock in the same microtask run that released it, so without turns a waiter
    // whose timer fires while it holds the lock would never see it free.
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
    // 50 ms of waiting (10 hog turns of 5 ms) before it reserves, then the hog's next acquisition yields.
    expect(turnsWaited).toBeLessThan(30)
    expect(hogTurns).toBeLessThan(200)
    expect(await f.listing()).toEqual([])
  })

  it('leaves a free lock alone while a live waiter holds the next turn, and takes it once that turn is stale', async (context) => {
    const f = await fixture(context)
    await f.plant(liveWaiter('0ffe12'), turnPath(f))
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(200)))
    expect(existsSync(f.lockPath)).toBe(false)
    expect(error.message).toContain('an unknown owner')
    expect((await f.readRecord(turnPath(f))).nonce).toBe('0ffe12')
    // A reservation not renewed for over a second belongs to a waiter that is not waiting (a stopped process).
    const then = new Date(Date.now() - 1500)
    await utimes(turnPath(f), then, then)
    const lock = await f.take(0)
    expect(await lock.holds()).toBe(true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('ignores a reservation dated far ahead (a clock that runs ahead), which would otherwise hold every writer back until then', async (context) => {
    const f = await fixture(context)
    await f.plant(liveWaiter('0ffe13'), turnPath(f))
    const ahead = new Date(Date.now() + 3_600_000)
    await utimes(turnPath(f), ahead, ahead)
    const lock = await f.take(0)
    expect(await lock.holds()).toBe(true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('removes the reservation of a dead waiter and takes the lock at once', async (context) => {
    const f = await fixture(context)
    await f.plant(await deadRecord(f, 'dead0003'), turnPath(f))
    const lock = await f.take(0)
    expect(await lock.holds()).toBe(true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
  })

  it('keeps its turn while the holder takes longer than a reservation lives, and goes before a later writer', async (context) => {
    const f = await fixture(context)
    const holder = await f.take()
    const order: string[] = []
    const waiter = acquireLock(f.lockPath, f.options(10_000)).then((lock) => (order.push('waiter'), lock))
    await eventually(() => expect(existsSync(turnPath(f))).toBe(true))
    const reservation = (await f.readRecord(turnPath(f))).nonce
    // Past the one second a reservation lives without renewal: the waiter renews it.
    await new Promise((resolve) => setTimeout(resolve, 1400))
    expect(Date.now() - (await stat(turnPath(f))).mtimeMs).toBeLessThan(1000)
    expect((await f.readRecord(turnPath(f))).nonce).toBe(reservation)
    const later = acquireLock(f.lockPath, f.options(10_000)).then((lock) => (order.push('later'), lock))
    await new Promise((resolve) => setTimeout(resolve, 100))
    await holder.release()
    const first = await waiter
    expect(first.owner.nonce).toBe(reservation)
    // Holding the lock, the waiter has dropped its turn; the later writer waits for the lock itself.
    expect(existsSync(turnPath(f))).toBe(false)
    await first.release()
    await (await later).release()
    expect(order).toEqual(['waiter', 'later'])
    expect(await f.listing()).toEqual([])
  })

  it('keeps waiting when its reservation cannot be written, and keeps the lock it took when dropping the reservation fails', async (context) => {
    const f = await fixture(context)
    for (const failing of ['reserve', 'unreserve'] as const) {
      const holder = await f.take()
      let failed = 0
      const waiter = acquireLock(f.lockPath, {
        ...f.options(10_000),
        step: (step) => {
          if (step === failing) {
            failed++
            throw enospc()
          }
        },
      })
      // It has tried to reserve (and failed), or has reserved and drops it only once it holds the lock.
      await eventually(() => expect(failing === 'reserve' ? failed > 0 : existsSync(turnPath(f))).toBe(true))
      await holder.release()
      const lock = await waiter
      if (failing === 'unreserve') expect(failed).toBe(1)
      expect(await lock.holds()).toBe(true)
      await lock.release()
      // A reservation it could not drop is its own, and expires; the next acquirer clears it once stale.
      if (existsSync(turnPath(f))) {
        const then = new Date(Date.now() - 1500)
        await utimes(turnPath(f), then, then)
        await (await f.take(0)).release()
      }
      expect(await f.listing()).toEqual([])
    }
  })

  it('drops its reservation when it gives up', async (context) => {
    const f = await fixture(context)
    const holder = await f.take()
    let reserved = false
    await timeoutOf(
      acquireLock(f.lockPath, {
        ...f.options(300),
        step: (step) => {
          if (step === 'reserve') reserved = true
        },
      }),
    )
    expect(reserved).toBe(true)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    await holder.release()
  })

  it.concurrent.for<[string, number, string]>([
    ['reserve@next', 1, ''],
    ['write-record@next', 1, ''],
    ['create@next', 1, ''],
    ['unreserve@next', 1, 'lock next'],
  ])('a waiter SIGKILLed at %s #%i leaves what the next acquirer clears: the lock at once, nothing after the sweep', async ([killAt, nth, left], context) => {
    const { expect } = context
    const f = await fixture(context)
    const holder = await f.take()
    const child = startChild(f, 'lock-step-killer', [f.lockPath, f.file, killAt, String(nth)])
    const reserving = killAt.startsWith('unreserve')
    // The child waits on the held lock; once it has a turn (or died getting one), the holder lets go.
    await eventually(async () => {
      if (reserving) expect(existsSync(`${f.lockPath}.next`)).toBe(true)
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

describe('a process SIGKILLed at each step of the protocol', () => {
  it.concurrent.for(Object.keys(KILL_PATHS) as KillPath[])('meets the steps listed for the %s path, and leaves nothing when it is not killed', async (path, context) => {
    const f = await fixture(context)
    await plantPath(f, path)
    const child = startChild(f, 'lock-step-killer', [f.lockPath, f.file, '-', '0'])
    const result = await child.result
    context.expect(await child.exited).toEqual({ code: 0, signal: null })
    context.expect(result).toEqual({ acquired: true, trace: KILL_PATHS[path].steps.map(([traced]) => traced) })
    context.expect(await f.listing()).toEqual([])
  })

  it.concurrent.for(KILLS)('on the $path path at $step #$nth: the next acquirer takes the lock at once and the sweep leaves nothing of it', async ({ path, step, nth, left }, context) => {
    const { expect } = context
    const f = await fixture(context)
    const planted = await plantPath(f, path)
    const child = startChild(f, 'lock-step-killer', [f.lockPath, f.file, step, String(nth)])
    expect(await child.exited, child.stderr()).toEqual({ code: null, signal: 'SIGKILL' })
    // It died exactly there: what it left tells the step.
    expect(await describeLeft(f, child.pid, planted)).toEqual(left.split(' ').filter(Boolean).sort())

    // The next acquirer needs no manual step, and does not wait (the child is certainly gone).
    const lock = await f.take(3000)
    expect(await lock.holds()).toBe(true)
    expect(await f.readRecord()).toEqual(lock.owner)
    // It holds the lock alone: another acquirer finds it held by this process.
    const error = await timeoutOf(acquireLock(f.lockPath, f.options(50)))
    expect(error.owner).toEqual(lock.owner)

    // While holding it, the sweep removes what the child left: its temps, and the claims.
    const swept = await sweepLeftovers(f.dir, 'settings.yaml', true)
    for (const name of swept.temps) expect(name).toContain(`.${child.pid}.`)
    expect(await f.listing()).toEqual(['settings.yaml.lock'])
    expect(await lock.holds()).toBe(true)
    await lock.release()
    expect(await f.listing()).toEqual([])
  })
})
