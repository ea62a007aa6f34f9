import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { link, open, readFile, rename, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { SettingsLockTimeoutError, type LockOwner } from './errors.ts'

/** The start time of a process as the kernel reports it (field 22 of `/proc/<pid>/stat`), where there is a `/proc`. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is parenthesized and may hold spaces: count fields after its closing paren.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/** The owner record this process writes into a lock file. */
export function currentOwner(): LockOwner {
  const startTime = processStartTime(process.pid)
  return { pid: process.pid, hostname: hostname(), ...(startTime ? { startTime } : {}) }
}

/**
 * Whether a lock owner is certainly gone: it was on this host and its pid is
 * not running, or is running but started at another time (the pid was reused).
 * An owner on another host, or one whose state cannot be told, is never gone.
 */
export function isOwnerGone(owner: LockOwner): boolean {
  if (owner.hostname !== hostname()) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  if (!owner.startTime) return false
  const startTime = processStartTime(owner.pid)
  return startTime !== undefined && startTime !== owner.startTime
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') return value as LockOwner
  } catch {}
  return undefined
}

/** A held lock: release it exactly once. */
export interface HeldLock {
  release(): Promise<void>
}

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** How long to wait for a live owner before giving up. */
  timeoutMs: number
  /** The document the lock guards, for the timeout error. */
  file: string
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Take the lock file at `lockPath`: exclusively create it with this process's
 * owner record. A lock whose owner is certainly gone is broken and taken over;
 * one held by a live process, or by a process on another host, is waited for
 * until `timeoutMs`, then refused.
 * @throws {SettingsLockTimeoutError} naming the document and the owner found.
 */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<HeldLock> {
  const record = JSON.stringify(currentOwner())
  const deadline = Date.now() + options.timeoutMs
  let delay = 5
  let owner: LockOwner | undefined
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx', 0o600)
      try {
        await handle.writeFile(record)
      } finally {
        await handle.close()
      }
      return heldLock(lockPath, record)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const text = await readFile(lockPath, 'utf8').catch(() => undefined)
    if (text === undefined) continue // released between our attempt and the read: try again at once
    owner = parseOwner(text)
    if (owner && isOwnerGone(owner) && (await breakStaleLock(lockPath, text))) continue
    if (Date.now() >= deadline) throw new SettingsLockTimeoutError(options.file, owner, options.timeoutMs)
    await sleep(Math.min(delay, Math.max(1, deadline - Date.now())))
    delay = Math.min(delay * 2, 50)
  }
}

/**
 * Remove a stale lock, but only the one we judged: move it aside atomically,
 * and if what was moved is not the record we read (another writer took over
 * meanwhile), put it back.
 */
async function breakStaleLock(lockPath: string, staleText: string): Promise<boolean> {
  const aside = `${lockPath}.${randomBytes(6).toString('hex')}.stale`
  try {
    await rename(lockPath, aside)
  } catch {
    return false
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined)
  if (moved !== staleText) {
    await link(aside, lockPath).catch(() => {})
    await unlink(aside).catch(() => {})
    return false
  }
  await unlink(aside).catch(() => {})
  return true
}

function heldLock(lockPath: string, record: string): HeldLock {
  let released = false
  return {
    async release() {
      if (released) return
      released = true
      // Remove only our own lock: never one another process took over after judging ours stale.
      const text = await readFile(lockPath, 'utf8').catch(() => undefined)
      if (text === record) await unlink(lockPath).catch(() => {})
    },
  }
}
