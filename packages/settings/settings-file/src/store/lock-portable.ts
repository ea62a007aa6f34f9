import fs, { closeSync, existsSync, fstatSync, lstatSync, openSync, readFileSync, readSync, renameSync, unlinkSync, utimesSync } from 'node:fs'
import { dirname } from 'node:path'
import { writeSmallTemp } from './atomic.ts'
import { kernelCallsAvailable, renameNoReplace, type NoReplaceResult } from './kernel.ts'
import { currentOwner, hostFacts, isOwnerGone, parseOwner, type FileOwnerIds, type LockOwner } from './owner.ts'
import { randomHex } from './random.ts'
import { openIfPresent } from './version.ts'
import type { LockOptions, LockStep } from './lock.ts'

/**
 * The portable lock: where the file system has no `flock` (or it is refused),
 * the lock file exists exactly while a writer holds the document. No hard
 * links (exFAT and some network mounts have none):
 * - **take**: create the lock holding the owner record, exclusively: a temp
 *   file with the record renamed in by `renameat2(RENAME_NOREPLACE)` (the lock
 *   never exists without its record), or, where that call is missing too,
 *   `open(O_CREAT|O_EXCL)` and the record written into it (a writer killed
 *   between the two leaves an empty lock, taken over once `graceMs` old).
 * - **take over**: a lock whose owner is certainly gone is replaced in place by
 *   `rename` (so the lock path is never absent, and no third writer can slip
 *   in), but only by the writer that first created `<lock>.claim-<id>`, where
 *   `<id>` names that one stale record. Creating the claim is exclusive, so of
 *   all writers that judged one record stale exactly one replaces it; it checks
 *   the lock still holds that record after claiming, and a record's id is never
 *   used twice, so a late claimant of a record already replaced gives up. A
 *   claim whose claimant died is itself taken over the same way.
 * - **release**: remove the lock if it still holds this acquisition's record.
 * - **next turn** (fairness, for both kinds of lock): a writer that has waited a
 *   while creates `<lock>.next` holding its record, exclusively; while that file
 *   names a live waiter, every other writer leaves a free lock alone, so a
 *   process that releases and retakes the lock in a loop cannot starve the
 *   others. The waiter drops it once it holds the lock (or gives up). A
 *   reservation of a dead waiter, or one not renewed for a second (a stopped
 *   process), is removed by whoever finds it. Reservations never decide who may
 *   enter the lock, so a race on one can only cost a turn, never exclusion.
 */

/** What a lock (or claim) file holds at one look. */
export interface Entry {
  /** Unique name of this record: its nonce, or for a record without one its inode, mtime and size. */
  id: string
  owner: LockOwner | undefined
  /** Age of the file by its mtime, for records that name no owner. */
  ageMs: number
}

const DEFAULT_GRACE_MS = 2000
/** A reservation not renewed for this long (or dated this far ahead) is ignored and removed: its waiter is stopped, not waiting. */
const TURN_EXPIRY_MS = 1000
/** How often a waiter holding the next turn renews its reservation. */
const TURN_RENEW_MS = 250

/** Folders whose file system refused `RENAME_NOREPLACE`: reservations and claims there are created with `O_EXCL` at once. */
const withoutNoReplace = new Set<string>()

/** An error's `code`, as Node's fs errors carry it. */
export const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code

/** Remove a file this acquirer made or holds, ignoring one already gone: anything else is the caller's to know. */
export function removeQuietly(path: string): void {
  try {
    // `unlink` alone: `rmSync` looks at the path twice before it.
    unlinkSync(path)
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error
  }
}

/** Read the record in the open file `fd` as an entry. */
export function entryOf(fd: number): Entry {
  const info = fstatSync(fd)
  const owner = parseOwner(readRecord(fd, info.size))
  const id = owner?.nonce && /^[0-9a-f]{1,64}$/.test(owner.nonce) ? owner.nonce : `raw-${info.ino}-${Math.round(info.mtimeMs)}-${info.size}`
  return { id, owner, ageMs: Date.now() - info.mtimeMs }
}

/** The lock protocol's file operations for one acquirer, with its record and its step hook. */
export class LockProtocol {
  /** This acquisition's owner record (its nonce is fresh), as the portable lock writes it. */
  readonly owner: LockOwner
  readonly record: string
  readonly give: FileOwnerIds | undefined
  private readonly graceMs: number
  private readonly isGone: (owner: LockOwner) => boolean
  private readonly hook: LockOptions['step']

  constructor(options: LockOptions) {
    // Read from /proc only when this acquisition names this process afresh (a given owner or record says it already).
    const facts = options.owner || options.record || options.isGone ? undefined : hostFacts()
    const { nonce: _, ...base } = options.record?.owner ?? options.owner ?? currentOwner(facts)
    this.owner = { ...base, nonce: randomHex(9), lock: 'portable' }
    this.record = JSON.stringify(this.owner)
    this.graceMs = options.graceMs ?? DEFAULT_GRACE_MS
    this.isGone = options.isGone ?? ((owner) => isOwnerGone(owner, facts))
    this.hook = options.step
    this.give = options.give
  }

  step(step: LockStep, path: string): void | Promise<void> {
    return this.hook?.(step, path)
  }

  /** Create `path` holding this record, only if nothing is there. */
  async createExclusive(path: string): Promise<boolean> {
    await this.step('write-record', path)
    const folder = dirname(path)
    if (kernelCallsAvailable() && !withoutNoReplace.has(folder)) {
      const placed = await this.placeRecord(path)
      if (placed !== 'unsupported') return placed === 'renamed'
      withoutNoReplace.add(folder)
    }
    await this.step('create', path)
    return this.createWithOpen(path)
  }

  /** Write the record to a temp file and rename it to `path` unless something stands there; the temp is gone after. */
  private async placeRecord(path: string): Promise<NoReplaceResult> {
    const temp = writeSmallTemp(path, this.record, this.owner, this.give)
    let placed: NoReplaceResult | undefined
    try {
      await this.step('place', path)
      placed = renameNoReplace(temp, path)
      return placed
    } finally {
      if (placed !== 'renamed') {
        await this.step('drop-temp', path)
        removeQuietly(temp)
      }
    }
  }

  /** {@link createExclusive} without `renameat2`: `open(O_CREAT|O_EXCL)`, then the record; a file left empty by a failed write is removed. */
  private createWithOpen(path: string): boolean {
    let fd: number
    try {
      fd = openSync(path, 'wx', 0o600)
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false
      throw error
    }
    try {
      // Through the module object, so a test can make this write fail (a full disk) without a full disk.
      fs.writeFileSync(fd, this.record)
      if (this.give) fs.fchownSync(fd, this.give.uid, this.give.gid)
    } catch (error) {
      removeQuietly(path)
      throw error
    } finally {
      closeSync(fd)
    }
    return true
  }

  /**
   * Read what `path` holds now, or `undefined` when it does not exist (synchronous: a lock file is a few bytes).
   * A `quiet` look skips the step hook: it only reads, and only decides whether to wait.
   */
  async inspect(path: string, quiet = false): Promise<Entry | undefined> {
    if (!quiet) await this.step('inspect', path)
    const fd = openIfPresent(path)
    if (fd === undefined) return danglingEntry(path)
    try {
      return entryOf(fd)
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

  /** Whether `path` holds this acquisition's record. */
  async holds(path: string): Promise<boolean> {
    return (await this.inspect(path))?.id === this.owner.nonce
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

/**
 * What a path that cannot be opened holds: nothing, or a symlink leading nowhere, which
 * names no owner and so is taken over once past the grace period (else it would hold
 * every writer out until a person removed it).
 */
function danglingEntry(path: string): Entry | undefined {
  const link = lstatSync(path, { throwIfNoEntry: false })
  if (!link) return undefined
  return { id: `raw-${link.ino}-${Math.round(link.mtimeMs)}-${link.size}`, owner: undefined, ageMs: Date.now() - link.mtimeMs }
}

/** A record's bytes, fetched with one read when it is as small as records are (`readFileSync` reads twice and looks again). */
function readRecord(fd: number, size: number): string {
  if (size >= RECORD_BUFFER.length) return readFileSync(fd, 'utf8')
  const count = readSync(fd, RECORD_BUFFER, 0, RECORD_BUFFER.length, 0)
  // The record grew between the look and the read (a foreign writer): read it whole.
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
