/**
 * The history journal is bounded in bytes, and neither a write nor a listing reads more of it
 * than that bound from its end, however large an older version let it grow (133 MB here). The
 * bytes a test's process reads are counted by the kernel (`/proc/self/io`), not timed.
 */
import { readFileSync } from 'node:fs'
import { mkdir, open, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { SettingsDocument } from 'dsh-settings'
import { plugWithSettings } from 'dsh-testing'
import { digest, DocumentHistory, historyStamp, journalLimit } from '../src/store/history.ts'
import { listVersions } from '../src/provider/versions.ts'
import { bootFile, fileFixture } from './file-harness.ts'

const fixture = fileFixture()
const PLANTED_BYTES = 133 * 1024 * 1024
const MiB = 1024 * 1024

/** Bytes this process has read through system calls so far (Linux), or `undefined` where the kernel does not say. */
function bytesReadSoFar(): number | undefined {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1])
  } catch {
    return undefined
  }
}

/** Run `body` and answer how many bytes the process read meanwhile (`0` where that cannot be told). */
async function bytesReadBy(body: () => Promise<unknown>): Promise<number> {
  const before = bytesReadSoFar()
  await body()
  const after = bytesReadSoFar()
  return before === undefined || after === undefined ? 0 : after - before
}

const record = (at: Date, text: string, by: string[]) => `${JSON.stringify({ at: at.toISOString(), sha256: digest(text), by })}\n`

/**
 * Write a journal of about 133 MB at `path`: `head` first, then records of other texts made
 * in 2025, then `tail`. Written a MiB at a time.
 */
async function plantJournal(path: string, head: string, tail: string): Promise<void> {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < MiB; i++) {
    const line = record(new Date(Date.UTC(2025, 0, 1) + i * 1000), `filler ${i}`, ['plugin'])
    lines.push(line)
    size += line.length
  }
  const block = Buffer.from(lines.join(''))
  const handle = await open(path, 'w', 0o600)
  try {
    await handle.write(head)
    for (let written = 0; written < PLANTED_BYTES; written += block.length) await handle.write(block)
    await handle.write(tail)
  } finally {
    await handle.close()
  }
}

describe('the journal\'s bound', () => {
  it('is 1 KiB per kept version, at least 64 KiB and at most 4 MiB', () => {
    expect(journalLimit(1)).toBe(64 * 1024)
    expect(journalLimit(50)).toBe(64 * 1024)
    expect(journalLimit(1000)).toBe(1000 * 1024)
    expect(journalLimit(100_000)).toBe(4 * MiB)
  })

  it('holds over many writes, trimming to the newest half and keeping the records of at least twice `keep` versions', async () => {
    const history = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 50, maxAgeDays: 30 })
    let largest = 0
    for (let n = 1; n <= 1500; n++) {
      await history.record(`n: ${n}\n`, [n % 2 ? 'plugin' : 'wire'])
      largest = Math.max(largest, (await stat(history.journal)).size)
    }
    expect(largest).toBeLessThanOrEqual(history.journalLimit)
    const { authors } = await history.readJournal()
    for (let n = 1401; n <= 1500; n++) expect(authors.get(digest(`n: ${n}\n`))?.[0]?.by).toEqual([n % 2 ? 'plugin' : 'wire'])
    expect(authors.has(digest('n: 1\n'))).toBe(false)
    // Every line of the trimmed journal is a whole record.
    const lines = (await readFile(history.journal, 'utf8')).trimEnd().split('\n')
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  })
})

describe('a journal grown to 133 MB', () => {
  it('is trimmed below its bound by the next write, which reads only its end and keeps its newest records', async () => {
    const path = join(fixture.dir, 'settings.yaml')
    await writeFile(path, 'search:\n  limit: 1\n')
    const journal = join(fixture.dir, 'history', 'settings.journal.jsonl')
    await mkdir(join(fixture.dir, 'history'), { mode: 0o700 })
    const newest = record(new Date(Date.UTC(2025, 11, 31)), 'the newest planted text', ['wire'])
    await plantJournal(journal, '', newest)
    fixture.harness = await bootFile({ path, watch: false })
    const { value: search } = await plugWithSettings(fixture.harness.root, (ctx) => ctx.settings.register('search', Schema.object({ limit: Schema.number() })))
    // The journal is noted and trimmed once the write is answered; asking for the history waits for that.
    const read = await bytesReadBy(async () => {
      await search.update({ limit: 2 })
      await fixture.harness!.settings.history()
    })
    expect(read).toBeLessThan(8 * MiB)
    const size = (await stat(journal)).size
    expect(size).toBeLessThanOrEqual(journalLimit(50))
    const lines = (await readFile(journal, 'utf8')).trimEnd().split('\n')
    expect(lines.at(-2)).toBe(newest.trimEnd())
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ sha256: digest(await readFile(path, 'utf8')), by: ['plugin'] })
  })

  it('is listed from its end: at most its bound is read, so a record older than that says nothing', async () => {
    const history = new DocumentHistory(join(fixture.dir, 'settings.yaml'), { keep: 50, maxAgeDays: 30 })
    await mkdir(history.directory, { mode: 0o700 })
    const text = 'search:\n  limit: 7\n'
    const version = join(history.directory, `settings.${historyStamp(new Date())}.00000001.yaml`)
    await writeFile(version, text, { mode: 0o600 })
    const hourAgo = new Date(Date.now() - 3_600_000)
    await utimes(version, hourAgo, hourAgo)
    // Only the journal's very first record names this text: read whole, the version would be the wire's.
    await plantJournal(history.journal, record(new Date(hourAgo.getTime() - 60_000), text, ['wire']), '')
    const parse = (source: string) => parseYaml(source) as SettingsDocument
    let versions: Awaited<ReturnType<typeof listVersions>> = []
    const read = await bytesReadBy(async () => (versions = await listVersions(history, parse)))
    expect(versions.map((entry) => entry.by)).toEqual([['outside']])
    expect(read).toBeLessThan(8 * MiB)
    const journal = await history.readJournal()
    expect(journal.bytesRead).toBeLessThanOrEqual(history.journalLimit)
    expect(journal.bytesRead).toBeGreaterThan(history.journalLimit - 1024)
    expect(journal.first!.getUTCFullYear()).toBe(2025)
    // The file itself is left as it is: only a write trims.
    expect((await stat(history.journal)).size).toBeGreaterThan(PLANTED_BYTES)
  })
})
