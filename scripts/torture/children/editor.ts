/**
 * Usage: editor.ts <file> <durationMs> <namespaces,comma,separated> <graceMs> <safetyMs> [inPlaceMarker]
 *
 * A user editing the settings document by hand while writers run: at random
 * moments it reads the file, sets `hand.seq` to one more than the seq it last
 * wrote (keeping everything else, as an editor does: yaml parseDocument + setIn
 * + toString) and saves, rotating three save styles:
 * - `rename`: a temp file renamed over the document;
 * - `truncate`: in place, opened with O_TRUNC, then one write;
 * - `chunks`: in place, truncated, then written in 2-4 chunks 0-5 ms apart.
 *
 * Before each edit it checks the file: `hand.seq` must be the seq it last wrote
 * and every namespace named must be there. A mismatch is looked at again for
 * <graceMs> (the provider folds an edit that landed in the file it had just
 * replaced back in shortly after); one that lasts is a lost hand edit or a
 * vanished section. Its own stale read-modify-write may overwrite a plugin
 * write (the user's doing), which is not judged here.
 *
 * With [inPlaceMarker], a counter in that file is bumped to odd before each
 * in-place save and to even after it (written by rename, so always whole):
 * outside readers use it to tell the partial file an in-place save shows
 * everyone from a partial file a writer left.
 *
 * Prints `back <expected> <found> lost-save-style=<style> kept-in-history=<bool>` / `vanished <ns>` per finding, then
 * `result <json>` and exits after <durationMs>.
 */
import { renameSync, writeFileSync } from 'node:fs'
import { open, readdir, readFile, rename } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { parseDocument, type YamlDocument } from '../yaml.ts'
import { between, emit, exitEventually, fail, sleep, stopSignal } from './common.ts'

const [fileArg, durationText, namesText, graceText, safetyText, inPlaceMarker] = process.argv.slice(2)
if (!fileArg || !durationText || namesText === undefined || !graceText || !safetyText) fail(new Error('usage: editor.ts <file> <durationMs> <namespaces> <graceMs> <safetyMs> [inPlaceMarker]'))
// A narrowed copy: the functions below read it, and a destructured argument stays `string | undefined` inside them.
const file: string = fileArg
exitEventually(Number(safetyText))
// Stdin closes when the parent dies: stop editing then.
const { stopping } = stopSignal()
const names = namesText.split(',').filter(Boolean)
const graceMs = Number(graceText)
const swap = join(dirname(file), `.${basename(file)}.editor.swp`)
type Style = 'rename' | 'truncate' | 'chunks'
const STYLES: Style[] = ['rename', 'truncate', 'chunks']

/** One look at the file: its text and parse, the seq it holds, and the namespaces missing. */
interface Look {
  text: string
  document: YamlDocument | undefined
  seq: unknown
  missing: string[]
}

/** Reads that found the document missing for a moment (a writer had it set aside to replace it) and read it once back. */
let missingMoments = 0

/** The document's text; a document missing for a moment (a writer's replace sets it aside) is read again, for 2 s at most. */
async function readDocument(): Promise<string> {
  const until = Date.now() + 2000
  for (let waited = false; ; waited = true) {
    try {
      const text = await readFile(file, 'utf8')
      if (waited) missingMoments++
      return text
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || Date.now() >= until) throw error
      await sleep(1)
    }
  }
}

async function look(): Promise<Look> {
  const text = await readDocument()
  const document = parseDocument(text)
  if (document.errors.length) return { text, document: undefined, seq: undefined, missing: [] }
  const data = (document.toJS() ?? {}) as Record<string, unknown>
  return { text, document, seq: document.getIn(['hand', 'seq']), missing: names.filter((ns) => !(ns in data)) }
}

/** Whether any version kept in history/ holds `seq`: tells a save that was replaced (and kept) from one overwritten unseen. */
async function keptInHistory(seq: number): Promise<boolean> {
  const history = join(dirname(file), 'history')
  for (const name of await readdir(history).catch(() => [] as string[])) {
    const text = await readFile(join(history, name), 'utf8').catch(() => '')
    if (parseDocument(text).getIn(['hand', 'seq']) === seq) return true
  }
  return false
}

/** In-place saves so far, times two, plus one while one is under way (see the module comment). */
let inPlaceCount = 0

/** Publish {@link inPlaceCount} to the marker file, when there is one: written aside and renamed, so readers never see it half written. */
function bumpInPlace(): void {
  if (!inPlaceMarker) return
  inPlaceCount++
  writeFileSync(`${inPlaceMarker}.tmp`, String(inPlaceCount))
  renameSync(`${inPlaceMarker}.tmp`, inPlaceMarker)
}

async function save(style: Style, text: string): Promise<void> {
  if (style === 'rename') return saveByRename(text)
  bumpInPlace()
  try {
    await saveInPlace(style, text)
  } finally {
    bumpInPlace()
  }
}

async function saveByRename(text: string): Promise<void> {
  const handle = await open(swap, 'w', 0o600)
  await handle.writeFile(text)
  await handle.close()
  await rename(swap, file)
}

async function saveInPlace(style: Exclude<Style, 'rename'>, text: string): Promise<void> {
  // 'w' is O_WRONLY | O_CREAT | O_TRUNC: the file is empty from here until the writes land.
  const handle = await open(file, 'w')
  try {
    if (style === 'truncate') return void (await handle.write(text))
    const bytes = Buffer.from(text)
    const cuts = Array.from({ length: between(1, 3) }, () => between(1, bytes.length - 1)).sort((a, b) => a - b)
    let from = 0
    for (const cut of [...cuts, bytes.length]) {
      await handle.write(bytes.subarray(from, cut))
      from = cut
      if (cut < bytes.length) await sleep(between(0, 5))
    }
  } finally {
    await handle.close()
  }
}

try {
  const edits: Record<Style, number> = { rename: 0, truncate: 0, chunks: 0 }
  let last = Number((await look()).seq ?? 0)
  let wentBack = 0
  /** Lost edits by the style of the save that was lost. */
  const lost: Record<Style, number> = { rename: 0, truncate: 0, chunks: 0 }
  let lastStyle: Style | undefined
  let lateFolds = 0
  let vanished = 0
  let transientVanished = 0
  let unparsable = 0
  const deadline = Date.now() + Number(durationText)
  for (let turn = 0; Date.now() < deadline && !stopping(); turn++) {
    await sleep(between(20, 300))
    let seen = await look()
    const firstSeq = seen.seq
    const firstMissing = seen.missing.length
    let broken = !seen.document
    // Give the provider its window to fold an edit it had replaced back in.
    const until = Date.now() + graceMs
    while ((seen.seq !== last || seen.missing.length) && Date.now() < until) {
      await sleep(20)
      seen = await look()
      broken ||= !seen.document
    }
    // Every plugin write replaces the file whole, and this editor reads only between its own saves: no read may fail to parse.
    if (broken) unparsable++
    if (!seen.document) continue
    if (seen.seq !== last) {
      wentBack++
      if (lastStyle) lost[lastStyle]++
      emit('back', last, String(seen.seq), `lost-save-style=${lastStyle}`, `kept-in-history=${await keptInHistory(last)}`)
    } else if (firstSeq !== last) lateFolds++
    if (seen.missing.length) {
      vanished += seen.missing.length
      emit('vanished', seen.missing.join(','))
    } else if (firstMissing) transientVanished += firstMissing
    // Continue from our own last seq, whatever the file held.
    const style = STYLES[turn % STYLES.length]!
    seen.document.setIn(['hand', 'seq'], last + 1)
    await save(style, seen.document.toString())
    last++
    lastStyle = style
    edits[style]++
  }
  emit('result', JSON.stringify({ edits, last, wentBack, lost, lateFolds, vanished, transientVanished, unparsable, missingMoments }))
  process.exit(0)
} catch (error) {
  fail(error)
}
