/**
 * The owner record of a lock or temp file, and the one judgement the lock and the
 * leftover sweep rest on: whether the process a record names is certainly gone.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readlinkSync } from 'node:fs'
import { mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { eventually, endChildren } from 'dsh-testing'
import { deadPid, spawnIdle } from './processes-helpers.ts'
import { currentOwner, hostFacts, isOwnerGone, parseOwner, processStartTime, readProcStat } from '../src/store/owner.ts'

let dir: string
const spawned: ChildProcess[] = []
const track = (child: ChildProcess) => (spawned.push(child), child)

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-owner-')))
})

afterEach(async () => {
  await endChildren(spawned)
  await rm(dir, { recursive: true, force: true })
})

/**
 * A zombie: a process that exited and that its parent never reaps. The shell starts
 * `sleep 0` in the background, prints its pid, and becomes `sleep 30`, which never waits.
 */
async function zombie(): Promise<{ pid: number; startTime: string }> {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'inherit'] })
  spawned.push(parent)
  const line = await new Promise<string>((resolve, reject) => {
    parent.once('error', reject)
    createInterface({ input: parent.stdout! }).once('line', resolve)
  })
  const pid = Number(line)
  // Wait (bounded) until the background child has exited; it stays a zombie while `sleep 30` runs.
  for (let i = 0; i < 500 && readProcStat(pid)?.state !== 'Z'; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  const stat = readProcStat(pid)
  expect(stat?.state).toBe('Z')
  return { pid, startTime: stat!.startTime }
}

describe('processStartTime and readProcStat', () => {
  it('reads this process start time as a stable number of clock ticks', () => {
    const start = processStartTime(process.pid)
    expect(start).toMatch(/^\d+$/)
    expect(processStartTime(process.pid)).toBe(start)
    expect(readProcStat(process.pid)).toEqual({ state: 'R', startTime: start })
  })

  it('answers undefined for a pid that is not running', async () => {
    const pid = await deadPid(track)
    expect(processStartTime(pid)).toBeUndefined()
    expect(readProcStat(pid)).toBeUndefined()
  })

  it('reads the start time past a command name holding spaces and parentheses', async () => {
    // The kernel names a process after the file it executed: run node through a link with an awkward name.
    const link = join(dir, 'x) y (z')
    await symlink(process.execPath, link)
    const child = await spawnIdle(track, link)
    const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8')
    expect(stat).toContain('(x) y (z)')
    // Field 22 (starttime), counted independently: fields 3.. follow the last ") ".
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).trim().split(/\s+/)
    expect(processStartTime(child.pid!)).toBe(fields[19])
    // The state (field 3) may change between two reads (the idle child wakes): it is one of the kernel's state letters.
    expect(fields[0]).toMatch(/^[RSDTtZXxKWPI]$/)
    expect(readProcStat(child.pid!)?.state).toMatch(/^[RSDTtZXxKWPI]$/)
    // A child starts no earlier than its parent.
    expect(Number(processStartTime(child.pid!))).toBeGreaterThanOrEqual(Number(processStartTime(process.pid)))
  })
})

describe('hostFacts and currentOwner', () => {
  it('names this host, its boot and this pid namespace', () => {
    expect(hostFacts()).toEqual({
      hostname: hostname(),
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidns: readlinkSync('/proc/self/ns/pid'),
    })
    expect(hostFacts().pidns).toMatch(/^pid:\[\d+\]$/)
  })

  it('describes this process by pid, start time and the host facts, without a nonce', () => {
    expect(currentOwner()).toEqual({ pid: process.pid, startTime: processStartTime(process.pid), ...hostFacts() })
    expect(currentOwner({ hostname: 'elsewhere' })).toEqual({ pid: process.pid, hostname: 'elsewhere', startTime: processStartTime(process.pid) })
  })
})

describe('isOwnerGone', () => {
  it('holds this live process as present, with or without its start time and host facts', () => {
    expect(isOwnerGone(currentOwner())).toBe(false)
    expect(isOwnerGone({ pid: process.pid, hostname: hostname() })).toBe(false)
  })

  it('holds a live child as present', async () => {
    const child = await spawnIdle(track)
    expect(isOwnerGone({ ...currentOwner(), pid: child.pid!, startTime: processStartTime(child.pid!)! })).toBe(false)
  })

  it('counts an owner on this host whose pid is not running as gone', async () => {
    const pid = await deadPid(track)
    expect(isOwnerGone({ pid, hostname: hostname(), startTime: '1' })).toBe(true)
    expect(isOwnerGone({ ...currentOwner(), pid })).toBe(true)
  })

  it('counts a live pid that started at another time as gone (the pid was reused)', () => {
    const start = processStartTime(process.pid)!
    expect(isOwnerGone({ ...currentOwner(), startTime: `${Number(start) + 1}` })).toBe(true)
  })

  it('counts a zombie (exited, not yet reaped) as gone, though its pid still answers signals', async () => {
    const { pid, startTime } = await zombie()
    expect(() => process.kill(pid, 0)).not.toThrow()
    expect(isOwnerGone({ ...currentOwner(), pid, startTime })).toBe(true)
    expect(isOwnerGone({ pid, hostname: hostname() })).toBe(true)
  })

  it.runIf(process.platform === 'linux' && process.arch === 'x64' && existsSync('/usr/bin/python3'))(
    'holds a zombie leader whose other thread still runs as present (a killed writer finishing a rename), and as gone once it ends',
    async () => {
      // The main thread makes the raw exit system call (60), which ends that thread only: the leader turns
      // zombie while the sleeping thread lives on, as a SIGKILLed node process's thread pool may.
      const script = 'import threading,os,time,ctypes\nt=threading.Thread(target=time.sleep,args=(1.5,))\nt.start()\nprint(os.getpid(), flush=True)\nctypes.CDLL(None).syscall(60, 0)\n'
      const child = track(spawn('/usr/bin/python3', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] }))
      const pid = Number(await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')))))
      const owner = { pid, hostname: hostname(), startTime: processStartTime(pid)! }
      await eventually(() => expect(readProcStat(pid)?.state).toBe('Z'))
      expect(isOwnerGone(owner)).toBe(false)
      await new Promise((resolve) => child.once('exit', resolve))
      expect(isOwnerGone(owner)).toBe(true)
    },
  )

  it('counts an owner of an earlier boot of this host as gone, even when its pid runs now', () => {
    expect(isOwnerGone({ ...currentOwner(), boot: 'an-earlier-boot' })).toBe(true)
  })

  it('never counts an owner of another pid namespace as gone, even when its pid is free here', async () => {
    const pid = await deadPid(track)
    expect(isOwnerGone({ ...currentOwner(), pid, pidns: 'pid:[1]' })).toBe(false)
  })

  it('never counts an owner on another host as gone, whatever its pid, boot or start time', async () => {
    const pid = await deadPid(track)
    const elsewhere = `not-${hostname()}.invalid`
    expect(isOwnerGone({ pid, hostname: elsewhere })).toBe(false)
    expect(isOwnerGone({ ...currentOwner(), pid, hostname: elsewhere, boot: 'another-boot', startTime: '1' })).toBe(false)
  })

  it('never judges a record whose pid is not a positive integer (pid 0 or -1 would signal a group)', () => {
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 60]) expect(isOwnerGone({ pid, hostname: hostname() })).toBe(false)
  })

  it('judges against the facts it is given, not only this process own', async () => {
    const pid = await deadPid(track)
    expect(isOwnerGone({ pid, hostname: 'simulated' }, { hostname: 'simulated' })).toBe(true)
    expect(isOwnerGone({ pid, hostname: 'simulated' })).toBe(false)
  })
})

describe('parseOwner', () => {
  it('reads a record with a pid and a hostname, keeping its other fields', () => {
    const record = { ...currentOwner(), nonce: 'abc123' }
    expect(parseOwner(JSON.stringify(record))).toEqual(record)
    expect(parseOwner('{"pid":7,"hostname":"h"}')).toEqual({ pid: 7, hostname: 'h' })
  })

  it.each([
    ['an empty text', ''],
    ['text that is not JSON', 'garbage \u0000 not json'],
    ['a truncated record', '{"pid":7,"hostna'],
    ['null', 'null'],
    ['a number', '42'],
    ['JSON without a pid', JSON.stringify({ hostname: 'h' })],
    ['JSON without a hostname', JSON.stringify({ pid: 7 })],
    ['a pid that is a string', JSON.stringify({ pid: '7', hostname: 'h' })],
  ])('answers undefined for %s', (_label, text) => {
    expect(parseOwner(text)).toBeUndefined()
  })
})
