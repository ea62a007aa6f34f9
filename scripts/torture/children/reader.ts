/**
 * Usage: reader.ts <loop|cat|watch> <file> <writers> <durationMs> <inPlaceMarker> <safetyMs>
 *
 * A program that reads the settings document while others write it, the way
 * programs outside the provider do:
 * - `loop`: `readFileSync` in a tight loop (a script, a backup, an older host);
 * - `cat`: `cat <file>` run again and again (a shell, git's content filters);
 * - `watch`: `fs.watch` on the folder, reading on every event for the document
 *   (an editor or yaml-language-server reloading on change).
 *
 * Every read is judged: ENOENT is a missing document; text that is not a whole
 * document (see ../whole-document.ts) is partial, unless the editor's in-place
 * save overlapped the read (its marker, bumped to odd before a truncating save
 * and to even after, read before the read and after it): a truncating save
 * shows a partial file to everyone, by the user's doing, so such a read is
 * counted as excused instead. Prints `ready` once it reads (or watches), and
 * `result <json>` after <durationMs>.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, watch } from 'node:fs'
import { basename, dirname } from 'node:path'
import { partialReason, sectionNames } from '../whole-document.ts'
import { emit, exitEventually, fail } from './common.ts'

type Mode = 'loop' | 'cat' | 'watch'
const [modeArg, fileArg, writersText, durationText, markerArg, safetyText] = process.argv.slice(2)
if (!modeArg || !['loop', 'cat', 'watch'].includes(modeArg) || !fileArg || !writersText || !durationText || !markerArg || !safetyText) {
  fail(new Error('usage: reader.ts <loop|cat|watch> <file> <writers> <durationMs> <inPlaceMarker> <safetyMs>'))
}
const mode = modeArg as Mode
const file: string = fileArg
const marker: string = markerArg
exitEventually(Number(safetyText))
const names = [...sectionNames(Number(writersText)), 'end']
const deadline = Date.now() + Number(durationText)

const counts = { reads: 0, missing: 0, partial: 0, excused: 0, errors: 0, distinct: 0 }
const notes: string[] = []
const noted = { missing: 0, partial: 0, error: 0 }
/** Keep a few examples of each kind of finding, so the first misses do not hide the first partial read. */
const note = (kind: keyof typeof noted, text: string) => void (noted[kind]++ < 4 && notes.push(text))

/** The editor's in-place save counter: odd while a truncating save is under way. */
function inPlaceCount(): number {
  try {
    return Number(readFileSync(marker, 'utf8'))
  } catch {
    return 0
  }
}

/** The last text judged and its verdict: a tight loop reads each version many times. */
let lastText: string | undefined
let lastReason: string | undefined

/** One read's outcome: text, `missing`, or another failure's code. */
type Outcome = { text: string } | { missing: true } | { error: string }

function judge(before: number, outcome: Outcome): void {
  counts.reads++
  if ('error' in outcome) {
    counts.errors++
    return note('error', `${mode}: read failed: ${outcome.error}`)
  }
  if ('missing' in outcome) {
    counts.missing++
    return note('missing', `${mode}: the document was missing (ENOENT) at read ${counts.reads}`)
  }
  const { text } = outcome
  if (text !== lastText) {
    counts.distinct++
    lastText = text
    lastReason = partialReason(text, names)
  }
  if (lastReason === undefined) return
  const after = inPlaceCount()
  // A truncating hand save was under way during this read: the partial file is the editor's, not a writer's.
  if (before % 2 === 1 || after !== before) return void counts.excused++
  counts.partial++
  note('partial', `${mode}: partial read (${lastReason}, ${text.length} bytes): ${JSON.stringify(text.slice(-120))}`)
}

function readOnce(): void {
  const before = inPlaceCount()
  let outcome: Outcome
  try {
    outcome = { text: readFileSync(file, 'utf8') }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    outcome = code === 'ENOENT' ? { missing: true } : { error: code }
  }
  judge(before, outcome)
}

function catOnce(): void {
  const before = inPlaceCount()
  const run = spawnSync('cat', [file], { encoding: 'utf8' })
  if (run.status === 0) return judge(before, { text: run.stdout })
  judge(before, /No such file/.test(run.stderr) ? { missing: true } : { error: `cat exited ${run.status}: ${run.stderr.trim()}` })
}

function finish(): never {
  emit('result', JSON.stringify({ mode, ...counts, notes }))
  process.exit(0)
}

try {
  if (mode === 'watch') {
    const name = basename(file)
    const watcher = watch(dirname(file), (_event, changed) => {
      if (changed === null || changed === name) readOnce()
    })
    emit('ready')
    setTimeout(() => {
      watcher.close()
      finish()
    }, Math.max(0, deadline - Date.now()))
  } else {
    // No pause and no await: these readers hold a core, as a reader in a tight loop does.
    const step = mode === 'loop' ? readOnce : catOnce
    emit('ready')
    while (Date.now() < deadline) step()
    finish()
  }
} catch (error) {
  fail(error)
}
