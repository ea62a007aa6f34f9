/**
 * Usage: lock-step-killer.ts <lock path> <document path> <step[@kind] | -> <nth>
 * Takes the document lock, then releases it, with a step hook that SIGKILLs this very
 * process when it reaches `<step>` (on a file of `<kind>`, when given) for the `<nth>`
 * time (1-based), so the process dies
 * between two file-system steps of the lock protocol. If it is not killed it reports
 * `@@result {"trace": [...], "acquired": true}` (or the error it met: `"error": {code, message}`)
 * and exits 0. The trace names each step and the file it is about: `lock`, `claim` (a claim
 * of the lock), `claim.claim` (a claim of a claim) or `next` (the next-turn reservation).
 */
import { basename } from 'node:path'
import { acquireLock, type LockStep } from '../../src/store/lock.ts'

// The line protocol of protocol.ts (`@@result <json>`, exit by itself after a while), without
// importing it: it loads cordis and the provider, and this child is started dozens of times.
const send = (tag: 'result', payload: unknown) => process.stdout.write(`@@${tag} ${JSON.stringify(payload)}\n`)
const fail = (error: Error): never => {
  process.stderr.write(`child ${process.pid} failed: ${error.message}\n`)
  process.exit(2)
}
setTimeout(() => process.exit(3), 45_000).unref()
const [lockPath, file, killStep, nthText] = process.argv.slice(2)
const nth = Number(nthText)
if (!lockPath || !file || !killStep || !Number.isInteger(nth)) fail(new Error('usage: lock-step-killer.ts <lock path> <document path> <step[@kind] | -> <nth>'))

const lockBase = basename(lockPath!)
const kind = (path: string) => {
  const name = basename(path)
  if (name === lockBase) return 'lock'
  if (name === `${lockBase}.next`) return 'next'
  if (!name.startsWith(`${lockBase}.claim-`)) return `other:${name}`
  return name.slice(lockBase.length + 1).split('.claim-').map(() => 'claim').join('.')
}

const [killName, killKind] = killStep!.split('@')
const trace: string[] = []
let seen = 0
const step = (name: LockStep, path: string) => {
  trace.push(`${name} ${kind(path)}`)
  if (name === killName && (killKind === undefined || kind(path) === killKind) && ++seen === nth) process.kill(process.pid, 'SIGKILL')
}

try {
  const lock = await acquireLock(lockPath!, { timeoutMs: 5000, file: file!, step })
  await lock.release()
  send('result', { trace, acquired: true })
} catch (error) {
  const { code, message } = error as NodeJS.ErrnoException
  send('result', { trace, acquired: false, error: { code, message } })
}
