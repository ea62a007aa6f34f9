import { mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ensurePageBuilt, isPageFresh } from '../src/build.ts'

const parents: string[] = []
afterEach(async () => {
  for (const dir of parents.splice(0)) await rm(dir, { recursive: true, force: true })
})

describe('the page build', () => {
  it('builds when missing or stale, leaves a fresh build alone, and leaves no staging folders', { timeout: 60_000 }, async () => {
    const parent = await mkdtemp(join(tmpdir(), 'dsh-page-build-'))
    parents.push(parent)
    const out = join(parent, 'dist')
    expect(await isPageFresh(out)).toBe(false)
    expect(await ensurePageBuilt(out)).toBe(true)
    expect(await isPageFresh(out)).toBe(true)
    expect(await ensurePageBuilt(out)).toBe(false)

    const html = await readFile(join(out, 'index.html'), 'utf8')
    expect(html).toContain('<title>Settings</title>')
    // Relative asset URLs, so the page works under any base path.
    expect(html).toMatch(/src="\.\/assets\/[^"]+\.js"/)
    const scripts = (await readdir(join(out, 'assets'))).filter((name) => name.endsWith('.js'))
    for (const name of scripts) {
      const code = await readFile(join(out, 'assets', name), 'utf8')
      // The page never revives a schema envelope, and carries nothing from Node.
      expect(code).not.toMatch(/new Function|from\s*["']node:/)
    }

    // A build older than its sources is rebuilt.
    await utimes(join(out, 'index.html'), new Date(0), new Date(0))
    expect(await isPageFresh(out)).toBe(false)
    expect(await ensurePageBuilt(out)).toBe(true)
    expect(await readdir(parent)).toEqual(['dist'])
  })
})
