/**
 * Kill storm: 8 writer processes, each on its own namespace and on its own key
 * of one shared namespace, while a random writer is SIGKILLed every 100-500 ms
 * and restarted. A monitor reads the document all along. At the end every
 * writer is killed, this process makes one clean write, and the document must
 * hold every acknowledged value, with nothing left beside it but `history/`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bootHere } from './boot.ts'
import { between, removeTemp, sleep, strayFiles, tempDir } from './harness.ts'
import { DocumentMonitor, valueAt } from './monitor.ts'
import type { Row } from './report.ts'
import { WriterPool } from './writers.ts'
import { parseSettingsText } from './yaml.ts'

const WRITERS = 8
const KEYS = 3
const LOCK_TIMEOUT_MS = 5000
const SEED = '# torture: kill storm\nseed:\n  note: keep me # written by hand\n'

/** Run the kill storm for `seconds` of kills; one row. */
export async function killStorm(seconds: number): Promise<Row[]> {
  const dir = await tempDir('kill-storm')
  const file = join(dir, 'settings.yaml')
  await writeFile(file, SEED, { mode: 0o600 })
  const pool = new WriterPool({ file, writers: WRITERS, keys: KEYS, lockTimeoutMs: LOCK_TIMEOUT_MS, pauseMs: 0 })
  const monitor = new DocumentMonitor(file, pool.maxAcked)
  let cleanWriteFailed = 0
  const notes: string[] = []
  try {
    pool.start()
    monitor.start()
    // The storm starts once every writer is up (start-up of 8 processes on a small box takes seconds), so a short run still storms.
    const upBy = Date.now() + 30_000
    while (!pool.allReady() && Date.now() < upBy) await sleep(50)
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      await sleep(between(100, 500))
      pool.killRandom()
    }
    // All children dead (the harshest end), and their last lines read.
    await pool.stop('kill')
    await monitor.stop()
    // One clean write: takes over whatever lock the dead left, and sweeps their temp files.
    const here = await bootHere(file, ['shared'], { lockTimeoutMs: LOCK_TIMEOUT_MS })
    try {
      await here.settings.update('shared', { k: { parent: 1 } })
    } catch (error) {
      cleanWriteFailed++
      notes.push(`the clean write failed: ${error instanceof Error ? error.message : String(error)}`)
    } finally {
      await here.dispose()
    }
    const document = parseSettingsText(await readFile(file, 'utf8')) ?? {}
    let lostAcks = 0
    for (const [id, values] of pool.ackedValues) {
      const found = valueAt(document, id) ?? 0
      // Each key has one writer at a time and its values only grow: an acked value above the final one is lost.
      const lost = values.filter((value) => value > found).length
      lostAcks += lost
      if (lost && notes.length < 20) notes.push(`final ${id} = ${found}, acknowledged up to ${pool.maxAcked.get(id)}`)
    }
    const seedKept = document.seed?.note === 'keep me' ? 0 : 1
    const leftovers = await strayFiles(dir, ['settings.yaml', 'settings.schema.json', 'history'])
    if (leftovers.length) notes.push(`left over: ${leftovers.join(', ')}`)
    const otherFailures = Object.entries(pool.failures).filter(([code]) => code !== 'SETTINGS_LOCK_TIMEOUT')
    return [
      {
        id: 'kill-storm',
        scenario: 'kill storm',
        ops: pool.acks,
        kills: pool.kills,
        edits: 0,
        mustBeZero: {
          'lost acks': lostAcks,
          'acks missing from a later read': monitor.regressions.size + pool.startRegressions,
          'parse failures': monitor.parseFailures,
          'stuck writers': pool.stuck + cleanWriteFailed,
          'other failed writes': otherFailures.reduce((sum, [, count]) => sum + count, 0),
          'lost seed section': seedKept,
          crashes: pool.crashes,
          leftovers: leftovers.length,
        },
        figures: { writers: WRITERS, restarts: pool.restarts, reads: monitor.reads, 'reads that waited for the document': monitor.asideWaits, 'kills during start-up': pool.killsDuringStartUp },
        detail: { notes: [...notes, ...monitor.notes, ...pool.notes], failures: pool.failures },
      },
    ]
  } finally {
    await pool.stop('kill')
    await monitor.stop()
    await removeTemp(dir)
  }
}
