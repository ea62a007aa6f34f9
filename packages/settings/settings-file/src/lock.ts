import { closeSync, existsSync, fstatSync, linkSync, lstatSync, readFileSync, readSync, renameSync, unlinkSync, utimesSync } from 'node:fs'
import { basename, join } from 'node:path'
import { SettingsLockTimeoutError } from './errors.ts'
import { currentOwner, hostFacts, isOwnerGone, parseOwner, type FileOwnerIds, type LockOwner } from './owner.ts'
import { writeSmallTemp } from './atomic.ts'
import { randomHex } from './random.ts'
import { openIfPresent } from './version.ts'

/**
 * The document lock: a file beside the document that exists exactly while a
 * writer holds the document. Its protocol:
 * - **take**: write the owner record to a private temp file, then `link` it to
 *   the lock path. `link` fails when the lock exists, so taking is exclusive,
 *   and the lock never exists without its record (no empty lock after a crash).
 * - **take over**: a lock whose owner is certainly gone is replaced in place by
 *   `rename` (so the lock path is never absent, and no third writer can slip
 *   in), but only by the writer that first created `<lock>.claim-<id>`, where
 *   `<id>` names that one stale record. Creating the claim is exclusive, so of
 *   all writers that judged one record stale exactly one replaces it; it checks
 *   the lock still holds that record after claiming, and a record's id is never
 *   used twice, so a late claimant of a record already replaced gives up. A
 *   claim whose claimant died is itself taken over the same way.
 * - **release**: remove the lock if it still holds this acquisition's record.
 * - **standing record** (a long-lived writer's shortcut): the record is written
 *   once, into a folder of the writer's (on the lock's file system), and each
 *   take links that same file to the lock path; the lock holds this writer's
 *   record while it is that file (the same inode). Taking over, reserving and
 *   claiming work as above.
 * - **next turn** (fairness, not exclusion): a writer that has waited a while
 *   creates `<lock>.next` holding its record, exclusively; while that file names
 *   a live waiter, every other writer leaves a free lock alone, so a process
 *   that releases and retakes the lock in a loop cannot starve the others.
 *   The waiter drops it once it holds the lock (or gives up). A reservation of
 *   a dead waiter, or one not renewed for a second (a stopped process), is
 *   removed by whoever finds it. Reservations never decide who may enter the
 *   lock, so a race on one can only cost a turn, never exclusion.
 */

/** A step of the lock protocol, named for tests that inject delays, failures or kills between steps. */
export type LockStep = 'write-record' | 'link' | 'drop-temp' | 'inspect' | 'claim' | 'verify' | 'replace' | 'drop-claim' | 'release' | 'reserve' | 'unreserve'

/** Options of {@link acquireLock}. */
export interface LockOptions {
  /** How long to wait for a live owner before giving up. */
  timeoutMs: number
  /** The document the lock guards, for the timeout error. */
  file: string
  /** An unreadable or empty lock file counts as abandoned once it is this old (ms). Default 2000. */
  graceMs?: number
  /** Called before each file-system step; tests inject delays, failures and kills here. */
  step?: (step: LockStep, path: string) => void | Promise<void>
  /** The record to write; tests simulate several processes with it. Default: this process. */
  owner?: LockOwner
  /** Whether a recorded owner is certainly gone; tests simulate deaths with it. Default: {@link isOwnerGone}. */
  isGone?: (owner: LockOwner) => boolean
  /** Whom the lock, claim and next-turn files (and their temps) are given to: the document's owner, when a root process writes it. */
  give?: FileOwnerIds
  /** A record kept standing between this writer's acquisitions (see {@link StandingRecord}); its owner is the record written. */
  record?: StandingRecord
}

/**
 * One writer's lock record, kept on disk between its acquisitions: written
 * once, then linked to the lock path at each take, so taking a free lock is a
 * single `link` and releasing it one `lstat` and `unlink`, instead of writing
 * a record file and removing it every time. It carries one nonce for its life
 * (only a writer certainly gone has its record taken over, and such a writer
 * never takes again).
 *
 * It lives in a folder of the writer's own choosing (the provider's `history/`),
 * never beside the document, where a file standing for the host's whole life
 * would show among the user's files (a dotfiles repository). It is named like
 * the writer's temp files, so a sweep of that folder removes it once the
 * writer is certainly gone; {@link drop} removes it when the writer stops. A
 * record removed meanwhile (by hand) is written again at the next take. Where
 * it cannot be used (no folder now, or one on another file system than the
 * lock), a take writes a record of its own as without it.
 */
export class StandingRecord {
  /** The owner the record names. */
  readonly owner: LockOwner
  /** The record's text. */
  readonly text: string
  private made: { lockPath: string; path: string; ino: number; give: FileOwnerIds | undefined } | undefined
  /** A lock path the record's folder cannot link to (another file system): not tried again for it. */
  private crossing: string | undefined

  /** @param folder - where the record may stand now, or `undefined` while it may not stand anywhere. */
  constructor(owner: LockOwner, private readonly folder: () => string | undefined) {
    this.owner = { ...owner, nonce: randomHex(9) }
    this.text = JSON.stringify(this.owner)
  }

  /** The record's path for `lockPath` as last written for it and `give`, or `undefined` when it must be written. */
  pathFor(lockPath: string, give: FileOwnerIds | undefined): string | undefined {
    const made = this.made
    if (!made || made.lockPath !== lockPath || made.give?.uid !== give?.uid || made.give?.gid !== give?.gid) return undefined
    return made.path
  }

  /**
   * Write the record for `lockPath` (given to `give`), replacing one written before.
   * @returns its path, or `undefined` when it may not stand anywhere now.
   */
  write(lockPath: string, give: FileOwnerIds | undefined): string | undefined {
    this.drop()
    const folder = lockPath === this.crossing ? undefined : this.folder()
    if (folder === undefined) return undefined
    let path: string
    try {
      path = writeSmallTemp(join(folder, basename(lockPath)), this.text, this.owner, give)
    } catch (error) {
      // The folder is not there yet (the first write makes it): a record of the take's own this time.
      if (errorCode(error) === 'ENOENT') return undefined
      throw error
    }
    try {
      this.made = { lockPath, path, ino: lstatSync(path).ino, give }
    } catch (error) {
      removeQuietly(path)
      throw error
    }
    return path
  }

  /** Whether `lockPath` is this record's file (the lock is held with it). */
  heldAt(lockPath: string): boolean {
    return this.made !== undefined && this.made.lockPath === lockPath && lstatSync(lockPath, { throwIfNoEntry: false })?.ino === this.made.ino
  }

  /** The record could not be linked to `lockPath` (another file system): remove it, and take that lock without it from now on. */
  cannotLink(lockPath: string): void {
    this.crossing = lockPath
    this.drop()
  }

  /** Remove the record file; a lock held with it stays held until released. */
  drop(): void {
    if (this.made) removeQuietly(this.made.path)
    this.made = undefined
  }
}

/** A held lock. */
export interface HeldLock {
  /** The owner record this acquisition wrote. */
  readonly owner: LockOwner
  /** Whether this acquisition took the lock over from an owner certainly gone (who may have left temp files). */
  readonly tookOver: boolean
  /** Whether the lock file still holds this acquisition's record (nobody judged it abandoned). */
  holds(): Promise<boolean>
  /** Remove the lock if it is still ours; harmless to call twice. */
  release(): Promise<void>
}

/** What a lock (or claim) file holds at one look. */
interface Entry {
  /** Unique name of this record: its nonce, or for a record without one its inode, mtime and size. */
  id: string
  owner: LockOwner | undefined
  /** Age of the file by its mtime, for records that name no owner. */
  ageMs: number
}

const DEFAULT_GRACE_MS = 2000
/** A writer that has waited this long on a held lock reserves the next turn. */
const RESERVE_AFTER_MS = 50
/** A reservation not renewed for this long (or dated this far ahead) is ignored and removed: its waiter is stopped, not waiting. */
const TURN_EXPIRY_MS = 1000
/** How often a waiter holding the next turn renews its reservation. */
const TURN_RENEW_MS = 250
/** How often a waiter holding the next turn looks at the lock: the others wait on it. */
const TURN_POLL_MS = 1
/** Longest pause between two looks of a waiter without the turn. */
const MAX_POLL_MS = 25
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code
/** Remove a file this acquirer made (a temp, its own record), ignoring a failure: it is swept later. */
function removeQuietly(path: string): void {
  try {
    // `unlink` alone: `rmSync` looks at the path twice before it.
    unlinkSync(path)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
}

/** The protocol's file operations for one acquirer, with its record and its step hook. */
class LockProtocol {
  readonly owner: LockOwner
  readonly record: string
  private readonly graceMs: number
  private readonly isGone: (owner: LockOwner) => boolean
  private readonly hook: LockOptions['step']
  private readonly give: FileOwnerIds | undefined
  private readonly standing: StandingRecord | undefined
  /** Whether this acquisition took the lock by linking the standing record (then the lock is that file). */
  private linkedStanding = false

  constructor(options: LockOptions) {
    // Read from /proc only when this acquisition names this process afresh (a given owner or record says it already).
    const facts = options.owner || options.record || options.isGone ? undefined : hostFacts()
    this.standing = options.record
    this.owner = options.record?.owner ?? { ...(options.owner ?? currentOwner(facts)), nonce: randomHex(9) }
    this.record = options.record?.text ?? JSON.stringify(this.owner)
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS
    this.isGone = options.isGone ?? ((owner) => isOwnerGone(owner, facts))
    this.hook = options.step
    this.give = options.give
  }

  step(step: LockStep, path: string): void | Promise<void> {
    return this.hook?.(step, path)
  }

  /** Create `path` holding this record, only if nothing is there; the file never exists without the record. */
  async createExclusive(path: string, announce = true): Promise<boolean> {
    // A take that fell back from the standing record announced its `write-record` step already.
    if (announce) await this.step('write-record', path)
    const temp = writeSmallTemp(path, this.record, this.owner, this.give)
    try {
      await this.step('link', path)
      linkSync(temp, path)
      return true
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false
      throw error
    } finally {
      await this.step('drop-temp', path)
      removeQuietly(temp)
    }
  }

  /**
   * Take the free lock at `path`: with the standing record when there is one
   * (written first if it is not there yet), else with a record of its own.
   * @returns false when the lock is held.
   */
  async take(path: string): Promise<boolean> {
    const standing = this.standing
    if (!standing) return this.createExclusive(path)
    for (let round = 0; ; round++) {
      let record = standing.pathFor(path, this.give)
      if (record === undefined) {
        await this.step('write-record', path)
        record = standing.write(path, this.give)
        if (record === undefined) return this.createExclusive(path, false)
      }
      await this.step('link', path)
      try {
        linkSync(record, path)
        this.linkedStanding = true
        return true
      } catch (error) {
        const code = errorCode(error)
        if (code === 'EEXIST') return false
        // The record was removed meanwhile (by hand): write it again, once. On another file system: a record of the take's own.
        if (code === 'EXDEV') {
          standing.cannotLink(path)
          return this.createExclusive(path, false)
        }
        if (code !== 'ENOENT' || round > 0) throw error
        standing.drop()
      }
    }
  }

  /** Whether the lock at `path` still holds this acquisition's record. */
  async holds(path: string): Promise<boolean> {
    // A lock taken with the standing record is that very file; otherwise (a take-over, a fallback) a record file of its own.
    if (this.linkedStanding) return this.standing!.heldAt(path)
    return (await this.inspect(path))?.id === this.owner.nonce
  }

  /** Release the lock at `path` if it still holds this acquisition's record. */
  async release(path: string): Promise<void> {
    if (!this.linkedStanding) return this.removeIfOurs(path)
    if (this.standing!.heldAt(path)) removeQuietly(path)
  }

  /**
   * Read what `path` holds now, or `undefined` when it does not exist (synchronous: a lock file is a few bytes).
   * A `quiet` look skips the step hook: it only reads, and only decides whether to wait.
   */
  async inspect(path: string, quiet = false): Promise<Entry | undefined> {
    if (!quiet) await this.step('inspect', path)
    const fd = openIfPresent(path)
    if (fd === undefined) return undefined
    try {
      const info = fstatSync(fd)
      const owner = parseOwner(readRecord(fd, info.size))
      const id = owner?.nonce && /^[0-9a-f]{1,64}$/.test(owner.nonce) ? owner.nonce : `raw-${info.ino}-${Math.round(info.mtimeMs)}-${info.size}`
      return { id, owner, ageMs: Date.now() - info.mtimeMs }
    } finally {
      closeSync(fd)
    }
  }

  /** Whether an entry's writer is certainly gone: its owner is, or it names none and is past the grace period. */
  abandoned(entry: Entry): boolean {
    return entry.owner ? this.isGone(entry.owner) : entry.ageMs > this.graceMs
  }

  /**
   * Replace the abandoned entry at `path` with this record, unless another
   * writer does so first. Claims `<path>.claim-<id>` to become the only writer
   * allowed to replace that entry; a claim left by a dead claimant is taken
   * over the same way, one level down.
   */
  async takeOver(path: string, stale: Entry, depth = 0): Promise<boolean> {
    const claim = `${path}.claim-${stale.id}`
    await this.step('claim', claim)
    if (!(await this.createExclusive(claim))) {
      const claimant = await this.inspect(claim)
      if (!claimant || depth >= 4 || !this.abandoned(claimant)) return false
      if (!(await this.takeOver(claim, claimant, depth + 1))) return false
    }
    try {
      await this.step('verify', path)
      const now = await this.inspect(path)
      if (now?.id !== stale.id) return false
      await this.writeOver(path)
      return true
    } finally {
      await this.step('drop-claim', claim)
      await this.removeIfOurs(claim)
    }
  }

  /** Replace whatever `path` holds with this record in one rename: the path is never absent. */
  private async writeOver(path: string): Promise<void> {
    const temp = writeSmallTemp(path, this.record, this.owner, this.give)
    try {
      await this.step('replace', path)
      renameSync(temp, path)
    } catch (error) {
      removeQuietly(temp)
      throw error
    }
  }

  /** Remove `path` if it holds this record. Nobody else may change a record of a live owner, so the check holds until the unlink. */
  async removeIfOurs(path: string): Promise<void> {
    const entry = await this.inspect(path).catch(() => undefined)
    if (entry?.id === this.owner.nonce) removeQuietly(path)
  }

  /**
   * Whose turn is next by the reservation at `path`: this acquisition's, nobody's, or
   * another live waiter's. Renews this acquisition's reservation, and removes one whose
   * waiter is gone or stopped renewing it (if another waiter's new reservation is removed
   * instead in a race, that waiter only reserves again).
   */
  async turn(path: string): Promise<'ours' | 'open' | 'theirs'> {
    // Nearly always nobody's: asked without an open that fails (a thrown ENOENT costs several times a stat).
    if (!existsSync(path)) return 'open'
    const entry = await this.inspect(path, true).catch(() => undefined)
    if (!entry) return 'open'
    if (entry.id === this.owner.nonce) {
      if (entry.ageMs >= TURN_RENEW_MS) renew(path)
      return 'ours'
    }
    // An mtime far in the future (another host's clock) must not hold everyone back until that time comes.
    if (!this.abandoned(entry) && Math.abs(entry.ageMs) <= TURN_EXPIRY_MS) return 'theirs'
    const now = await this.inspect(path, true).catch(() => undefined)
    if (now?.id === entry.id) removeQuietly(path)
    return 'open'
  }

  /** Reserve the next turn at `path`; false when another waiter holds it. */
  async reserve(path: string): Promise<boolean> {
    await this.step('reserve', path)
    return this.createExclusive(path)
  }

  /** Drop this acquisition's reservation at `path`, if it still holds it. */
  async unreserve(path: string): Promise<void> {
    await this.step('unreserve', path)
    const entry = await this.inspect(path, true).catch(() => undefined)
    if (entry?.id === this.owner.nonce) removeQuietly(path)
  }
}

/** A record's bytes, fetched with one read when it is as small as records are (`readFileSync` reads twice and looks again). */
function readRecord(fd: number, size: number): string {
  if (size >= RECORD_BUFFER.length) return readFileSync(fd, 'utf8')
  const count = readSync(fd, RECORD_BUFFER, 0, RECORD_BUFFER.length, 0)
  // The record grew between the look and the read (a takeover writes a new file, so only a foreign writer): read it whole.
  if (count >= RECORD_BUFFER.length) return readFileSync(fd, { encoding: 'utf8' })
  return RECORD_BUFFER.toString('utf8', 0, count)
}

/** Room for one lock record (about 200 bytes), reused by every read of one. */
const RECORD_BUFFER = Buffer.alloc(4096)

/** Mark a reservation as still wanted (its mtime is its age); a reservation already gone needs nothing. */
function renew(path: string): void {
  try {
    const now = new Date()
    utimesSync(path, now, now)
  } catch {}
}

/**
 * Take the lock file at `lockPath`, waiting while a live owner holds it and
 * taking over one whose owner is certainly gone (see the protocol above). A
 * writer that waits reserves the next turn, so waiting ends in a bounded number
 * of turns however busy the others are.
 * @throws {SettingsLockTimeoutError} naming the document and the owner found, after `timeoutMs`.
 */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<HeldLock> {
  const protocol = new LockProtocol(options)
  const turnPath = `${lockPath}.next`
  const started = Date.now()
  const deadline = started + options.timeoutMs
  let delay = 2
  let reserved = false
  try {
    for (;;) {
      const turn = await protocol.turn(turnPath)
      // Our reservation was judged stale (this process was stopped): wait as any other writer.
      if (turn !== 'ours') reserved = false
      const entry = turn === 'theirs' ? undefined : await attempt(protocol, lockPath, turn === 'ours')
      if (entry === 'taken' || entry === 'taken over') return heldLock(protocol, lockPath, entry === 'taken over')
      if (entry === 'released') continue // released between our attempt and the look: try again at once
      if (Date.now() >= deadline) {
        const owner = (entry ?? (await protocol.inspect(lockPath, true).catch(() => undefined)))?.owner
        throw new SettingsLockTimeoutError(options.file, owner, options.timeoutMs)
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
 * One attempt at the lock: `taken`, `taken over` (from an owner certainly
 * gone), `released` (gone by the time we looked), or what holds it. A waiter
 * holding the next turn polls often, so it looks before it tries: a live
 * owner's lock is not worth a temp file and a link.
 */
async function attempt(protocol: LockProtocol, lockPath: string, polling: boolean): Promise<Entry | 'taken' | 'taken over' | 'released'> {
  if (polling) {
    const held = await protocol.inspect(lockPath, true)
    if (held && !protocol.abandoned(held)) return held
  }
  if (await protocol.take(lockPath)) return 'taken'
  const entry = await protocol.inspect(lockPath)
  if (!entry) return 'released'
  if (protocol.abandoned(entry) && (await protocol.takeOver(lockPath, entry))) return 'taken over'
  return entry
}

function heldLock(protocol: LockProtocol, lockPath: string, tookOver: boolean): HeldLock {
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
      await protocol.release(lockPath)
    },
  }
}
