/**
 * The quick read (`dsh-settings-file/fast-read`): what it answers is exactly
 * what a load parses, and whatever it cannot settle it leaves to the full
 * read, without blocking on a FIFO or reading past the size cap.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readPlainData, readPlainText } from 'dsh-settings-file/fast-read'
import { parseSettings } from 'dsh-settings-file/codec'

const FIXTURES = new URL('./fixtures/', import.meta.url)
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function folder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-fast-read-')))
  dirs.push(dir)
  return dir
}

describe('readPlainData', () => {
  it('answers what a load parses, for every fixture document it takes, and leaves the others to the full read', () => {
    const dir = folder()
    let taken = 0
    let left = 0
    for (const name of readdirSync(FIXTURES).filter((file) => file.endsWith('.yaml'))) {
      const text = readFileSync(new URL(name, FIXTURES), 'utf8')
      const path = join(dir, name)
      writeFileSync(path, text)
      const quick = readPlainData(path, 1 << 20)
      if (quick === undefined) left++
      else {
        taken++
        expect(quick, name).toEqual(parseSettings(text, 'yaml', path).data)
      }
    }
    expect(taken).toBeGreaterThan(0)
    // anchors.yaml uses anchors and aliases: the fast reader leaves it to yaml.
    expect(left).toBeGreaterThan(0)
  })

  it('reads JSON that is an object, an empty or absent document as no sections, and leaves anything else to the full read', () => {
    const dir = folder()
    writeFileSync(join(dir, 'a.json'), '{"web-search":{"limit":3}}')
    writeFileSync(join(dir, 'list.json'), '[1]')
    writeFileSync(join(dir, 'broken.json'), '{"a":')
    writeFileSync(join(dir, 'empty.yaml'), '# nothing yet\n')
    writeFileSync(join(dir, 'big.yaml'), `a: ${'x'.repeat(200)}\n`)
    writeFileSync(join(dir, 'settings.toml'), 'a = 1\n')
    mkdirSync(join(dir, 'folder.yaml'))
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')])
    expect(readPlainData(join(dir, 'a.json'), 1000)).toEqual({ 'web-search': { limit: 3 } })
    expect(readPlainData(join(dir, 'empty.yaml'), 1000)).toEqual({})
    expect(readPlainData(join(dir, 'none.yaml'), 1000)).toEqual({})
    for (const name of ['list.json', 'broken.json', 'big.yaml', 'settings.toml', 'folder.yaml', 'fifo.yaml']) expect(readPlainData(join(dir, name), 100), name).toBeUndefined()
    expect(readPlainText(join(dir, 'none.yaml'))).toEqual({ absent: true })
  })
})
