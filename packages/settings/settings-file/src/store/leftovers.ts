import { createHash } from 'node:crypto'
import { readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { placeIfFree } from './place.ts'
import { hostFacts, isOwnerGone, type HostFacts, type LockOwner } from './owner.ts'
import { randomHex } from './random.ts'

/**
 * Temp files and claims that writers leave when they die mid-step, and how the
 * next writer recognizes and removes them. Every temp file is named after the
 * file it stands in for and after its writer, so a leftover can be judged by
 * whether its writer is certainly gone: a live writer's temp is never touched.
 */

/** Old-format temp files (no writer in the name) older than this are removed. */
const ANONYMOUS_TEMP_MAX_AGE_MS = 10 * 60_000

/**
 * A short tag of this host (name and boot) and pid namespace, so temps of another host, or of
 * another pid namespace on this one (containers share the kernel's boot id), are never judged here.
 */
export function hostTag(facts: Pick<HostFacts, 'hostname' | 'boot' | 'pidns'>): string {
  const key = `${facts.hostname}\0${facts.boot ?? ''}\0${facts.pidns ?? ''}`
  let tag = hostTags.get(key)
  if (tag === undefined) {
    tag = createHash('sha256').update(key).digest('hex').slice(0, 8)
    hostTags.set(key, tag)
  }
  return tag
}

/** Tags already hashed: every temp name holds one (a host has one set of facts; tests simulate a few). */
const hostTags = new Map<string, string>()

/** The name of a temp file standing in for `base`, written by `owner`: hidden, and ending in `.tmp`. */
export function tempName(base: string, owner: LockOwner): string {
  return `.${base}.${hostTag(owner)}.${owner.pid}.${owner.startTime ?? 'x'}.${randomHex(6)}.tmp`
}

/**
 * The name a writer moves the document to for the moment it places its new
 * version (see `swapIn`): its temp file's name, with new random digits
 * and `.aside` for `.tmp`, so a sweep can tell the document from a temp.
 */
export function asideName(temp: string): string {
  const match = /\.[0-9a-f]{12}\.tmp$/.exec(temp)
  if (!match) throw new TypeError(`not a temp file name: ${temp}`)
  return `${temp.slice(0, match.index)}.${randomHex(6)}.aside`
}

const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.(tmp|aside)$/
const ANONYMOUS_TEMP = /^\.(.+)\.[0-9a-f]{16}\.tmp$/

/** What a sweep removed, and what it put back. */
export interface Swept {
  temps: string[]
  claims: string[]
  /** Documents a dead writer had set aside and that went back to their name (none stood there). */
  restored: string[]
}

/**
 * Remove from `directory` the leftovers of writers that died: temp files of
 * `documentBase`, of its lock, of the lock's claims and of its next-turn
 * reservation whose writer is certainly gone, old anonymous temp files, and
 * (only when `holdingLock`) every claim of the lock, which nobody needs while
 * a live writer holds it. Also only when `holdingLock`, the document a dead
 * writer had set aside (see `swapIn`) goes back to its name when no
 * file stands there, and is removed as an old version when one does.
 */
export async function sweepLeftovers(directory: string, documentBase: string, holdingLock: boolean, facts: HostFacts = hostFacts(), alsoOurs: readonly string[] = []): Promise<Swept> {
  const lockBase = `${documentBase}.lock`
  const ours = (base: string) =>
    base === documentBase || base === lockBase || base === `${lockBase}.next` || base.startsWith(`${lockBase}.claim-`) || alsoOurs.includes(base)
  const tag = hostTag(facts)
  const swept: Swept = { temps: [], claims: [], restored: [] }
  // One writer may have left several names (temps, a witness link, an aside): judge each writer once.
  const judged = new Map<string, boolean>()
  // Synchronous: a document's folder holds a handful of names, and this runs on every write.
  let names: string[]
  try {
    names = readdirSync(directory)
  } catch {
    return swept
  }
  for (const name of names) {
    const temp = TEMP.exec(name)
    if (temp && ours(temp[1]!)) {
      if (temp[2] !== tag || !writerGone(temp, facts, judged)) continue
      if (temp[5] === 'aside') {
        // The document a dead writer had set aside: only the lock's holder may judge it (nobody else sets one aside meanwhile).
        if (!holdingLock || temp[1] !== documentBase) continue
        let back: boolean
        try {
          back = putAsideBack(join(directory, name), join(directory, documentBase))
        } catch {
          continue // neither a link nor a rename could put it back: it stays aside
        }
        if (back) swept.restored.push(name)
        // A file stands at the name already (the writer died after placing its own, or a save came later): the aside is an old version.
        else if (removeName(join(directory, name))) swept.temps.push(name)
        continue
      }
      if (removeName(join(directory, name))) swept.temps.push(name)
      continue
    }
    const anonymous = ANONYMOUS_TEMP.exec(name)
    if (anonymous && ours(anonymous[1]!)) {
      const info = statSync(join(directory, name), { throwIfNoEntry: false })
      if (info && Date.now() - info.mtimeMs > ANONYMOUS_TEMP_MAX_AGE_MS && removeName(join(directory, name))) swept.temps.push(name)
      continue
    }
    if (holdingLock && name.startsWith(`${lockBase}.claim-`) && removeName(join(directory, name))) swept.claims.push(name)
  }
  return swept
}

/**
 * Whether the writer a temp name of this host (matched by {@link TEMP}) names is certainly gone; `judged`
 * keeps the answers by pid and start time, so a writer with several names is judged once.
 */
function writerGone(temp: RegExpExecArray, facts: HostFacts, judged = new Map<string, boolean>()): boolean {
  const key = `${temp[3]}.${temp[4]}`
  let answer = judged.get(key)
  if (answer === undefined) {
    const owner: LockOwner = { pid: Number(temp[3]), ...facts, ...(temp[4] === 'x' ? {} : { startTime: temp[4]! }) }
    delete owner.boot // the tag already matched this boot (and this pid namespace)
    judged.set(key, (answer = isOwnerGone(owner, facts)))
  }
  return answer
}

/**
 * Whether some writer has the document `documentBase` in `directory` set aside
 * right now (see `swapIn`): `live` when that writer runs (the document
 * is back in microseconds), `gone` when it died meanwhile (the next lock holder
 * puts it back), `none` when no aside stands.
 */
export function asideState(directory: string, documentBase: string, facts: HostFacts = hostFacts()): 'live' | 'gone' | 'none' {
  let names: string[]
  try {
    names = readdirSync(directory)
  } catch {
    return 'none'
  }
  const tag = hostTag(facts)
  let state: 'live' | 'gone' | 'none' = 'none'
  for (const name of names) {
    const temp = TEMP.exec(name)
    if (!temp || temp[5] !== 'aside' || temp[1] !== documentBase) continue
    // Another host's writer cannot be judged from here: it counts as running.
    if (temp[2] !== tag || !writerGone(temp, facts)) return 'live'
    state = 'gone'
  }
  return state
}

/**
 * Return a document set aside (see `swapIn`) to its name `file`, unless a file
 * stands there already: a later save took the name, or the writer placed its
 * own version, and the aside is an old version the caller drops. Placed by
 * {@link placeIfFree}: no hard link needed.
 * @returns true when it went back (the aside name is gone), false when a file stands at `file` (the aside stays).
 * @throws when it cannot be put back (it stays aside).
 */
export function putAsideBack(aside: string, file: string): boolean {
  return placeIfFree(aside, file)
}

/** Remove one name, quietly: a failure leaves only a hidden leftover, swept once its writer is gone. */
export function removeName(path: string): boolean {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}
