import { setTimeout as sleep } from 'node:timers/promises'
import { dirname } from 'node:path'
import { LockTimeoutError } from './errors.ts'
import { kernelCallsAvailable } from './kernel.ts'
import { namesFile, releaseFlock, tryFlock, type FlockHold } from './lock-flock.ts'
import { LockProtocol, type Entry } from './lock-portable.ts'
import type { FileOwnerIds, LockOwner } from './owner.ts'

/**
 * The document lock: one writer at a time across processes, on the file
 * `<document>.lock`. Two kinds, chosen per take (see lock-flock.ts and
 * lock-portable.ts):
 * - **flock**, wherever the kernel and the file system have it: the kernel
 *   holds the lock and drops it when the holder dies, so a killed writer's lock
 *   is free at once.
 * - **portable**, where they do not (or with `DSH_SETTINGS_PORTABLE_FS=1`): the
 *   lock file's existence, created exclusively without hard links, and a dead
 *   holder's lock taken over by whoever proves it dead.
 * The record in the lock file names its kind (`"lock":"flock"`), and a flock is
 * listed in `/proc/locks`. Waiters of both kinds take turns (`<lock>.next`).
 */

/** A step of the lock protocol, named for tests that inject delays, failures or kills between steps. */
export type LockStep =
  | 'open'
  | 'flock'
  | 'verify'
  | 'write-record'
  | 'place'
  | 'drop-temp'
  | 'create'
  | 'inspect'
  | 'claim'
  | 'replace'
  | 'drop-claim'
  | 'release'
  | 'reserve'
  | 'unreserve'

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** How long to wait for a live owner before giving up. */
  timeoutMs: number
  /** The document the lock guards, for the timeout error. */
  file: string
  /** An unreadable or empty portable lock file counts as abandoned once it is this old (ms). Default 2000. */
  graceMs?: number
  /** Called before each file-system step; tests inject delays, failures and kills here. */
  step?: (step: LockStep, path: string) => void | Promise<void>
  /** The record to write (each acquisition adds its own nonce); tests simulate several processes with it. Default: this process. */
  owner?: LockOwner
  /** Whether a recorded owner is certainly gone; tests simulate deaths with it. Default: `isOwnerGone`. */
  isGone?: (owner: LockOwner) => boolean
  /** Whom the lock, claim and next-turn files (and their temps) are given to: the document's owner, when a root process writes it. */
  give?: FileOwnerIds
  /** A long-lived writer's identity (see {@link StandingRecord}); its owner is the record written. */
  record?: StandingRecord
}

/**
 * A long-lived writer's owner record, made once so that each of its takes
 * need not read `/proc` again; each take still gets a nonce of its own.
 * Locks no longer link a record file, so nothing of it stands on disk.
 */
export class StandingRecord {
  /** The owner every take of this writer records. */
  readonly owner: LockOwner

  /** @param _folder - unused since the lock takes no hard links; accepted so callers of the linked record still build. */
  constructor(owner: LockOwner, _folder?: () => string | undefined) {
    this.owner = { ...owner }
  }

  /** Nothing to remove: the record stands nowhere on disk. */
  drop(): void {}
}

/** A held lock. */
export interface HeldLock {
  /** The owner record this acquisition wrote; its `lock` says which kind it holds. */
  readonly owner: LockOwner
  /** Whether a holder died holding this lock (or it was taken over from one): it may have left temp files. */
  readonly tookOver: boolean
  /** Whether this acquisition still holds the lock (a flock: the path still names the locked file; portable: the file holds its record). */
  holds(): Promise<boolean>
  /** Release the lock if it is still ours; harmless to call twice. */
  release(): Promise<void>
}

/** A writer that has waited this long on a held lock reserves the next turn. */
const RESERVE_AFTER_MS = 50
/** How often a waiter holding the next turn looks at the lock: the others wait on it. */
const TURN_POLL_MS = 1
/** Longest pause between two looks of a waiter without the turn. */
const MAX_POLL_MS = 25
/** Attempts in a row made at once, without a pause, when the lock was released (or moved) under the last one. */
const QUICK_RETRIES = 3

/** Folders whose file system refused `flock`: their locks are portable from then on, in this process. */
const withoutFlock = new Set<string>()

/**
 * Take the lock file at `lockPath`, waiting while a live owner holds it (a
 * portable lock whose owner is certainly gone is taken over). A writer that
 * waits reserves the next turn, so waiting ends in a bounded number of turns
 * however busy the others are.
 * @throws {LockTimeoutError} naming the document and the owner found, after `timeoutMs`.
 */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<HeldLock> {
  const protocol = new LockProtocol(options)
  const turnPath = `${lockPath}.next`
  const started = Date.now()
  const deadline = started + options.timeoutMs
  let delay = 2
  let reserved = false
  let quickRetries = 0
  try {
    for (;;) {
      const turn = await protocol.turn(turnPath)
      // Our reservation was judged stale (this process was stopped): wait as any other writer.
      if (turn !== 'ours') reserved = false
      const found = turn === 'theirs' ? undefined : await attempt(protocol, lockPath, turn === 'ours')
      // Released between our attempt and the look (or the path changed under us): try again at once,
      // a few times; a path that keeps changing (a dangling symlink) is waited on, never spun on.
      if (found === 'released' && Date.now() < deadline && quickRetries++ < QUICK_RETRIES) continue
      if (found !== 'released') quickRetries = 0
      if (found && found !== 'released' && 'release' in found) return found
      if (Date.now() >= deadline) {
        const owner = (found && found !== 'released' ? found : (await protocol.inspect(lockPath, true).catch(() => undefined)))?.owner
        throw new LockTimeoutError(options.file, owner, options.timeoutMs)
      }
      // A reservation that cannot be written (a full disk) only costs fairness: keep waiting without one.
      if (turn === 'open' && Date.now() - started >= RESERVE_AFTER_MS) reserved = await protocol.reserve(turnPath).catch(() => false)
      const pause = reserved ? TURN_POLL_MS : delay
      await sleep(Math.min(pause, Math.max(1, deadline - Date.now())))
      delay = Math.min(delay * 2, MAX_POLL_MS)
    }
  } finally {
    // After taking the lock (or giving up): dropping it first would let another writer in before us.
    // A failure here must not lose a lock already taken: a reservation left behind expires on its own.
    if (reserved) await protocol.unreserve(turnPath).catch(() => {})
  }
}

/**
 * One attempt at the lock: held; `released` (the path changed under us: try
 * again at once); the entry of its holder; or `undefined` (held, by whom not read).
 */
async function attempt(protocol: LockProtocol, lockPath: string, polling: boolean): Promise<HeldLock | Entry | 'released' | undefined> {
  const folder = dirname(lockPath)
  if (kernelCallsAvailable() && !withoutFlock.has(folder)) {
    const result = await tryFlock(lockPath, protocol)
    if (result === 'moved') return 'released'
    if (result === 'busy') return undefined
    if (typeof result === 'object') return 'fd' in result ? flockHeld(protocol, lockPath, result) : result
    // A symlink at the lock path is not locked through: the portable take-over replaces it. A file system without flock stays portable.
    if (result === 'unsupported') withoutFlock.add(folder)
  }
  return attemptPortable(protocol, lockPath, polling)
}

/**
 * One attempt at the portable lock. A waiter holding the next turn polls often,
 * so it looks before it tries: a live owner's lock is not worth a create.
 */
async function attemptPortable(protocol: LockProtocol, lockPath: string, polling: boolean): Promise<HeldLock | Entry | 'released'> {
  if (polling) {
    const held = await protocol.inspect(lockPath, true)
    if (held && !protocol.abandoned(held)) return held
  }
  if (await protocol.createExclusive(lockPath)) return portableHeld(protocol, lockPath, false)
  const entry = await protocol.inspect(lockPath)
  if (!entry) return 'released'
  if (protocol.abandoned(entry) && (await protocol.takeOver(lockPath, entry))) return portableHeld(protocol, lockPath, true)
  return entry
}

function portableHeld(protocol: LockProtocol, lockPath: string, tookOver: boolean): HeldLock {
  let released = false
  return {
    owner: protocol.owner,
    tookOver,
    async holds() {
      return !released && (await protocol.holds(lockPath))
    },
    async release() {
      if (released) return
      released = true
      await protocol.step('release', lockPath)
      await protocol.removeIfOurs(lockPath)
    },
  }
}

function flockHeld(protocol: LockProtocol, lockPath: string, hold: FlockHold): HeldLock {
  let released = false
  return {
    owner: hold.owner,
    tookOver: hold.tookOver,
    async holds() {
      return !released && namesFile(lockPath, hold)
    },
    async release() {
      if (released) return
      released = true
      // Released whatever the step hook does: a live process must never keep a flock it gave up.
      try {
        await protocol.step('release', lockPath)
      } finally {
        releaseFlock(lockPath, hold)
      }
    },
  }
}
