/**
 * Hand edits: writer processes keep writing while an editor process edits a
 * hand-owned section (`hand.seq`) at random moments, saving by rename, by
 * truncate-then-write, and by truncate-then-chunks. No hand edit may be lost
 * and no section may vanish; once the editor stops and the provider's
 * late-edit window has passed, the document must hold the editor's last seq.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CHILD_SAFETY_MS, removeTemp, sleep, spawnChild, tempDir } from './harness.ts'
import type { Row } from './report.ts'
import { WriterPool } from './writers.ts'
import { parseSettingsText } from './yaml.ts'

const WRITERS = 8
const KEYS = 2
/** How long a mismatch may last before the editor counts it: the provider folds a late edit back in within ~settleMs × 2 plus a lock wait. */
const GRACE_MS = 2000
/** After the editor's last save, the writers go on for this long (the late-edit window) before the final check. */
const LATE_WAIT_MS = 2000
const SEED = '# torture: hand edits\n# the user owns this section\nhand:\n  seq: 0 # bumped by hand\n'

/** What the editor reports when it ends. */
interface EditorResult {
  edits: Record<'rename' | 'truncate' | 'chunks', number>
  last: number
  wentBack: number
  /** Lost edits by the style of the lost save. */
  lost: Record<'rename' | 'truncate' | 'chunks', number>
  lateFolds: number
  vanished: number
  transientVanished: number
  unparsable: number
  /** Reads that found the document missing for a moment (set aside by a writer's replace) and read it once back. */
  missingMoments: number
}

/** Run the hand edits for `seconds` of editing; one row. */
export async function handEdits(seconds: number): Promise<Row[]> {
  const dir = await tempDir('hand-edits')
  const file = join(dir, 'settings.yaml')
  await writeFile(file, SEED, { mode: 0o600 })
  // A small pause between writes leaves the editor some of the box's two cores.
  const pool = new WriterPool({ file, writers: WRITERS, keys: KEYS, lockTimeoutMs: 5000, pauseMs: 10 })
  const notes: string[] = []
  try {
    pool.start()
    // Every namespace exists before the editor starts, so one it saw can only vanish through a writer.
    const upBy = Date.now() + 30_000
    while (!pool.allWritten() && Date.now() < upBy) await sleep(50)
    const names = ['hand', 'shared', ...Array.from({ length: WRITERS }, (_, index) => `w-${index}`)]
    let result: EditorResult | undefined
    const editor = spawnChild('editor', [file, String(seconds * 1000), names.join(','), String(GRACE_MS), String(CHILD_SAFETY_MS)], (line) => {
      if (line.startsWith('result ')) result = JSON.parse(line.slice('result '.length)) as EditorResult
      else if (notes.length < 20) notes.push(`editor: ${line}`)
    })
    const exit = await editor.closed
    if (!result) throw new Error(`the editor exited (code ${exit.code}, signal ${exit.signal}) without a result: ${editor.stderr().trim()}`)
    await sleep(LATE_WAIT_MS)
    await pool.stop('stop')
    const document = parseSettingsText(await readFile(file, 'utf8'))
    const finalSeq = document?.hand?.seq
    if (finalSeq !== result.last) notes.push(`the final document holds hand.seq = ${finalSeq}, the editor last wrote ${result.last}`)
    const missing = names.filter((ns) => !document || !(ns in document))
    if (missing.length) notes.push(`the final document lacks ${missing.join(', ')}`)
    const edits = result.edits.rename + result.edits.truncate + result.edits.chunks
    return [
      {
        id: 'hand-edits',
        scenario: 'hand edits',
        ops: pool.acks,
        kills: pool.kills,
        edits,
        mustBeZero: {
          // Any save the file does not show after the grace, whatever its style, rename saves at a writer's replace included.
          'hand edits lost': result.wentBack + (finalSeq === result.last ? 0 : 1),
          // Even briefly: only a writer that trusted a half-written file can drop a section, and others may write on top meanwhile.
          'vanished sections': result.vanished + result.transientVanished + missing.length,
          'unparsable reads': result.unparsable + (document ? 0 : 1),
          'stuck writers': pool.stuck,
          crashes: pool.crashes,
        },
        figures: {
          'edits by rename/truncate/chunks': `${result.edits.rename}/${result.edits.truncate}/${result.edits.chunks}`,
          'lost by rename/truncate/chunks': `${result.lost.rename}/${result.lost.truncate}/${result.lost.chunks}`,
          // A save that landed in the file a writer had just replaced is missing until the provider folds it back in: by design, reported.
          'hand edits folded back late': result.lateFolds,
          'of them briefly': result.transientVanished,
          // A writer's replace sets the document aside for three system calls: a read then waits for it (by design, reported).
          'reads that waited for the document': result.missingMoments,
          'refused writes': Object.entries(pool.failures)
            .map(([code, count]) => `${code} ${count}`)
            .join(' ') || 0,
        },
        detail: { notes: [...notes, ...pool.notes], editor: result, failures: pool.failures },
      },
    ]
  } finally {
    await pool.stop('kill')
    await removeTemp(dir)
  }
}
