/**
 * Disk full: the document on a 512 KiB tmpfs (mounting needs root, or the row
 * is skipped with the reason), filled to the last byte by a filler file. A
 * write must fail loud with ENOSPC, leave the document byte-identical and no
 * temp, lock or claim file behind; once the filler is removed the next write
 * succeeds. The tmpfs is always unmounted.
 */
import { existsSync } from 'node:fs'
import { open, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bootHere } from './boot.ts'
import { errorCode } from './children/common.ts'
import { ArmedProvider, faultRow, noCounts, tryFault } from './fault-round.ts'
import { mountTmpfs, removeTemp, strayFiles, tempDir, unmount } from './harness.ts'
import type { Row } from './report.ts'

const SIZE = '512k'

/** Write `path` until the file system refuses another byte; returns the bytes written. */
async function fill(path: string): Promise<number> {
  const handle = await open(path, 'w')
  let written = 0
  try {
    // Big chunks first, then smaller ones, so the last page is used up too.
    for (const size of [64 * 1024, 4096, 1]) {
      const chunk = Buffer.alloc(size, 0x2e)
      for (;;) {
        try {
          const { bytesWritten } = await handle.write(chunk)
          written += bytesWritten
          if (bytesWritten < size) break
        } catch (error) {
          if (errorCode(error) === 'ENOSPC') break
          throw error
        }
      }
    }
  } finally {
    await handle.close()
  }
  return written
}

/** Try a full disk for `seconds` (at least once); one row, `skipped` when no tmpfs can be mounted here. */
export async function diskFull(seconds: number): Promise<Row[]> {
  const dir = await tempDir('disk-full')
  const counts = noCounts()
  /** Distinct names left beside the document by refused writes. */
  const left = new Set<string>()
  try {
    try {
      mountTmpfs(dir, SIZE)
    } catch (error) {
      const why = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim().split('\n')[0]
      console.log(`\nfaults: disk full skipped: cannot mount a tmpfs on ${dir}: ${why}`)
      return [{ ...faultRow('faults-disk-full', 'faults: disk full', counts), status: 'skipped', note: `no tmpfs: ${why}` }]
    }
    const file = join(dir, 'settings.yaml')
    const filler = join(dir, 'filler')
    await writeFile(file, '# torture: disk full\nf:\n  k:\n    round: 0\n', { mode: 0o600 })
    const here = await bootHere(file, ['f'], {}, ArmedProvider)
    // The editor schema is written once registrations settle; the rounds begin after it, so its own
    // temp file, there for an instant, is never taken for what a refused write left.
    await waitForFile(join(dir, 'settings.schema.json'), 5_000)
    try {
      const deadline = Date.now() + seconds * 1000
      let round = 0
      do {
        round++
        const fillUp = async () => void (await fill(filler))
        const removeFiller = async () => {
          // Before lifting: the refused write must have left nothing behind it.
          // The provider runs in this process: its lock record stands in history/ while it runs.
          const stray = (await strayFiles(dir, ['settings.yaml', 'settings.schema.json', 'history', 'filler'], process.pid)).filter((name) => !left.has(name))
          for (const name of stray) left.add(name)
          if (stray.length && counts.notes.length < 20) counts.notes.push(`round ${round}: left after the refused write: ${stray.join(', ')}`)
          await unlink(filler)
        }
        // Odd rounds fill the disk before the call (the lock's own record cannot be written), even ones
        // once the lock is held (the document's temp file cannot be written).
        await tryFault(here, file, round, 'ENOSPC', fillUp, removeFiller, counts, round % 2 === 0)
      } while (Date.now() < deadline)
    } finally {
      await here.dispose()
    }
    return [faultRow('faults-disk-full', 'faults: disk full', counts, { 'files left': left.size })]
  } finally {
    unmount(dir)
    await removeTemp(dir)
  }
}

/** Resolve once `path` exists, or after `timeoutMs` (the rounds then run all the same). */
async function waitForFile(path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (existsSync(path)) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
