/**
 * The store's replace (`swapIn`) and its placing of a new document (`placeNew`), by exchange and on the
 * portable path (`DSH_SETTINGS_PORTABLE_FS=1`): the document is replaced only while it is the inode read,
 * an editor's save is never overwritten, and the portable path works where no hard link can be made.
 */
import fs from 'node:fs'
import { mkdtemp, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { writeTemp } from '../src/store/atomic.ts'
import { placeNew, swapIn } from '../src/store/replace.ts'

let dir: string

afterEach(async () => {
  vi.restoreAllMocks()
  delete process.env.DSH_SETTINGS_PORTABLE_FS
  await rm(dir, { recursive: true, force: true })
})

const hidden = async () => (await readdir(dir)).filter((name) => name.startsWith('.'))
const inode = async (path: string) => (await stat(path, { bigint: true })).ino

/** An editor's rename save: a sibling written, then renamed over the document (a new inode). */
async function editorSave(file: string, text: string): Promise<bigint> {
  await writeFile(join(dir, 'editor.tmp~'), text)
  await rename(join(dir, 'editor.tmp~'), file)
  return inode(file)
}

/** A file system without hard links (exFAT): every `link` is refused with EPERM. */
function refuseLinks(): void {
  vi.spyOn(fs, 'linkSync').mockImplementation(() => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })
  })
}

describe.each([
  ['by exchange', false, false],
  ['on the portable path', true, false],
  ['on the portable path without hard links', true, true],
])('a replace %s', (_way, portable, noLinks) => {
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-replace-')))
    if (portable) process.env.DSH_SETTINGS_PORTABLE_FS = '1'
    if (noLinks) refuseLinks()
  })

  it('places a new document only where none exists, leaving an existing one alone', async () => {
    const file = join(dir, 'settings.yaml')
    const first = await writeTemp(file, 'first: 1\n')
    expect(placeNew(first, file)).toBe(true)
    const second = await writeTemp(file, 'second: 1\n')
    expect(placeNew(second, file)).toBe(false)
    expect(await readFile(file, 'utf8')).toBe('first: 1\n')
    expect(await readFile(second, 'utf8')).toBe('second: 1\n')
    await rm(second)
    expect(await hidden()).toEqual([])
  })

  it('replaces the document while it is the inode read, handing back the replaced file under a hidden name', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'read: 1\n')
    const read = await inode(file)
    const temp = await writeTemp(file, 'ours: 1\n')
    const swapped = swapIn(temp, file, read)
    if (typeof swapped === 'string') throw new Error(`not swapped: ${swapped}`)
    expect(await readFile(file, 'utf8')).toBe('ours: 1\n')
    expect((await stat(file)).nlink).toBe(1)
    expect(await inode(swapped.replaced)).toBe(read)
    expect(await readFile(swapped.replaced, 'utf8')).toBe('read: 1\n')
    // The only name left beside the document is the replaced file's.
    expect(await hidden()).toEqual([swapped.replaced.slice(dir.length + 1)])
  })

  it('refuses when an editor\'s rename save took the path since the read: the save stands, the temp keeps the new text', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'read: 1\n')
    const read = await inode(file)
    const editor = await editorSave(file, 'editor: 1\n')
    const temp = await writeTemp(file, 'ours: 1\n')
    expect(swapIn(temp, file, read)).toBe('changed')
    expect(await readFile(file, 'utf8')).toBe('editor: 1\n')
    expect(await inode(file)).toBe(editor)
    expect(await readFile(temp, 'utf8')).toBe('ours: 1\n')
    await rm(temp)
    expect(await hidden()).toEqual([])
  })

  it('refuses when the document was removed since the read', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'read: 1\n')
    const read = await inode(file)
    await rm(file)
    const temp = await writeTemp(file, 'ours: 1\n')
    expect(swapIn(temp, file, read)).toBe('gone')
    expect(fs.existsSync(file)).toBe(false)
    await rm(temp)
    expect(await hidden()).toEqual([])
  })
})

describe('the portable replace, while the document is set aside', () => {
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-replace-')))
    process.env.DSH_SETTINGS_PORTABLE_FS = '1'
  })

  it('never overwrites a rename save that lands in that moment: the save stands and the aside goes', async () => {
    const file = join(dir, 'settings.yaml')
    await writeFile(file, 'read: 1\n')
    const read = await inode(file)
    const temp = await writeTemp(file, 'ours: 1\n')
    const link = fs.linkSync
    let missing = false
    // The placing links through the module object: the save lands just before it, with the document aside.
    vi.spyOn(fs, 'linkSync').mockImplementationOnce((from, to) => {
      missing = !fs.existsSync(file)
      fs.writeFileSync(join(dir, 'editor.tmp~'), 'editor: 1\n')
      fs.renameSync(join(dir, 'editor.tmp~'), file)
      return link(from, to)
    })
    expect(swapIn(temp, file, read)).toBe('changed')
    expect(missing).toBe(true)
    expect(await readFile(file, 'utf8')).toBe('editor: 1\n')
    expect(await readFile(temp, 'utf8')).toBe('ours: 1\n')
    await rm(temp)
    expect(await hidden()).toEqual([])
  })
})
