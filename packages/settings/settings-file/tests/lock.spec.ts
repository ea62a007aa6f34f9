import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SettingsLockTimeoutError } from 'dsh-settings-file'
import { acquireLock, currentOwner, isOwnerGone, processStartTime, type HeldLock } from '../src/lock.ts'
import type { LockOwner } from '../src/errors.ts'

let dir: string
let lockPath: string
const held: HeldLock[] = []
const spawned: ChildProcess[] = []

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-lock-')))
  lockPath = join(dir, 'settings.yaml.lock')
})

afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release()
  // Only the processes this file spawned, by their own pid.
  for (const child of spawned.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  await rm(dir, { recursive: true, force: true })
})

const options = (timeoutMs: number) => ({ timeoutMs, file: join(dir, 'settings.yaml') })

async function take(timeoutMs = 2000): Promise<HeldLock> {
  const lock = await acquireLock(lockPath, options(timeoutMs))
  held.push(lock)
  return lock
}

async function readOwner(): Promise<LockOwner> {
  return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner
}

async function plant(owner: unknown): Promise<string> {
  const text = typeof owner === 'string' ? owner : JSON.stringify(owner)
  await writeFile(lockPath, text)
  return text
}

/** A child node process that idles, then exits by itself (the test also kills it by pid). */
function spawnIdle(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000); process.stdout.write("ready\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] })
  spawned.push(child)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', () => resolve(child))
  })
}

/** The pid of a process that ran on this host and has exited (and has not been reused since). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  spawned.push(child)
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', () => resolve())
  })
  const pid = child.pid!
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }))
  return pid
}

async function timeoutOf(promise: Promise<unknown>): Promise<SettingsLockTimeoutError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(SettingsLockTimeoutError)
  return error as SettingsLockTimeoutError
}

describe('processStartTime and currentOwner', () => {
  it('reads this process start time as a stable number of clock ticks', () => {
    const start = processStartTime(process.pid)
    expect(start).toMatch(/^\d+$/)
    expect(processStartTime(process.pid)).toBe(start)
  })

  it('answers undefined for a pid that is not running', async () => {
    expect(processStartTime(await deadPid())).toBeUndefined()
  })

  it('reads the start time past a command name holding spaces and parentheses', async () => {
    // The kernel names a process after the file it executed: run node through a link with an awkward name.
    const link = join(dir, 'x) y (z')
    await symlink(process.execPath, link)
    const child = spawn(link, ['-e', 'setTimeout(() => {}, 30000); process.stdout.write("ready\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] })
    spawned.push(child)
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject)
      child.stdout!.once('data', () => resolve())
    })
    const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8')
    expect(stat).toContain('(x) y (z)')
    // Field 22 (starttime), counted independently: fields 3.. follow the last ") ".
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).trim().split(/\s+/)
    expect(processStartTime(child.pid!)).toBe(fields[19])
    // A child starts no earlier than its parent.
    expect(Number(processStartTime(child.pid!))).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)))
  })

  it('describes this process by pid, hostname and start time', () => {
    expect(currentOwner()).toEqual({ pid: process.pid, hostname: hostname(), startTime: processStartTime(process.pid) })
  })
})

describe('isOwnerGone', () => {
  it('holds this live process as present', () => {
    expect(isOwnerGone(currentOwner())).toBe(false)
    expect(isOwnerGone({ pid: process.pid, hostname: hostname() })).toBe(false)
  })

  it('holds a live child as present', async () => {
    const child = await spawnIdle()
    expect(isOwnerGone({ pid: child.pid!, hostname: hostname(), startTime: processStartTime(child.pid!)! })).toBe(false)
  })

  it('counts an owner on this host whose pid is not running as gone', async () => {
    expect(isOwnerGone({ pid: await deadPid(), hostname: hostname(), startTime: '1' })).toBe(true)
  })

  it('counts a live pid that started at another time as gone (the pid was reused)', () => {
    const start = processStartTime(process.pid)!
    expect(isOwnerGone({ pid: process.pid, hostname: hostname(), startTime: `${Number(start) + 1}` })).toBe(true)
  })

  it('never counts an owner on another host as gone, even when its pid is free here', async () => {
    expect(isOwnerGone({ pid: await deadPid(), hostname: `not-${hostname()}.invalid` })).toBe(false)
  })
})

describe('acquireLock', () => {
  it('records pid, hostname and start time in the lock file', async () => {
    await take()
    expect(await readOwner()).toEqual({ pid: process.pid, hostname: hostname(), startTime: processStartTime(process.pid) })
  })

  it('is exclusive: a second acquire waits while the first is held and gets the lock once it is released', async () => {
    const first = await take()
    const firstRecord = await readFile(lockPath, 'utf8')
    let secondHeld = false
    const second = acquireLock(lockPath, options(10_000)).then((lock) => {
      secondHeld = true
      held.push(lock)
      return lock
    })
    // However long it waits, the second cannot get in while the first holds the lock.
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(secondHeld).toBe(false)
    expect(await readFile(lockPath, 'utf8')).toBe(firstRecord)
    await first.release()
    const lock = await second
    expect(secondHeld).toBe(true)
    expect(existsSync(lockPath)).toBe(true)
    await lock.release()
    expect(existsSync(lockPath)).toBe(false)
  })

  it('removes its lock file on release, and releasing twice is harmless', async () => {
    const lock = await take()
    await lock.release()
    expect(existsSync(lockPath)).toBe(false)
    await take()
    await lock.release()
    expect(existsSync(lockPath)).toBe(true)
  })

  it('does not remove a lock file another owner wrote after it', async () => {
    const lock = await take()
    const other = await plant({ pid: 424242, hostname: `not-${hostname()}.invalid` })
    await lock.release()
    expect(await readFile(lockPath, 'utf8')).toBe(other)
  })

  it('breaks a lock whose owner is dead on this host and takes it over at once', async () => {
    await plant({ pid: await deadPid(), hostname: hostname(), startTime: '12345' })
    // A zero timeout proves no waiting was involved: the stale lock is broken on the first look.
    await take(0)
    expect((await readOwner()).pid).toBe(process.pid)
  })

  it('breaks a lock whose pid is alive but started at another time (pid reuse)', async () => {
    const child = await spawnIdle()
    const start = processStartTime(child.pid!)!
    await plant({ pid: child.pid, hostname: hostname(), startTime: `${Number(start) + 7}` })
    await take(0)
    expect((await readOwner()).pid).toBe(process.pid)
  })

  it('never breaks a lock this live process holds, and times out naming the document and the owner', async () => {
    await take()
    const error = await timeoutOf(acquireLock(lockPath, options(200)))
    expect(error.code).toBe('SETTINGS_LOCK_TIMEOUT')
    expect(error.file).toBe(join(dir, 'settings.yaml'))
    expect(error.owner).toMatchObject({ pid: process.pid, hostname: hostname() })
    expect(error.message).toContain(join(dir, 'settings.yaml'))
    expect(error.message).toContain(`pid ${process.pid}`)
    expect((await readOwner()).pid).toBe(process.pid)
  })

  it('never breaks a lock a live child holds', async () => {
    const child = await spawnIdle()
    const record = await plant({ pid: child.pid, hostname: hostname(), startTime: processStartTime(child.pid!) })
    const error = await timeoutOf(acquireLock(lockPath, options(200)))
    expect(error.code).toBe('SETTINGS_LOCK_TIMEOUT')
    expect(error.owner?.pid).toBe(child.pid)
    expect(await readFile(lockPath, 'utf8')).toBe(record)
  })

  it('never breaks a lock a live process without a recorded start time holds', async () => {
    const child = await spawnIdle()
    const record = await plant({ pid: child.pid, hostname: hostname() })
    const error = await timeoutOf(acquireLock(lockPath, options(200)))
    expect(error.owner?.pid).toBe(child.pid)
    expect(await readFile(lockPath, 'utf8')).toBe(record)
  })

  it('never breaks a lock from another host, even when its pid is free here', async () => {
    const pid = await deadPid()
    const record = await plant({ pid, hostname: `not-${hostname()}.invalid`, startTime: '1' })
    const error = await timeoutOf(acquireLock(lockPath, options(200)))
    expect(error.code).toBe('SETTINGS_LOCK_TIMEOUT')
    expect(error.owner).toMatchObject({ pid, hostname: `not-${hostname()}.invalid` })
    expect(await readFile(lockPath, 'utf8')).toBe(record)
  })

  it.each([
    ['text that is not JSON', 'garbage \u0000 not json'],
    ['an empty file', ''],
    ['JSON without a pid', JSON.stringify({ hostname: hostname() })],
  ])('times out on a lock file holding %s rather than breaking it', async (_label, text) => {
    await plant(text)
    const error = await timeoutOf(acquireLock(lockPath, options(200)))
    expect(error.code).toBe('SETTINGS_LOCK_TIMEOUT')
    expect(error.owner).toBeUndefined()
    expect(await readFile(lockPath, 'utf8')).toBe(text)
  })

  it('leaves nothing but the lock file in the directory while it breaks stale locks', async () => {
    await plant({ pid: await deadPid(), hostname: hostname() })
    const lock = await take(0)
    expect(await readdir(dir)).toEqual(['settings.yaml.lock'])
    await lock.release()
    expect(await readdir(dir)).toEqual([])
  })
})
