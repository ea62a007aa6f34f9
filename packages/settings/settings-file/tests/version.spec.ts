/**
 * Reading a document whole: a small one synchronously, a large one (over
 * `SYNC_READ_LIMIT`) through the thread pool in as few reads as its size
 * allows. Either way the text is exactly the file's bytes decoded once, a
 * character split across the reads' seams included, and a file that changes
 * while it is read is read again.
 */
import { appendFile, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readVersion, SYNC_READ_LIMIT } from '../src/version.ts'

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-version-')))
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A YAML text of about `bytes` bytes whose lines hold characters of one to four UTF-8 bytes. */
function textOf(bytes: number): string {
  const lines: string[] = []
  let size = 0
  for (let index = 0; size < bytes; index++) {
    const line = `k${index}: "a é 日本 😀 ${index}"\n`
    lines.push(line)
    size += Buffer.byteLength(line)
  }
  return lines.join('')
}

describe('readVersion', () => {
  it.each([
    ['a small document', 4096],
    ['a document just over the synchronous limit', SYNC_READ_LIMIT + 3],
    ['a 3 MiB document', 3 * SYNC_READ_LIMIT],
  ])('reads %s exactly, multi-byte characters included', async (_, bytes) => {
    const file = join(dir, 'settings.yaml')
    const text = textOf(bytes)
    await writeFile(file, text)
    const version = await readVersion(file)
    expect(version.text?.length).toBe(text.length)
    expect(version.text === text).toBe(true)
    expect(version.size).toBe(BigInt(Buffer.byteLength(text)))
  })

  it('reads a large document again when it grew while being read, ending with what it holds', async () => {
    const file = join(dir, 'settings.yaml')
    const text = textOf(SYNC_READ_LIMIT * 2)
    await writeFile(file, text)
    // The append lands while the read waits in the thread pool.
    const reading = readVersion(file)
    await appendFile(file, 'late: true\n')
    const version = await reading
    expect(version.text === `${text}late: true\n`).toBe(true)
  })
})
