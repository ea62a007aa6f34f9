/**
 * Lock contention: 8 processes take the document lock back to back, each
 * holding it 0-20 ms (a busy writer), with no pause between acquisitions. A
 * lock without turns lets whoever releases it take it again at once, so some
 * processes starve until they time out; with turns every waiter gets in within
 * a few turns. Two holders at once is a violation, a timed-out acquisition a
 * starved writer; the figures show the longest wait and how evenly the
 * processes were served.
 */
import { CHILD_SAFETY_MS, lockWorkspace, removeTemp, sleep, spawnChild, strayFiles, type Child } from './harness.ts'
import type { Row } from './report.ts'

const PROCESSES = 8
const TIMEOUT_MS = 5000
const HOLD_MS = 20

/** Run the contention for `seconds`; one row. */
export async function lockContention(seconds: number): Promise<Row[]> {
  const { dir, file, markerDir } = await lockWorkspace('lock-contention')
  const waits: number[] = []
  const served = Array.from({ length: PROCESSES }, () => 0)
  const counts = { violations: 0, starved: 0, errors: 0, crashes: 0 }
  const notes: string[] = []
  const note = (text: string) => void (notes.length < 20 && notes.push(text))
  const children: Child[] = []
  const ready = new Set<number>()
  let stopping = false
  try {
    for (let index = 0; index < PROCESSES; index++) {
      const child = spawnChild('locker', [`${file}.lock`, file, markerDir, String(TIMEOUT_MS), '0', String(CHILD_SAFETY_MS), String(HOLD_MS)], (line) => {
        const [tag, rest = ''] = line.split(/ (.*)/s, 2) as [string, string?]
        // Acquisitions count once every process is contending: a lone early starter is not served, it is alone.
        if (tag === 'acq' && ready.size === PROCESSES && !stopping) {
          waits.push(Number(rest))
          served[index]!++
        } else if (tag === 'ready') ready.add(index)
        else if (tag === 'violation' || tag === 'stuck' || tag === 'error') {
          counts[tag === 'violation' ? 'violations' : tag === 'stuck' ? 'starved' : 'errors']++
          note(`locker ${index} (pid ${child.pid}): ${line}`)
        }
      })
      void child.closed.then(({ code, signal }) => {
        if (!(stopping && code === 0)) {
          counts.crashes++
          note(`locker ${index} (pid ${child.pid}) exited (code ${code}, signal ${signal}): ${child.stderr().trim().split('\n').slice(-3).join(' / ')}`)
        }
      })
      children.push(child)
    }
    const upBy = Date.now() + 30_000
    while (ready.size < PROCESSES && Date.now() < upBy) await sleep(50)
    await sleep(seconds * 1000)
    stopping = true
    for (const child of children) child.send('stop')
    await Promise.all(children.map((child) => child.closed))
    const leftovers = await strayFiles(dir, ['markers'])
    if (leftovers.length) note(`left over: ${leftovers.join(', ')}`)
    const sorted = [...waits].sort((a, b) => a - b)
    const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0
    return [
      {
        id: 'lock-contention',
        scenario: 'lock contention',
        ops: waits.length,
        kills: 0,
        edits: 0,
        mustBeZero: { 'mutual-exclusion violations': counts.violations, 'starved (timed out after 5 s)': counts.starved, 'other errors': counts.errors, crashes: counts.crashes, leftovers: leftovers.length },
        figures: {
          processes: PROCESSES,
          'hold ms': `0-${HOLD_MS}`,
          'wait p50 ms': quantile(0.5),
          'wait p99 ms': quantile(0.99),
          'longest wait ms': sorted.at(-1) ?? 0,
          'acquisitions per process, fewest-most': `${Math.min(...served)}-${Math.max(...served)}`,
        },
        detail: { notes, served },
      },
    ]
  } finally {
    stopping = true
    for (const child of children) child.kill()
    await Promise.all(children.map((child) => child.closed))
    await removeTemp(dir)
  }
}
