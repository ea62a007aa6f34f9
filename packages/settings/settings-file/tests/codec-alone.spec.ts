/**
 * The codec stands alone: a child process in which `dsh-settings` cannot be
 * resolved (by name or by path, see children/without-seam.mjs) imports
 * `dsh-settings-file/codec`, parses, renders byte-stably and meets each of the
 * codec's refusals as its own plain error. The store and the quick-read faces
 * load there too; the root face, which is the settings provider, does not,
 * which shows the block works.
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Run children/codec-alone.ts importing `face` without dsh-settings: its exit code, stdout and stderr. */
function runAlone(face: string): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--import', './tests/children/without-seam.mjs', 'tests/children/codec-alone.ts', face],
    { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk))
  child.stderr.on('data', (chunk: Buffer) => (err += chunk))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

describe('the codec without dsh-settings', () => {
  it('parses, edits in place and refuses with its own errors', async () => {
    const { code, out, err } = await runAlone('dsh-settings-file/codec')
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(out)).toStrictEqual({
      data: { 'web-search': { engine: 'bing' } },
      text: '# kept\nweb-search:\n  engine: ddg # kept too\n',
      refusals: {
        syntax: { name: 'DocumentError', code: 'DOCUMENT_INVALID', isError: true },
        root: { name: 'DocumentNotAMapError', code: 'DOCUMENT_NOT_A_MAP', isError: true },
        size: { name: 'DocumentTooLargeError', code: 'DOCUMENT_TOO_LARGE', isError: true },
        hold: { name: 'DocumentCannotHoldError', code: 'DOCUMENT_CANNOT_HOLD', isError: true },
      },
    })
  })

  it.each(['dsh-settings-file/store', 'dsh-settings-file/fast-read'])('loads %s too', async (face) => {
    const { code, out } = await runAlone(face)
    expect(code).toBe(0)
    expect(JSON.parse(out).loaded).toBeGreaterThan(0)
  })

  it('cannot load the settings provider itself there, which needs the seam', async () => {
    const { code, err } = await runAlone('dsh-settings-file')
    expect(code).not.toBe(0)
    expect(err).toContain('dsh-settings is not available here')
  })
})
