/**
 * External readers: programs that read the settings document without the
 * provider (a `readFileSync` loop, `cat` run again and again, an `fs.watch`
 * watcher reading on each event) beside writer processes that are SIGKILLed
 * at random and an editor saving by hand in every style the torture has. A
 * read that finds the document missing (ENOENT), or not a whole version of it
 * (see whole-document.ts), is a failure; so is a lost rename save. The full
 * run must make at least {@link WANTED_READS} reads.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { between, CHILD_SAFETY_MS, removeTemp, sleep, spawnChild, tempDir, type Child } from './harness.ts'
import type { Row } from './report.ts'
import { partialReason, sectionNames, seedDocument } from './whole-document.ts'
import { WriterPool } from './writers.ts'

const WRITERS = 4
const KEYS = 2
/** As in the hand edits: how long a mismatch may last before the editor counts it, and the late-edit window at the end. */
const GRACE_MS = 2000
const LATE_WAIT_MS = 2000
/** Reads the full run must make (the bar); a quick run reports its count without a bar. */
export const WANTED_READS = 100_000
/** A run this long or longer is a full run. */
const FULL_SECONDS = 60
const READERS = ['loop', 'cat', 'watch'] as const

/** What a reader child reports. */
interface ReaderResult {
  mode: (typeof READERS)[number]
  reads: number
  missing: number
  partial: number
  excused: number
  errors: number
  distinct: number
  notes: string[]
}

/** What the editor child reports (the fields this scenario reads). */
interface EditorResult {
  edits: Record<'rename' | 'truncate' | 'chunks', number>
  last: number
  lost: Record<'rename' | 'truncate' | 'chunks', number>
  vanished: number
  unparsable: number
}

/** Spawn a child that ends with one `result <json>` line; resolves to that result (or throws with its stderr). */
function resultOf<T>(script: string, args: string[], notes: string[]): { child: Child; result: Promise<T> } {
  let result: T | undefined
  const child = spawnChild(script, args, (line) => {
    if (line.startsWith('result ')) result = JSON.parse(line.slice('result '.length)) as T
    else if (line !== 'ready' && notes.length < 20) notes.push(`${script}: ${line}`)
  })
  const done = child.closed.then(({ code, signal }) => {
    if (result === undefined) throw new Error(`${script} exited (code ${code}, signal ${signal}) without a result: ${child.stderr().trim().split('\n').slice(-3).join(' / ')}`)
    return result
  })
  return { child, result: done }
}

/** Run the readers, writers, kills and hand edits for `seconds`; one row. */
export async function externalReaders(seconds: number): Promise<Row[]> {
  const dir = await tempDir('external-readers')
  const marks = await tempDir('external-readers-marks')
  const file = join(dir, 'settings.yaml')
  const marker = join(marks, 'in-place-saves')
  await writeFile(file, seedDocument(WRITERS, KEYS), { mode: 0o600 })
  const pool = new WriterPool({ file, writers: WRITERS, keys: KEYS, lockTimeoutMs: 5000, pauseMs: 5 })
  const notes: string[] = []
  const names = sectionNames(WRITERS)
  try {
    pool.start()
    const upBy = Date.now() + 30_000
    while (!pool.allReady() && Date.now() < upBy) await sleep(50)
    const ms = String(seconds * 1000)
    const readers = READERS.map((mode) => resultOf<ReaderResult>('reader', [mode, file, String(WRITERS), ms, marker, String(CHILD_SAFETY_MS)], notes))
    const editor = resultOf<EditorResult>('editor', [file, ms, names.join(','), String(GRACE_MS), String(CHILD_SAFETY_MS), marker], notes)
    const deadline = Date.now() + seconds * 1000
    while (Date.now() < deadline) {
      await sleep(between(300, 1000))
      pool.killRandom()
    }
    const read = await Promise.all(readers.map((reader) => reader.result))
    const edited = await editor.result
    await sleep(LATE_WAIT_MS)
    await pool.stop('stop')
    return [summarize(seconds, read, edited, pool, await readFile(file, 'utf8'), notes)]
  } finally {
    await pool.stop('kill')
    await removeTemp(dir)
    await removeTemp(marks)
  }
}

/** The row: counts summed over the readers, the editor's losses, and the final document's check. */
function summarize(seconds: number, read: ReaderResult[], edited: EditorResult, pool: WriterPool, finalText: string, notes: string[]): Row {
  const sum = (field: 'reads' | 'missing' | 'partial' | 'excused' | 'errors') => read.reduce((total, reader) => total + reader[field], 0)
  const reads = sum('reads')
  const finalReason = partialReason(finalText, [...sectionNames(WRITERS), 'end'])
  if (finalReason) notes.push(`the final document is not whole: ${finalReason}`)
  const finalSeq = /^ {2}seq: (\d+)/m.exec(finalText)?.[1]
  if (Number(finalSeq) !== edited.last) notes.push(`the final document holds hand.seq = ${finalSeq}, the editor last wrote ${edited.last}`)
  const mustBeZero: Record<string, number> = {
    'missing reads': sum('missing'),
    'partial reads': sum('partial') + (finalReason ? 1 : 0),
    'rename saves lost': edited.lost.rename,
    'other hand edits lost': edited.lost.truncate + edited.lost.chunks + (Number(finalSeq) === edited.last ? 0 : 1),
    'vanished sections': edited.vanished,
    'failed reads': sum('errors'),
    'stuck writers': pool.stuck,
    crashes: pool.crashes,
  }
  if (seconds >= FULL_SECONDS) mustBeZero[`reads short of ${WANTED_READS.toLocaleString('en')}`] = Math.max(0, WANTED_READS - reads)
  const by = (field: keyof ReaderResult) => read.map((reader) => reader[field]).join('/')
  return {
    id: 'external-readers',
    scenario: 'external readers',
    ops: pool.acks,
    kills: pool.kills,
    edits: edited.edits.rename + edited.edits.truncate + edited.edits.chunks,
    mustBeZero,
    figures: {
      reads,
      [`reads by ${READERS.join('/')}`]: by('reads'),
      [`missing by ${READERS.join('/')}`]: by('missing'),
      [`partial by ${READERS.join('/')}`]: by('partial'),
      // A truncating hand save shows everyone a partial file: the user's doing, reported, not judged.
      'reads during an in-place hand save': sum('excused'),
      'versions seen': by('distinct'),
      'edits by rename/truncate/chunks': `${edited.edits.rename}/${edited.edits.truncate}/${edited.edits.chunks}`,
      'refused writes': Object.entries(pool.failures).map(([code, count]) => `${code} ${count}`).join(' ') || 0,
    },
    detail: { notes: [...notes, ...read.flatMap((reader) => reader.notes), ...pool.notes], readers: read, editor: edited, failures: pool.failures },
  }
}
