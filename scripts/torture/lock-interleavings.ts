/**
 * Lock interleavings: 4 processes take the document lock directly in a loop,
 * with random delays at every protocol step, while a random one is SIGKILLed
 * every 100-600 ms (and each may SIGKILL itself at any step) and restarted.
 * Two holders at once, or a live holder's lock taken over, is a violation; an
 * acquirer that times out is stuck. At the end this process takes the lock
 * once more, sweeps what the dead left, and nothing but the marker folder may remain.
 * It exercises the lock this machine gives (flock where the file system has it); with
 * DSH_SETTINGS_PORTABLE_FS=1, which the lockers inherit, the portable lock.
 */
import { acquireLock, sweepLeftovers } from 'dsh-settings-file/store'
import { between, CHILD_SAFETY_MS, lockWorkspace, removeTemp, sleep, spawnChild, strayFiles, type Child } from './harness.ts'
import type { Row } from './report.ts'

const PROCESSES = 4
const TIMEOUT_MS = 5000
/** Chance per protocol step that a process SIGKILLs itself there (some 30 steps a second each: a self-kill every few seconds). */
const SELF_KILL_CHANCE = 0.003

/** Run the interleavings for `seconds`; one row. */
export async function lockInterleavings(seconds: number): Promise<Row[]> {
  const { dir, file, markerDir } = await lockWorkspace('lock')
  const lockPath = `${file}.lock`
  const counts = { acquisitions: 0, kills: 0, selfKills: 0, restarts: 0, violations: 0, stuck: 0, staleMarkers: 0, errors: 0, crashes: 0 }
  const selfKillSteps: Record<string, number> = {}
  const notes: string[] = []
  const note = (text: string) => void (notes.length < 20 && notes.push(text))
  const slots: { child: Child; ready: boolean; killed: boolean; selfKilled: boolean }[] = []
  let running = true

  const start = (index: number) => {
    const slot = { child: undefined as unknown as Child, ready: false, killed: false, selfKilled: false }
    slot.child = spawnChild('locker', [lockPath, file, markerDir, String(TIMEOUT_MS), String(SELF_KILL_CHANCE), String(CHILD_SAFETY_MS)], (line) => {
      const [tag, rest = ''] = line.split(/ (.*)/s, 2) as [string, string?]
      if (tag === 'acq') counts.acquisitions++
      else if (tag === 'ready') slot.ready = true
      else if (tag === 'stale-marker') counts.staleMarkers++
      else if (tag === 'selfkill') {
        counts.selfKills++
        slot.selfKilled = true
        selfKillSteps[rest] = (selfKillSteps[rest] ?? 0) + 1
      } else if (tag === 'violation' || tag === 'stuck' || tag === 'error') {
        counts[tag === 'violation' ? 'violations' : tag === 'stuck' ? 'stuck' : 'errors']++
        note(`pid ${slot.child.pid}: ${line}`)
      }
    })
    slots[index] = slot
    void slot.child.closed.then(({ code, signal }) => {
      if (!slot.killed && !slot.selfKilled && !(code === 0 && !running)) {
        counts.crashes++
        note(`locker pid ${slot.child.pid} exited (code ${code}, signal ${signal}): ${slot.child.stderr().trim().split('\n').slice(-3).join(' / ')}`)
      }
      if (running && counts.crashes < 20) {
        counts.restarts++
        start(index)
      }
    })
  }

  try {
    for (let index = 0; index < PROCESSES; index++) start(index)
    const upBy = Date.now() + 30_000
    while (!slots.every((slot) => slot.ready) && Date.now() < upBy) await sleep(50)
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      await sleep(between(100, 600))
      const alive = slots.filter((slot) => slot.child.alive() && !slot.killed)
      const victim = alive[Math.floor(Math.random() * alive.length)]
      if (victim && ((victim.killed = true), victim.child.kill())) counts.kills++
    }
    running = false
    for (const slot of slots) (slot.killed = true), slot.child.kill()
    await Promise.all(slots.map((slot) => slot.child.closed))
    // One more acquisition: whatever lock or claim the dead left must not hold it up.
    const finalLock = await acquireLock(lockPath, { timeoutMs: TIMEOUT_MS, file }).catch((error: Error) => {
      counts.stuck++
      note(`the final acquisition failed: ${error.message}`)
      return undefined
    })
    // What a writer does once it holds the lock: remove the temp files and claims of the dead.
    if (finalLock) await sweepLeftovers(dir, 'settings.yaml', true)
    await finalLock?.release()
    const leftovers = await strayFiles(dir, ['markers'])
    if (leftovers.length) note(`left over: ${leftovers.join(', ')}`)
    return [
      {
        id: 'lock',
        scenario: 'lock interleavings',
        ops: counts.acquisitions,
        kills: counts.kills + counts.selfKills,
        edits: 0,
        mustBeZero: { 'mutual-exclusion violations': counts.violations, 'stuck acquirers': counts.stuck, 'other errors': counts.errors, crashes: counts.crashes, leftovers: leftovers.length },
        figures: {
          processes: PROCESSES,
          'self-kills': counts.selfKills,
          'self-kills by step': Object.entries(selfKillSteps)
            .map(([step, count]) => `${step} ${count}`)
            .join(' ') || 0,
          'sections left by a killed holder': counts.staleMarkers,
          restarts: counts.restarts,
        },
        detail: { notes, selfKillSteps },
      },
    ]
  } finally {
    running = false
    for (const slot of slots) slot.child.kill()
    await Promise.all(slots.map((slot) => slot.child.closed))
    await removeTemp(dir)
  }
}
