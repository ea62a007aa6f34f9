/**
 * A SIGKILLed node process turns its leader thread into a zombie at once, while a thread-pool
 * thread may still be finishing a system call (a rename of the lock or the document). Such an
 * owner is not gone until no thread is left; a zombie with no thread left is.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually } from 'dsh-testing'
import { isOwnerGone, processStartTime } from '../src/owner.ts'

const spawned: ChildProcess[] = []
afterEach(() => {
  for (const child of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2).split(' ')[0]

/** Start `command` and read the first line it prints (a pid). */
async function firstLine(command: string, args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  spawned.push(child)
  const line = await new Promise<string>((resolve, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()))
  })
  return { child, line }
}

const linuxX64 = process.platform === 'linux' && process.arch === 'x64' && existsSync('/usr/bin/python3')

describe.runIf(linuxX64)('isOwnerGone with zombies (Linux x86-64)', () => {
  it('holds a zombie leader whose other thread still runs as present, and as gone once that thread ends', async () => {
    // The main thread calls the raw exit system call (60), which ends that thread only: the leader turns
    // zombie while the sleeping thread lives on, as a killed node process's thread pool would.
    const script = 'import threading,os,time,ctypes\nt=threading.Thread(target=time.sleep,args=(1.5,))\nt.start()\nprint(os.getpid(), flush=True)\nctypes.CDLL(None).syscall(60, 0)\n'
    const { child, line } = await firstLine('/usr/bin/python3', ['-c', script])
    const pid = Number(line)
    const owner = { pid, hostname: hostname(), startTime: processStartTime(pid)! }
    await eventually(() => expect(state(pid)).toBe('Z'))
    expect(isOwnerGone(owner)).toBe(false)
    await new Promise((resolve) => child.once('exit', resolve))
    expect(isOwnerGone(owner)).toBe(true)
  })

  it('holds a zombie with no thread left (exited, not yet reaped) as gone', async () => {
    // sh starts a child that exits at once, then becomes `sleep`, which never reaps it.
    const { line } = await firstLine('/bin/sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'])
    const pid = Number(line)
    await eventually(() => expect(state(pid)).toBe('Z'))
    expect(isOwnerGone({ pid, hostname: hostname() })).toBe(true)
  })
})
