import { createHash } from 'node:crypto'
import { readdirSync, statSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
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

const TEMP = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.[0-9a-f]{12}\.tmp$/
const ANONYMOUS_TEMP = /^\.(.+)\.[0-9a-f]{16}\.tmp$/

/** What a sweep removed. */
export interface Swept {
  temps: string[]
  claims: string[]
}

/**
 * Remove from `directory` the leftovers of writers that died: temp files of
 * `documentBase`, of its lock, of the lock's claims and of its next-turn
 * reservation whose writer is certainly gone, old anonymous temp files, and
 * (only when `holdingLock`) every claim of the lock, which nobody needs while
 * a live writer holds it.
 */
export async function sweepLeftovers(directory: string, documentBase: string, holdingLock: boolean, facts: HostFacts = hostFacts(), alsoOurs: readonly string[] = []): Promise<Swept> {
  const lockBase = `${documentBase}.lock`
  const ours = (base: string) =>
    base === documentBase || base === lockBase || base === `${lockBase}.next` || base.startsWith(`${lockBase}.claim-`) || alsoOurs.includes(base)
  const tag = hostTag(facts)
  const swept: Swept = { temps: [], claims: [] }
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
      if (temp[2] !== tag) continue
      const owner: LockOwner = { pid: Number(temp[3]), ...facts, ...(temp[4] === 'x' ? {} : { startTime: temp[4]! }) }
      delete owner.boot // the tag already matched this boot (and this pid namespace)
      if (isOwnerGone(owner, facts) && remove(join(directory, name))) swept.temps.push(name)
      continue
    }
    const anonymous = ANONYMOUS_TEMP.exec(name)
    if (anonymous && ours(anonymous[1]!)) {
      const info = statSync(join(directory, name), { throwIfNoEntry: false })
      if (info && Date.now() - info.mtimeMs > ANONYMOUS_TEMP_MAX_AGE_MS && remove(join(directory, name))) swept.temps.push(name)
      continue
    }
    if (holdingLock && name.startsWith(`${lockBase}.claim-`) && remove(join(directory, name))) swept.claims.push(name)
  }
  return swept
}

function remove(path: string): boolean {
  try {
    unlinkSync(path)
    return true
  } catch {
    return false
  }
}
