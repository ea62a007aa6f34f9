/**
 * The sweep of temp files and claims that writers leave when they die mid-step: what
 * it removes (only what a certainly gone writer left, old anonymous temps, and claims
 * while the lock is held) and what it must never touch.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deadPid, spawnIdle } from './processes-helpers.ts'
import { asideName, asideState, hostTag, sweepLeftovers, tempName } from '../src/store/leftovers.ts'
import { currentOwner, hostFacts, processStartTime, type LockOwner } from '../src/store/owner.ts'
import { endChildren } from 'dsh-testing'

const BASE = 'settings.yaml'
const LOCK = `${BASE}.lock`
const CLAIM = `${LOCK}.claim-0123456789abcdef01`
const CLAIM_OF_CLAIM = `${CLAIM}.claim-fedcba9876543210fe`
const TEMP_NAME = /^\.(.+)\.([0-9a-f]{8})\.(\d+)\.(\d+|x)\.([0-9a-f]{12})\.tmp$/

let dir: string
const spawned: ChildProcess[] = []
const track = (child: ChildProcess) => (spawned.push(child), child)

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-leftovers-')))
})

afterEach(async () => {
  await endChildren(spawned)
  await rm(dir, { recursive: true, force: true })
})

/** Create files (with some content) in the test directory; returns their names. */
async function touch(...names: string[]): Promise<string[]> {
  for (const name of names) await writeFile(join(dir, name), 'x')
  return names
}

async function ageBy(name: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms)
  await utimes(join(dir, name), then, then)
}

const listing = async () => (await readdir(dir)).sort()
const sorted = (names: string[]) => [...names].sort()

/** Temp names of the document, of its lock and of a claim (and of a claim of a claim), by one writer. */
const tempsOf = (owner: LockOwner) => [BASE, LOCK, CLAIM, CLAIM_OF_CLAIM].map((base) => tempName(base, owner))

describe('tempName and hostTag', () => {
  it('names a temp after its file, the writer host tag, pid and start time, with 12 random hex digits', () => {
    const owner = currentOwner()
    const name = tempName(BASE, owner)
    const match = TEMP_NAME.exec(name)
    expect(match?.slice(1, 5)).toEqual([BASE, hostTag(hostFacts()), String(process.pid), processStartTime(process.pid)])
    expect(tempName(BASE, owner)).not.toBe(name)
    expect(tempName(BASE, { pid: 12, hostname: 'h' })).toMatch(/^\.settings\.yaml\.[0-9a-f]{8}\.12\.x\.[0-9a-f]{12}\.tmp$/)
  })

  it('tells hosts, boots and pid namespaces apart', () => {
    const here = hostFacts()
    expect(hostTag(here)).toMatch(/^[0-9a-f]{8}$/)
    expect(hostTag({ ...here })).toBe(hostTag(here))
    expect(hostTag({ ...here, hostname: `not-${here.hostname}` })).not.toBe(hostTag(here))
    expect(hostTag({ ...here, boot: 'another-boot' })).not.toBe(hostTag(here))
    expect(hostTag({ ...here, pidns: 'pid:[1]' })).not.toBe(hostTag(here))
  })
})

describe('sweepLeftovers', () => {
  it('removes the document, lock and claim temps of a writer whose pid is free', async () => {
    const dead = await touch(...tempsOf({ ...currentOwner(), pid: await deadPid(track), startTime: '1' }))
    const deadWithoutStart = await touch(...tempsOf({ ...hostFacts(), pid: await deadPid(track) }))
    const swept = await sweepLeftovers(dir, BASE, false)
    expect(sorted(swept.temps)).toEqual(sorted([...dead, ...deadWithoutStart]))
    expect(swept.claims).toEqual([])
    expect(await listing()).toEqual([])
  })

  it('removes a dead writer’s temps of the other files it is told are the document’s own (the editor schema), and nothing of other files', async () => {
    const owner = { ...currentOwner(), pid: await deadPid(track), startTime: '1' }
    const [schemaTemp, otherTemp] = await touch(tempName('settings.schema.json', owner), tempName('notes.json', owner))
    expect((await sweepLeftovers(dir, BASE, false)).temps).toEqual([])
    expect((await sweepLeftovers(dir, BASE, false, hostFacts(), ['settings.schema.json'])).temps).toEqual([schemaTemp])
    expect(await listing()).toEqual([otherTemp])
  })

  it('removes the temps of a writer whose pid now runs another process (pid reuse)', async () => {
    const start = processStartTime(process.pid)!
    const reused = await touch(...tempsOf({ ...currentOwner(), startTime: `${Number(start) + 1}` }))
    expect(sorted((await sweepLeftovers(dir, BASE, true)).temps)).toEqual(sorted(reused))
    expect(await listing()).toEqual([])
  })

  it('never removes a live writer temps: this process, a live child, a live pid without a start time', async () => {
    const child = await spawnIdle(track)
    const live = await touch(
      ...tempsOf(currentOwner()),
      ...tempsOf({ ...currentOwner(), pid: child.pid!, startTime: processStartTime(child.pid!)! }),
      ...tempsOf({ ...hostFacts(), pid: child.pid! }),
    )
    // Old as they are: age is no evidence against a named writer.
    for (const name of live) await ageBy(name, 24 * 3600_000)
    expect(await sweepLeftovers(dir, BASE, true)).toEqual({ temps: [], claims: [], restored: [] })
    expect(await listing()).toEqual(sorted(live))
  })

  it('never removes temps of another host, even when their pid is free here', async () => {
    const pid = await deadPid(track)
    const elsewhere = await touch(
      ...tempsOf({ pid, hostname: `not-${hostname()}.invalid`, boot: hostFacts().boot, startTime: '1' }),
      ...tempsOf({ pid, hostname: `not-${hostname()}.invalid` }),
    )
    expect((await sweepLeftovers(dir, BASE, true)).temps).toEqual([])
    expect(await listing()).toEqual(sorted(elsewhere))
  })

  it('never removes temps of another pid namespace on this host, even when their pid is free here', async () => {
    // Two containers may share the host name and the kernel (so the boot id), not their pids.
    const pid = await deadPid(track)
    const otherNamespace = await touch(...tempsOf({ ...currentOwner(), pid, pidns: 'pid:[1]', startTime: '1' }))
    expect((await sweepLeftovers(dir, BASE, true)).temps).toEqual([])
    expect(await listing()).toEqual(sorted(otherNamespace))
  })

  it('judges a temp against the facts it is given, so a simulated host sweeps its own dead writers only', async () => {
    const pid = await deadPid(track)
    const simulated = { hostname: 'simulated' }
    const names = await touch(...tempsOf({ pid, ...simulated }))
    const here = await touch(...tempsOf({ ...currentOwner(), pid }))
    expect(sorted((await sweepLeftovers(dir, BASE, false, simulated)).temps)).toEqual(sorted(names))
    expect(await listing()).toEqual(sorted(here))
  })

  it('removes anonymous temps of the document and its lock older than 10 minutes, and keeps young ones', async () => {
    const old = await touch(`.${BASE}.0123456789abcdef.tmp`, `.${LOCK}.fedcba9876543210.tmp`, `.${CLAIM}.00112233445566ff.tmp`)
    for (const name of old) await ageBy(name, 11 * 60_000)
    const young = await touch(`.${BASE}.aaaaaaaaaaaaaaaa.tmp`, `.${LOCK}.bbbbbbbbbbbbbbbb.tmp`)
    await ageBy(young[0]!, 9 * 60_000)
    expect(sorted((await sweepLeftovers(dir, BASE, true)).temps)).toEqual(sorted(old))
    expect(await listing()).toEqual(sorted(young))
  })

  it('removes every claim of the lock, claims of claims too, only while holding the lock', async () => {
    const claims = await touch(CLAIM, CLAIM_OF_CLAIM, `${LOCK}.claim-raw-12-1700000000000-0`)
    await touch(LOCK)
    expect(await sweepLeftovers(dir, BASE, false)).toEqual({ temps: [], claims: [], restored: [] })
    expect(await listing()).toEqual(sorted([...claims, LOCK]))
    const swept = await sweepLeftovers(dir, BASE, true)
    expect(sorted(swept.claims)).toEqual(sorted(claims))
    expect(swept.temps).toEqual([])
    // The lock itself is never a leftover.
    expect(await listing()).toEqual([LOCK])
  })

  it('leaves every unrelated file alone', async () => {
    const pid = await deadPid(track)
    const dead = { ...currentOwner(), pid, startTime: '1' }
    const oldAnonymousOfAnother = `.other.yaml.0123456789abcdef.tmp`
    const unrelated = await touch(
      BASE,
      LOCK,
      'other.yaml',
      'other.yaml.lock',
      'other.yaml.lock.claim-abc',
      `${BASE}.lockfile.claim-abc`,
      `${BASE}.bak`,
      `.${BASE}.swp`,
      'notes.txt',
      tempName('other.yaml', dead),
      tempName('other.yaml.lock', dead),
      tempName(`${BASE}.bak`, dead),
      tempName(`x${BASE}`, dead),
      // Almost a temp of ours: wrong digit counts, or no dot before the base.
      `.${BASE}.${hostTag(hostFacts())}.${pid}.1.0123456789a.tmp`,
      `.${BASE}.${hostTag(hostFacts())}.${pid}.1.0123456789abc.tmp`,
      `${BASE}.${hostTag(hostFacts())}.${pid}.1.0123456789ab.tmp`,
      `.${BASE}.0123456789abcde.tmp`,
      oldAnonymousOfAnother,
    )
    await ageBy(oldAnonymousOfAnother, 3600_000)
    await ageBy(`.${BASE}.0123456789abcde.tmp`, 3600_000)
    await mkdir(join(dir, 'history'))
    expect(await sweepLeftovers(dir, BASE, true)).toEqual({ temps: [], claims: [], restored: [] })
    expect(await listing()).toEqual(sorted([...unrelated, 'history']))
  })

  it('sweeps a mixed directory in one pass: exactly the dead writer leftovers go', async () => {
    const child = await spawnIdle(track)
    const dead = { ...currentOwner(), pid: await deadPid(track), startTime: '1' }
    const gone = await touch(...tempsOf(dead), `.${BASE}.0123456789abcdef.tmp`, CLAIM)
    await ageBy(`.${BASE}.0123456789abcdef.tmp`, 11 * 60_000)
    const kept = await touch(BASE, LOCK, ...tempsOf(currentOwner()), ...tempsOf({ ...currentOwner(), pid: child.pid!, startTime: processStartTime(child.pid!)! }))
    const swept = await sweepLeftovers(dir, BASE, true)
    expect(sorted([...swept.temps, ...swept.claims])).toEqual(sorted(gone))
    expect(swept.claims).toEqual([CLAIM])
    expect(await listing()).toEqual(sorted(kept))
  })

  it('puts back the document a dead writer had set aside when no file stands at its name, and drops it when one does', async () => {
    const dead = { ...currentOwner(), pid: await deadPid(track), startTime: '1' }
    const [aside] = await touch(asideName(tempName(BASE, dead)))
    await writeFile(join(dir, aside!), 'set: aside\n')
    // Without the lock a sweep judges no aside: a live writer may be about to set the document aside itself.
    expect(await sweepLeftovers(dir, BASE, false)).toEqual({ temps: [], claims: [], restored: [] })
    expect(await sweepLeftovers(dir, BASE, true)).toEqual({ temps: [], claims: [], restored: [aside] })
    expect(await listing()).toEqual([BASE])
    expect(await readFile(join(dir, BASE), 'utf8')).toBe('set: aside\n')
    // A file at the name already (the dead writer had linked its new version, or a save came later): the aside is an old version.
    const [stale] = await touch(asideName(tempName(BASE, dead)))
    expect(await sweepLeftovers(dir, BASE, true)).toEqual({ temps: [stale], claims: [], restored: [] })
    expect(await readFile(join(dir, BASE), 'utf8')).toBe('set: aside\n')
    expect(await listing()).toEqual([BASE])
  })

  it('never touches a live writer’s aside, and tells live, dead and no aside apart', async () => {
    expect(asideState(dir, BASE)).toBe('none')
    const dead = await touch(asideName(tempName(BASE, { ...currentOwner(), pid: await deadPid(track), startTime: '1' })))
    // An aside of another file (the lock) is not the document's.
    await touch(asideName(tempName(LOCK, currentOwner())))
    expect(asideState(dir, BASE)).toBe('gone')
    const live = await touch(asideName(tempName(BASE, currentOwner())))
    expect(asideState(dir, BASE)).toBe('live')
    // Another host's writer cannot be judged here: its aside counts as live.
    await rm(join(dir, live[0]!))
    await touch(asideName(tempName(BASE, { ...hostFacts(), hostname: `not-${hostname()}`, pid: 1 })))
    expect(asideState(dir, BASE)).toBe('live')
    expect(asideState(join(dir, 'absent'), BASE)).toBe('none')
    expect((await sweepLeftovers(dir, BASE, true)).restored).toEqual(dead)
  })

  it('answers an empty sweep for a directory that does not exist', async () => {
    expect(await sweepLeftovers(join(dir, 'absent'), BASE, true)).toEqual({ temps: [], claims: [], restored: [] })
  })
})
