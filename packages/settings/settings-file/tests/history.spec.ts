import { link, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DocumentHistory, historyStamp } from '../src/store/history.ts'

let dir: string
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-history-')))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('DocumentHistory', () => {
  it('names versions by time so they sort, keeping the document extension', () => {
    expect(historyStamp(new Date(Date.UTC(2026, 11, 2, 1, 45, 9, 123)))).toBe('20261202T014509123Z')
  })

  it('keeps a version as a hard link of the file (no copy), in an owner-only folder', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'a: 1\n')
    const history = new DocumentHistory(file, { keep: 5, maxAgeDays: 30 })
    const kept = (await history.keep(file))!
    expect(kept.linked).toBe(true)
    expect((await stat(kept.path)).ino).toBe((await stat(file)).ino)
    expect((await stat(history.directory)).mode & 0o777).toBe(0o700)
    // A late write into the old file is what the kept version shows.
    await writeFile(file, 'a: 2\n')
    expect(await readFile(kept.path, 'utf8')).toBe('a: 2\n')
    await history.seal(kept.path)
    expect((await stat(kept.path)).mode & 0o777).toBe(0o600)
  })

  it('lists only its own document\'s versions, oldest first', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'a: 1\n')
    const history = new DocumentHistory(file, { keep: 5, maxAgeDays: 30 })
    const second = (await history.keep(file, new Date(Date.UTC(2026, 0, 2))))!
    const first = (await history.keep(file, new Date(Date.UTC(2026, 0, 1))))!
    await writeFile(join(history.directory, 'other.20260101T000000000Z.abcdef01.yaml'), 'x')
    await writeFile(join(history.directory, 'settings.not-a-stamp.abcdef01.yaml'), 'x')
    await link(file, join(history.directory, 'settings.20260103T000000000Z.abcdef01.json'))
    // Near misses: one character short or long, digits that are not hex, a stamp out of shape, a dot missing.
    for (const name of ['settings.20260103T000000000Z.abcdef0.yaml', 'settings.20260103T000000000Z.abcdef012.yaml', 'settings.20260103T000000000Z.abcdeg01.yaml', 'settings.20260103X000000000Z.abcdef01.yaml', 'settings.20260103T000000000Zxabcdef01.yaml', 'settings.20260103T00000000Z.abcdef01a.yaml']) {
      await writeFile(join(history.directory, name), 'x')
    }
    expect((await history.list()).map((entry) => entry.path)).toEqual([first.path, second.path])
  })

  it('prunes beyond the newest `keep` and anything older than maxAgeDays, nothing else', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'a: 1\n')
    const now = new Date(Date.UTC(2026, 5, 1))
    const history = new DocumentHistory(file, { keep: 3, maxAgeDays: 10 })
    const day = (n: number) => new Date(now.getTime() - n * 86_400_000)
    for (const age of [20, 5, 4, 3, 2]) await history.keep(file, day(age))
    expect(await history.prune(now)).toBe(2)
    expect((await history.list()).map((entry) => entry.replacedAt)).toEqual([day(4), day(3), day(2)])
    const strict = new DocumentHistory(file, { keep: 10, maxAgeDays: 3.5 })
    expect(await strict.prune(now)).toBe(1)
    expect(await readdir(history.directory)).toHaveLength(2)
  })
})
