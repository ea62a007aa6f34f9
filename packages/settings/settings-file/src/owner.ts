import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * Who holds (or held) a lock or wrote a temp file, as recorded in the file:
 * enough to tell, on this host, whether that process is certainly gone.
 */
export interface LockOwner {
  pid: number
  hostname: string
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22), to tell a reused pid apart. */
  startTime?: string
  /** The kernel's boot id: a record from an earlier boot names a process that cannot be running. */
  boot?: string
  /** The pid namespace (`/proc/self/ns/pid`): pids of another namespace cannot be judged from this one. */
  pidns?: string
  /** Unique per acquisition: what tells this holder's lock apart from any other, also of the same process. */
  nonce?: string
}

interface ProcStat {
  state: string
  startTime: string
}

/** Fields 3 (state) and 22 (start time) of `/proc/<pid>/stat`, where there is a `/proc`. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is parenthesized and may hold spaces: count fields after its closing paren.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0]!, startTime: fields[19]! }
  } catch {
    return undefined
  }
}

/** How many threads a process has left (`/proc/<pid>/task`), or `undefined` where that cannot be read. */
function threadCount(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/task`).length
  } catch {
    return undefined
  }
}

/** The start time of a process as the kernel reports it, where there is a `/proc`. */
export function processStartTime(pid: number): string | undefined {
  return readProcStat(pid)?.startTime
}

function readOptional(read: () => string): string | undefined {
  try {
    return read().trim() || undefined
  } catch {
    return undefined
  }
}

/** The facts about this process that every record it writes carries. */
export interface HostFacts {
  hostname: string
  boot?: string
  pidns?: string
}

/** This host's name, boot id and pid namespace, read once per lock user. */
export function hostFacts(): HostFacts {
  const boot = readOptional(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'))
  const pidns = readOptional(() => readlinkSync('/proc/self/ns/pid'))
  return { hostname: hostname(), ...(boot ? { boot } : {}), ...(pidns ? { pidns } : {}) }
}

/** The owner record this process writes (without a nonce: each acquisition adds its own). */
export function currentOwner(facts: HostFacts = hostFacts()): LockOwner {
  const startTime = processStartTime(process.pid)
  return { pid: process.pid, ...facts, ...(startTime ? { startTime } : {}) }
}

/**
 * Whether a recorded owner is certainly gone. Only an owner on this host, in
 * this pid namespace, can be judged: it is gone when it ran before the last
 * boot, when its pid is free, when the pid runs but started at another time
 * (the pid was reused), or when it is a zombie with no thread left (a killed
 * process's leader turns zombie while its other threads may still be finishing
 * a write: until they are gone, so is not the owner).
 * Anything that cannot be told is held to be alive: a live lock is never broken
 * on a guess.
 */
export function isOwnerGone(owner: LockOwner, facts: HostFacts = hostFacts()): boolean {
  if (owner.hostname !== facts.hostname) return false
  if (owner.boot && facts.boot && owner.boot !== facts.boot) return true
  if (owner.pidns && facts.pidns && owner.pidns !== facts.pidns) return false
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
  const stat = readProcStat(owner.pid)
  if (!stat) return false
  if (owner.startTime !== undefined && stat.startTime !== owner.startTime) return true
  // A zombie leader may still have threads finishing a system call (a rename on a thread pool):
  // the owner is gone only once no thread but the dead leader is left.
  return (stat.state === 'Z' || stat.state === 'X') && threadCount(owner.pid) === 1
}

/** Read an owner record; anything that is not one answers `undefined`. */
export function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner> | null
    if (value && typeof value.pid === 'number' && typeof value.hostname === 'string') return value as LockOwner
  } catch {}
  return undefined
}
