import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readOwnFile } from '../src/index.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-own-file-')))
  dirs.push(dir)
  return dir
}

describe('readOwnFile', () => {
  it('reads a regular file of this user with mode 0600 (or narrower)', () => {
    const dir = folder()
    writeFileSync(join(dir, 'a.json'), '{"a":1}', { mode: 0o600 })
    writeFileSync(join(dir, 'b.json'), 'b', { mode: 0o400 })
    expect(readOwnFile(join(dir, 'a.json'))).toEqual({ text: '{"a":1}' })
    expect(readOwnFile(join(dir, 'b.json'))).toEqual({ text: 'b' })
  })

  it('refuses a missing file, a symlink, a folder, a FIFO and a file others may read or write, saying why', () => {
    const dir = folder()
    writeFileSync(join(dir, 'real.json'), '{}', { mode: 0o600 })
    symlinkSync(join(dir, 'real.json'), join(dir, 'link.json'))
    mkdirSync(join(dir, 'folder.json'))
    writeFileSync(join(dir, 'open.json'), '{}', { mode: 0o600 })
    chmodSync(join(dir, 'open.json'), 0o644)
    expect(readOwnFile(join(dir, 'none.json'))).toMatchObject({ refused: 'missing' })
    expect(readOwnFile(join(dir, 'link.json'))).toEqual({ refused: 'symlink', why: `${join(dir, 'link.json')} is a symbolic link` })
    expect(readOwnFile(join(dir, 'folder.json'))).toMatchObject({ refused: 'not-a-file' })
    expect(readOwnFile(join(dir, 'open.json'))).toMatchObject({ refused: 'open-to-others', why: expect.stringContaining('mode 0600') })
  })

  it('run as root, takes a file owned by its folder\'s owner (what a root host leaves in a user\'s home) and refuses one of anybody else', () => {
    // Only root can give files away; this machine's test runs are root's.
    expect(process.geteuid?.()).toBe(0)
    const dir = folder()
    const home = join(dir, 'home')
    mkdirSync(home)
    chownSync(home, 4242, 4242)
    writeFileSync(join(home, 'theirs.json'), 'ok', { mode: 0o600 })
    chownSync(join(home, 'theirs.json'), 4242, 4242)
    writeFileSync(join(home, 'planted.json'), 'no', { mode: 0o600 })
    chownSync(join(home, 'planted.json'), 5353, 5353)
    expect(readOwnFile(join(home, 'theirs.json'))).toEqual({ text: 'ok' })
    expect(readOwnFile(join(home, 'planted.json'))).toMatchObject({ refused: 'not-yours', why: expect.stringContaining('belongs to another user') })
  })
})
