import { spawn, type ChildProcess } from 'node:child_process'
import { expect } from 'vitest'

/** Where a test keeps the processes it started, to kill them (by pid) when it ends. */
export type Track = (child: ChildProcess) => ChildProcess

/** A child process (node by default) that idles until killed; it exits by itself after 30 s. */
export function spawnIdle(track: Track, command = process.execPath): Promise<ChildProcess> {
  const child = track(spawn(command, ['-e', 'setTimeout(() => {}, 30000); process.stdout.write("ready\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] }))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.stdout!.once('data', () => resolve(child))
  })
}

/** The pid of a process that ran on this host and has exited (and has not been reused since). */
export async function deadPid(track: Track): Promise<number> {
  const child = track(spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }))
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', () => resolve())
  })
  const pid = child.pid!
  expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }))
  return pid
}
