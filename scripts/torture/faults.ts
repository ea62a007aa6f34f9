/**
 * Faults: a read-only document (`chmod 444`), a read-only folder (`chmod 555`)
 * and a full disk (see disk-full.ts), each tried over and over for its share
 * of the time. A write must fail loud (a stable code), leave the document
 * byte-identical with its mode, and the first write after the fault is lifted
 * must succeed. One row per fault.
 */
import { chmod, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { bootHere } from './boot.ts'
import { diskFull } from './disk-full.ts'
import { ArmedProvider, faultRow, noCounts, tryFault } from './fault-round.ts'
import { removeTemp, tempDir } from './harness.ts'
import type { Row } from './report.ts'

/** Keep trying `round` until `seconds` have passed (at least once). */
async function repeat(seconds: number, round: (index: number) => Promise<void>): Promise<void> {
  const deadline = Date.now() + seconds * 1000
  let index = 0
  do await round(++index)
  while (Date.now() < deadline)
}

/** A read-only document, then a read-only folder, for `seconds` each. */
async function readOnly(seconds: number): Promise<Row[]> {
  const dir = await tempDir('faults')
  const file = join(dir, 'settings.yaml')
  await writeFile(file, '# torture: faults\nf:\n  k:\n    round: 0 # by hand\n', { mode: 0o600 })
  const here = await bootHere(file, ['f'], {}, ArmedProvider)
  try {
    const documentCounts = noCounts()
    await repeat(seconds, (round) =>
      // Odd rounds refuse at call time (the seam asks `writable`), even ones inside the provider's write.
      tryFault(here, file, round, 'SETTINGS_READ_ONLY', () => chmod(file, 0o444), () => chmod(file, 0o644), documentCounts, round % 2 === 0),
    )
    const folderCounts = noCounts()
    await repeat(seconds, (round) =>
      tryFault(here, file, 1000 + round, 'SETTINGS_READ_ONLY', () => chmod(dirname(file), 0o555), () => chmod(dirname(file), 0o700), folderCounts, round % 2 === 0),
    )
    return [faultRow('faults-read-only-document', 'faults: read-only document', documentCounts), faultRow('faults-read-only-folder', 'faults: read-only folder', folderCounts)]
  } finally {
    await chmod(dir, 0o700).catch(() => {})
    await here.dispose()
    await removeTemp(dir)
  }
}

/** The three faults, `seconds` each; three rows. */
export async function faults(seconds: number): Promise<Row[]> {
  return [...(await readOnly(seconds)), ...(await diskFull(seconds))]
}
