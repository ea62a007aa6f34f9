/**
 * Usage: locker.ts <lockPath> <file> <markerDir> <timeoutMs> <selfKillChance> <safetyMs> [<holdMs>]
 *
 * Takes the document lock directly (`acquireLock`) in a loop, with a random
 * 0-3 ms delay at every step of the protocol, and with <selfKillChance> per
 * step of SIGKILLing itself right there. Inside the critical section it
 * claims `<markerDir>/critical` exclusively (a hard link of its own record,
 * so the marker always names a whole owner): finding it held by a live
 * process is a mutual-exclusion violation; held by a dead one, it is the
 * leftover of a holder killed inside the section. With <holdMs> it contends
 * instead: no delays at the steps, no pause between acquisitions, and it holds
 * the section for 0-<holdMs> ms (a busy writer). Prints `ready`, then per
 * event `acq <ms waited>`, `violation <what>`, `stale-marker`, `stuck <message>`,
 * `error <code> <message>`, `selfkill <step>`; `done` after `stop`.
 */
import { randomBytes } from 'node:crypto'
import { link, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { acquireLock, currentOwner, isOwnerGone, parseOwner, type LockStep } from 'dsh-settings-file/store'
import { between, emit, errorCode, exitEventually, fail, sleep, stopSignal } from './common.ts'

const [lockPath, file, markerDir, timeoutText, chanceText, safetyText, holdText] = process.argv.slice(2)
if (!lockPath || !file || !markerDir || !timeoutText || !chanceText || !safetyText) fail(new Error('usage: locker.ts <lockPath> <file> <markerDir> <timeoutMs> <selfKillChance> <safetyMs> [<holdMs>]'))
exitEventually(Number(safetyText))
const { stopping } = stopSignal()
const selfKillChance = Number(chanceText)
const contending = holdText !== undefined
const holdMs = contending ? Number(holdText) : 2
const marker = join(markerDir, 'critical')

/** This process's record, written once outside the lock; the marker is a link of it. */
const me = { ...currentOwner(), nonce: randomBytes(9).toString('hex') }
const record = join(markerDir, `holder-${process.pid}-${me.nonce}`)

async function step(name: LockStep): Promise<void> {
  if (Math.random() < selfKillChance) {
    emit('selfkill', name)
    process.kill(process.pid, 'SIGKILL')
  }
  if (contending) return
  const delay = between(0, 3)
  await (delay ? sleep(delay) : new Promise<void>((resolve) => setImmediate(resolve)))
}

/** Enter the section: place the marker, judging one already there; false (after reporting) when someone else is inside. */
async function enter(): Promise<boolean> {
  try {
    await link(record, marker)
    return true
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  }
  const holder = parseOwner(await readFile(marker, 'utf8').catch(() => ''))
  if (!holder || !isOwnerGone(holder)) {
    emit('violation', `the section is held by live pid ${holder?.pid} (nonce ${holder?.nonce})`)
    return false
  }
  emit('stale-marker')
  await unlink(marker).catch(() => {})
  try {
    await link(record, marker)
    return true
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
    emit('violation', 'another process entered while a stale marker was removed')
    return false
  }
}

/** Leave the section: the marker must still be ours. */
async function leave(): Promise<void> {
  const holder = parseOwner(await readFile(marker, 'utf8').catch(() => ''))
  if (holder?.nonce !== me.nonce) return emit('violation', `the marker was replaced while held (now pid ${holder?.pid})`)
  await unlink(marker)
}

try {
  await writeFile(record, JSON.stringify(me))
  emit('ready')
  while (!stopping()) {
    if (!contending) await sleep(between(0, 5))
    const asked = performance.now()
    let lock
    try {
      lock = await acquireLock(lockPath, { timeoutMs: Number(timeoutText), file, step })
    } catch (error) {
      // The store's own timeout (`LOCK_TIMEOUT`); the provider's public one says `SETTINGS_LOCK_TIMEOUT`.
      const code = errorCode(error)
      const timedOut = code === 'LOCK_TIMEOUT' || code === 'SETTINGS_LOCK_TIMEOUT'
      emit(timedOut ? 'stuck' : 'error', ...(timedOut ? [] : [code]), JSON.stringify((error as Error).message))
      continue
    }
    try {
      if (!(await lock.holds())) emit('violation', 'the lock file does not hold this acquisition right after acquireLock')
      emit('acq', Math.round(performance.now() - asked))
      if (await enter()) {
        await sleep(between(0, holdMs))
        await leave()
      }
    } finally {
      await lock.release()
    }
  }
  await unlink(record).catch(() => {})
  emit('done')
  process.exit(0)
} catch (error) {
  fail(error)
}
