import { lchownSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, resolve } from 'node:path'

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
  /** Which lock the record's writer holds (see `LockKind`); absent in records of versions before flock. */
  lock?: LockKind
}

/**
 * How a writer holds a document lock, as its record says: `flock`, a kernel lock
 * on the lock file that the kernel drops when the holder dies; or `portable`, the
 * lock file's existence (created exclusively), with a dead holder's lock taken over.
 */
export type LockKind = 'flock' | 'portable'

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

/** This process's own start time, read once: it never changes while the process lives. */
let ownStartTime: { value: string | undefined } | undefined

/** The start time of a process as the kernel reports it, where there is a `/proc`. */
export function processStartTime(pid: number): string | undefined {
  if (pid === process.pid) return (ownStartTime ??= { value: readProcStat(pid)?.startTime }).value
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

/*
 * Whom the files the provider makes belong to. A host run as root over a
 * user's home (`sudo`) must leave nothing there the user's own host cannot
 * write later: every file and folder it creates is given to the document's
 * owner.
 */

/** A file's owner: user and group ids. */
export interface FileOwnerIds {
  uid: number
  gid: number
}

/** This process's effective user id (0 where the platform has none, as on Windows, where ownership does not apply). */
function effectiveUid(): number {
  return process.geteuid?.() ?? 0
}

/**
 * The owner of `path` (through its symlinks), or, while it does not exist,
 * of the nearest folder above it that does: who a new document there would
 * belong to.
 */
export function ownerOf(path: string): FileOwnerIds {
  for (let current = resolve(path); ; ) {
    try {
      const info = statSync(current)
      return { uid: info.uid, gid: info.gid }
    } catch {}
    const parent = dirname(current)
    if (parent === current) return { uid: effectiveUid(), gid: process.getegid?.() ?? 0 }
    current = parent
  }
}

/**
 * Whom the files this process creates for `document` must be given to: the
 * document's owner ({@link ownerOf}) when this process runs as root and that
 * owner is not root; `undefined` when nothing needs changing (a process that
 * is not root can only create files of its own, and they are).
 * @param known - the document's owner as the caller just looked it up (saves a `stat`).
 */
export function ownerToGive(document: string, known?: FileOwnerIds): FileOwnerIds | undefined {
  if (effectiveUid() !== 0) return undefined
  const owner = known ?? ownerOf(document)
  return owner.uid === 0 && owner.gid === 0 ? undefined : owner
}

/**
 * Whether a file owned by `uid` may be trusted as one the provider made for
 * `document`: it belongs to the document's owner, or to this process when
 * that is not root. Root trusts only the document's owner, so a file of
 * root's that a user linked into their folder is never taken for theirs.
 * @param known - the document's owner as the caller just looked it up (saves a `stat`).
 */
export function trustedOwner(uid: number, document: string, known?: FileOwnerIds): boolean {
  const us = effectiveUid()
  return uid === (known ?? ownerOf(document)).uid || (us !== 0 && uid === us)
}

/**
 * `mkdir -p` with mode 0700 for the folders created, each given to `give`
 * when set. A folder that already exists is left as it is. `lchown`: a
 * created folder swapped for a symlink meanwhile changes only that link.
 */
export function makeFolder(path: string, give: FileOwnerIds | undefined): void {
  const target = resolve(path)
  // Nearly always there: one `stat`, not a `mkdir` that fails and the `stat` it makes after.
  if (statSync(target, { throwIfNoEntry: false })?.isDirectory()) return
  const first = mkdirSync(target, { recursive: true, mode: 0o700 })
  if (first === undefined || !give) return
  const top = resolve(first)
  for (let current = target; ; current = dirname(current)) {
    lchownSync(current, give.uid, give.gid)
    if (current === top || dirname(current) === current) return
  }
}
