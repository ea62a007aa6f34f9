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
import { readVersion, SYNC_READ_LIMIT } from '../src/store/version.ts'

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

  it.each([0, 1, 65_534, 65_535, 65_536, 65_537, 200_000, SYNC_READ_LIMIT])('reads a %i-byte document exactly, around the reused buffer\'s size (64 KiB) too', async (bytes) => {
    const file = join(dir, 'settings.yaml')
    // One- to four-byte characters, cut to exactly `bytes` bytes at a character boundary, padded with ASCII.
    const body = Buffer.from(textOf(bytes))
    let cut = Math.min(bytes, body.length)
    while (cut > 0 && (body[cut]! & 0xc0) === 0x80) cut--
    const content = Buffer.concat([body.subarray(0, cut), Buffer.alloc(bytes - cut, 0x61)])
    await writeFile(file, content)
    const version = await readVersion(file)
    expect(version.text === content.toString('utf8')).toBe(true)
    expect(version.size).toBe(BigInt(bytes))
    // Read after a larger one: nothing of the earlier text is left over in what the reused buffer gives.
    await writeFile(file, 'k: 1\n')
    expect((await readVersion(file)).text).toBe('k: 1\n')
  })

  it('reads a large document again when it grew while being read, ending with what it holds', async () => {
    const file = join(dir, 'settings.yaml')
    const text = textOf(SYNC_READ_LIMIT * 2)
    await writeFile(file, text)
    // The append usually lands while the read waits in the thread pool; under load it may land after the read
    // ends. Either way the version is one whole state, and its signature is the one of the text it holds.
    const reading = readVersion(file)
    await appendFile(file, 'late: true\n')
    const version = await reading
    expect([text, `${text}late: true\n`].indexOf(version.text!)).not.toBe(-1)
    expect(version.size).toBe(BigInt(Buffer.byteLength(version.text!)))
  })
})
