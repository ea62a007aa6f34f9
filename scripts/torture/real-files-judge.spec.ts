/**
 * The real-files torture's judge: lost bytes are the bytes of the lines a
 * write should have kept and did not (plus key-line fragments), sentinels are
 * found wherever they are, and nothing reads a FIFO.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { baseDocument, documentSecrets, limitLine, limitOf, lostBytes, readRegular, regularFiles, Sentinels } from './real-files-judge.ts'

const BEFORE = '# mine\nweb-search:   # key comment\n  engine: bing\n\n  limit: 10\n'

describe('lostBytes', () => {
  it('is 0 when only the lines allowed to change changed', () => {
    expect(lostBytes(BEFORE, BEFORE.replace('limit: 10', 'limit: 23'), limitLine)).toBe(0)
    expect(lostBytes(BEFORE, BEFORE.replace('  limit: 10\n', ''), limitLine)).toBe(0)
  })

  it('counts each kept line that is gone, with its line end', () => {
    expect(lostBytes(BEFORE, BEFORE.replace('# mine\n', ''), limitLine)).toBe('# mine\n'.length)
    // A blank line counts too: one byte.
    expect(lostBytes(BEFORE, BEFORE.replace('bing\n\n', 'bing\n'), limitLine)).toBe(1)
  })

  it('counts a line whose bytes changed though its value did not (re-indented, re-spaced)', () => {
    const after = BEFORE.replace('web-search:   # key comment', 'web-search: # key comment')
    expect(lostBytes(BEFORE, after, limitLine)).toBe('web-search:   # key comment\n'.length)
  })

  it('counts a whole re-rendering, not only what moved', () => {
    const rendered = 'web-search:\n  engine: bing\n  limit: 23\n'
    // Kept: the engine line and one blank line; lost: the comment line, the key line with its spacing, the blank line.
    expect(lostBytes(BEFORE, rendered, limitLine)).toBe('# mine\n'.length + 'web-search:   # key comment\n'.length + 1)
  })

  it('counts lines that moved out of order once, by the longest run kept in order', () => {
    const swapped = 'web-search:   # key comment\n# mine\n  engine: bing\n\n  limit: 10\n'
    expect(lostBytes(BEFORE, swapped, limitLine)).toBe('# mine\n'.length)
  })

  it('counts a fragment to keep that is gone from a line allowed to change', () => {
    const before = 'web-search:   # key comment\n  limit: 10\n'
    expect(lostBytes(before, 'web-search: {}\n', () => true, ['# key comment'])).toBe('# key comment'.length)
    expect(lostBytes(before, 'web-search: {}   # key comment\n', () => true, ['# key comment'])).toBe(0)
  })
})

describe('sentinels', () => {
  it('are unique and found in any text that holds them, and only there', () => {
    const sentinels = new Sentinels()
    const secrets = documentSecrets(sentinels)
    expect(new Set(Object.values(secrets)).size).toBe(3)
    const document = baseDocument(secrets)
    expect(sentinels.foundIn(document).sort()).toEqual(Object.values(secrets).sort())
    expect(sentinels.foundIn(JSON.stringify({ value: { apiKey: secrets.apiKey } }))).toEqual([secrets.apiKey])
    expect(sentinels.foundIn(document.replaceAll(/rf-[\w-]+/g, '(secret)'))).toEqual([])
  })

  it('the base document holds its limit where a write changes it', () => {
    const document = baseDocument(documentSecrets(new Sentinels()), 17)
    expect(limitOf(document)).toBe(17)
    expect(document.split('\n').filter(limitLine)).toEqual(['  limit: 17'])
  })
})

describe('reading files', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dsh-real-files-judge-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('never opens a FIFO or follows a symlink, and lists regular files only', async () => {
    await mkdir(join(dir, 'history'))
    await writeFile(join(dir, 'history', 'kept.yaml'), 'a: 1\n')
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')])
    await symlink(join(dir, 'history', 'kept.yaml'), join(dir, 'link.yaml'))
    // A blocking open of the FIFO would hang here, with no writer.
    expect(readRegular(join(dir, 'pipe.yaml'))).toBeUndefined()
    expect(readRegular(join(dir, 'link.yaml'))).toBeUndefined()
    expect(readRegular(join(dir, 'missing.yaml'))).toBeUndefined()
    expect(readRegular(join(dir, 'history', 'kept.yaml'))).toBe('a: 1\n')
    expect(regularFiles(dir)).toEqual([join(dir, 'history', 'kept.yaml')])
  })
})
