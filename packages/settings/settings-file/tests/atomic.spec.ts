/**
 * writeFileAtomic: exclusive-create a temp sibling named after its writer (mode 0600), write, fsync, rename over
 * the target, fsync the directory; clean the temp up on failure.
 *
 * What these tests prove:
 * - missing parent directories are created with mode 0700 and the file ends up with mode 0600,
 *   also when it replaces a file that had wider permissions (a fresh inode, not a rewrite);
 * - the target is replaced by rename: a symlink sitting at the target is replaced by a regular
 *   file and the file it pointed to is left untouched (never written through);
 * - the temp file is opened with exclusive create: with the random name pinned (by mocking
 *   `randomHex`, the source of every random name), a symlink planted at exactly that temp name makes the write fail with EEXIST,
 *   and neither the link's victim nor the target is touched (a plain `w` open would have followed
 *   the link and written into the victim);
 * - no temp file is left behind on success or on failure (the target is a directory, so the
 *   rename fails after the temp was written);
 * - a concurrent reader only ever sees a complete old or complete new document.
 *
 * What they cannot prove: durability. That the file and the directory are fsynced (and so
 * survive a power loss or kernel crash) is not observable from a running process without fault
 * injection at the block layer; nor can a test show that the rename is atomic across a crash.
 * The real random names cannot be hit by an attacker planting ahead of time; the mock only shows
 * what would happen if one were.
 */
import fs from 'node:fs'
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, symlink, writeFile, chmod } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { writeFileAtomic, writeTemp } from '../src/store/atomic.ts'
import { tempName as tempNameOf } from '../src/store/leftovers.ts'
import { currentOwner } from '../src/store/owner.ts'

/** When set, `randomHex` returns this many-times-repeated byte instead of random ones. */
const pinned = vi.hoisted(() => ({ byte: undefined as number | undefined }))

vi.mock('../src/store/random.ts', async (importOriginal) => {
  const random = await importOriginal<typeof import('../src/store/random.ts')>()
  return {
    randomHex: (bytes: number) => (pinned.byte === undefined ? random.randomHex(bytes) : Buffer.alloc(bytes, pinned.byte).toString('hex')),
  }
})

let dir: string

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-atomic-')))
})

afterEach(async () => {
  pinned.byte = undefined
  await rm(dir, { recursive: true, force: true })
})

const mode = async (path: string) => (await stat(path)).mode & 0o777
const temps = async (directory: string) => (await readdir(directory)).filter((name) => name.endsWith('.tmp') || name.endsWith('.aside'))

describe('writeFileAtomic', () => {
  it('creates missing parent directories with mode 0700 and the file with mode 0600', async () => {
    const file = join(dir, 'a', 'b', 'c', 'settings.yaml')
    await writeFileAtomic(file, 'key: value\n')
    expect(await readFile(file, 'utf8')).toBe('key: value\n')
    expect(await mode(file)).toBe(0o600)
    for (const sub of ['a', 'a/b', 'a/b/c']) expect(await mode(join(dir, sub))).toBe(0o700)
    expect(await readdir(join(dir, 'a', 'b', 'c'))).toEqual(['settings.yaml'])
  })

  it('leaves the mode of an existing parent directory as it was', async () => {
    const parent = join(dir, 'shared')
    await mkdir(parent, { mode: 0o755 })
    await chmod(parent, 0o755)
    await writeFileAtomic(join(parent, 'settings.yaml'), 'x: 1\n')
    expect(await mode(parent)).toBe(0o755)
  })

  it('replaces an existing file with a fresh owner-only file', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'old: text that is longer than the new one\n', { mode: 0o644 })
    await chmod(file, 0o644)
    const before = await stat(file)
    await writeFileAtomic(file, 'new: 1\n')
    expect(await readFile(file, 'utf8')).toBe('new: 1\n')
    expect(await mode(file)).toBe(0o600)
    // Renamed over, not rewritten in place.
    expect((await stat(file)).ino).not.toBe(before.ino)
    expect(await readdir(dir)).toEqual(['settings.yaml'])
  })

  it('gives the replacement the mode it is asked for (the provider passes the replaced file\'s)', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'old: 1\n', { mode: 0o640 })
    await chmod(file, 0o640)
    await writeFileAtomic(file, 'new: 1\n', { mode: 0o640 })
    expect(await mode(file)).toBe(0o640)
    expect(await temps(dir)).toEqual([])
  })

  it('writes empty and non-ASCII text byte for byte', async () => {
    const file = join(dir, 'settings.json')
    await writeFileAtomic(file, '')
    expect(await readFile(file, 'utf8')).toBe('')
    const text = '{ "name": "Grüße 🌍", "cr": "a\\r\\nb" }\n'
    await writeFileAtomic(file, text)
    expect(await readFile(file)).toEqual(Buffer.from(text, 'utf8'))
  })

  it('leaves no temp file behind after many successful writes', async () => {
    const file = join(dir, 'settings.yaml')
    for (let i = 0; i < 20; i++) await writeFileAtomic(file, `n: ${i}\n`)
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, `n: ${i}\n`)))
    expect(await readdir(dir)).toEqual(['settings.yaml'])
    expect(await readFile(file, 'utf8')).toMatch(/^n: \d+\n$/)
  })

  it('fails, and removes its temp file, when the target cannot be replaced (it is a directory)', async () => {
    const target = join(dir, 'settings.yaml')
    await mkdir(target)
    await writeFile(join(target, 'inside'), 'kept')
    await expect(writeFileAtomic(target, 'key: value\n')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST|EPERM)$/) })
    expect(await temps(dir)).toEqual([])
    expect(await readdir(dir)).toEqual(['settings.yaml'])
    expect((await lstat(target)).isDirectory()).toBe(true)
    expect(await readFile(join(target, 'inside'), 'utf8')).toBe('kept')
  })

  it('fails without leaving anything when the parent path is a file', async () => {
    await writeFile(join(dir, 'plain'), 'not a directory')
    await expect(writeFileAtomic(join(dir, 'plain', 'settings.yaml'), 'x: 1\n')).rejects.toMatchObject({ code: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) })
    expect(await readdir(dir)).toEqual(['plain'])
    expect(await readFile(join(dir, 'plain'), 'utf8')).toBe('not a directory')
  })

  it('replaces a symlink at the target with a regular file instead of writing through it', async () => {
    const victim = join(dir, 'victim.txt')
    await writeFile(victim, 'victim content')
    const target = join(dir, 'settings.yaml')
    await symlink(victim, target)
    await writeFileAtomic(target, 'key: value\n')
    const info = await lstat(target)
    expect(info.isSymbolicLink()).toBe(false)
    expect(info.isFile()).toBe(true)
    expect(info.mode & 0o777).toBe(0o600)
    expect(await readFile(target, 'utf8')).toBe('key: value\n')
    expect(await readFile(victim, 'utf8')).toBe('victim content')
    expect(await temps(dir)).toEqual([])
  })

  it('refuses to follow a symlink planted at its temp name (exclusive create)', async () => {
    pinned.byte = 0xab
    const target = join(dir, 'settings.yaml')
    // With randomHex pinned, the name the write will pick is known in advance.
    const tempName = tempNameOf('settings.yaml', currentOwner())
    expect(tempName).toContain('abababababab')
    const victim = join(dir, 'victim.txt')
    await writeFile(victim, 'victim content')
    await symlink(victim, join(dir, tempName))
    // A dangling link too: `wx` must not create the file it points to.
    const absent = join(dir, 'would-be-created.txt')
    await expect(writeFileAtomic(target, 'key: value\n')).rejects.toMatchObject({ code: 'EEXIST' })
    expect(await readFile(victim, 'utf8')).toBe('victim content')
    expect((await lstat(join(dir, tempName))).isSymbolicLink()).toBe(true)
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' })

    await rm(join(dir, tempName))
    await symlink(absent, join(dir, tempName))
    await expect(writeFileAtomic(target, 'key: value\n')).rejects.toMatchObject({ code: 'EEXIST' })
    await expect(lstat(absent)).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('names its temp file as a hidden sibling ending in .tmp', async () => {
    pinned.byte = 0x01
    const target = join(dir, 'settings.yaml')
    // Occupy the pinned temp name with a regular file: the write refuses, so the name is observable.
    const tempName = tempNameOf('settings.yaml', currentOwner())
    expect(tempName).toMatch(/^\.settings\.yaml\.[0-9a-f]{8}\.\d+\.(\d+|x)\.010101010101\.tmp$/)
    await writeFile(join(dir, tempName), 'occupied')
    await expect(writeFileAtomic(target, 'x: 1\n')).rejects.toMatchObject({ code: 'EEXIST' })
    expect(await readFile(join(dir, tempName), 'utf8')).toBe('occupied')
  })

  it('lets a concurrent reader see only the whole old or the whole new document', async () => {
    const file = join(dir, 'settings.yaml')
    const texts = ['a'.repeat(64 * 1024) + '\n', 'b'.repeat(96 * 1024) + '\n']
    await writeFileAtomic(file, texts[0]!)
    let writing = true
    const seen = new Set<string>()
    const reader = (async () => {
      while (writing) seen.add(await readFile(file, 'utf8'))
    })()
    for (let i = 1; i <= 30; i++) await writeFileAtomic(file, texts[i % 2]!)
    writing = false
    await reader
    for (const text of seen) expect(texts).toContain(text)
  })
})
