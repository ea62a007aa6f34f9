/**
 * A journal line is appended after the write is answered, without the
 * document's lock, so another writer's trim (under its lock) may replace the
 * journal right after the line went into the old file. The line must end up
 * in the journal that stands, exactly once, whether that trim carried it over
 * or not. The trim is forced into that gap by hooking the look that follows
 * the append (`lstatSync` of the journal).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DocumentHistory } from '../src/store/history.ts'

/** Run once, on the next look at `path`: another writer's trim landing between the append and that look. */
const hook = vi.hoisted(() => ({ path: undefined as string | undefined, run: undefined as (() => void) | undefined }))

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const lstatSync = ((path: string, ...rest: unknown[]) => {
    if (hook.run && path === hook.path) {
      const run = hook.run
      hook.run = undefined
      run()
    }
    return (fs.lstatSync as (...args: unknown[]) => unknown)(path, ...rest)
  }) as typeof fs.lstatSync
  return { ...fs, default: { ...fs, lstatSync }, lstatSync }
})

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-journal-unlocked-')))
})

afterEach(async () => {
  hook.run = undefined
  await rm(dir, { recursive: true, force: true })
})

/** What another writer's trim does: a new file with `text`, renamed over the journal. */
function replaceJournal(history: DocumentHistory, text: string): void {
  const temp = `${history.journal}.other.tmp`
  writeFileSync(temp, text)
  renameSync(temp, history.journal)
}

/** The journal's lines written by `by`. */
async function linesOf(history: DocumentHistory, by: string): Promise<string[]> {
  const lines = (await readFile(history.journal, 'utf8')).split('\n').filter(Boolean)
  return lines.filter((line) => line.includes(`"by":["${by}"]`))
}

describe('a journal line appended without the lock', () => {
  it('goes into the journal a trim put in its place, when the trim did not carry it over', async () => {
    const history = new DocumentHistory(join(dir, 'settings.yaml'), { keep: 5, maxAgeDays: 30 })
    await history.record('n: 1\n', ['first'])
    const trimmed = await readFile(history.journal, 'utf8')
    hook.path = history.journal
    // The other writer read the journal before this line went in, and renames its trimmed copy over it now.
    hook.run = () => replaceJournal(history, trimmed)
    history.note('n: 2\n', ['second'])
    expect(hook.run).toBeUndefined()
    expect(await linesOf(history, 'second')).toHaveLength(1)
    expect(await linesOf(history, 'first')).toHaveLength(1)
    const { authors } = await history.readJournal()
    expect([...authors.values()].flat().map((record) => record.by[0]).sort()).toEqual(['first', 'second'])
  })

  it('is not written twice when the trim carried it over', async () => {
    const history = new DocumentHistory(join(dir, 'settings.yaml'), { keep: 5, maxAgeDays: 30 })
    await history.record('n: 1\n', ['first'])
    hook.path = history.journal
    // The other writer's trim read the journal with this line already in it.
    hook.run = () => replaceJournal(history, readFileSync(history.journal, 'utf8'))
    history.note('n: 2\n', ['second'])
    expect(hook.run).toBeUndefined()
    expect(await linesOf(history, 'second')).toHaveLength(1)
  })

  it('leaves the journal as it is when nothing replaced it', async () => {
    const history = new DocumentHistory(join(dir, 'settings.yaml'), { keep: 5, maxAgeDays: 30 })
    for (let n = 1; n <= 3; n++) history.note(`n: ${n}\n`, [`w${n}`])
    const lines = (await readFile(history.journal, 'utf8')).split('\n').filter(Boolean)
    expect(lines.map((line) => JSON.parse(line).by[0])).toEqual(['w1', 'w2', 'w3'])
  })

  it('says when the journal is over its bound, and trims only when asked', async () => {
    const history = new DocumentHistory(join(dir, 'settings.yaml'), { keep: 1, maxAgeDays: 30 })
    let over = false
    let n = 0
    while (!over) over = history.note(`n: ${++n}\n`, ['w'])
    const size = (await readFile(history.journal)).length
    expect(size).toBeGreaterThan(history.journalLimit)
    await history.trimJournal()
    expect((await readFile(history.journal)).length).toBeLessThanOrEqual(history.journalLimit / 2)
  })
})
