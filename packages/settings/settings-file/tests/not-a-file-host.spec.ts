/**
 * A real FIFO at the document path of a real host (`scripts/start.ts` with the file provider, the
 * remote API and the settings controller, in a child process): swapped in while it runs, and there
 * at boot. The host keeps answering HTTP, a write through the API is refused with the reason,
 * reload warns once, and SIGTERM stops it cleanly.
 */
import { execFileSync } from 'node:child_process'
import { lstatSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { eventually } from 'dsh-testing'
import { describe, expect, it } from 'vitest'
import { hostFixture } from './host-process.ts'

const host = hostFixture()

const PLUGINS = [
  '  dsh-settings-file:',
  '    path: ${DSH_TEST_DIR}/settings.yaml',
  '    debounceMs: 20',
  '    recheckMs: 50',
  '  dsh-remote:',
  '    port: 0',
  '  dsh-settings-controller: {}',
  '  dsh-example-web-search:',
  '    engine: bing',
  '',
].join('\n')

/** How many lines of `text` warn that the document is a FIFO. */
const fifoWarnings = (text: string) => text.split('\n').filter((line) => line.includes('is a FIFO, not a regular file')).length

describe('a FIFO at the document path of a running host', () => {
  it('swapped in: the host keeps serving, warns once, refuses a write with the reason, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    const dir = await host.folder()
    const document = join(dir, 'settings.yaml')
    await writeFile(document, 'web-search:\n  limit: 3\n')
    const started = await host.start(PLUGINS)
    await started.waitFor('web-search ready: engine=bing limit=3')
    const before = await started.call('settings', 'describe', [])
    expect(before.status).toBe(200)

    execFileSync('mkfifo', [join(dir, 'incoming')])
    await rename(join(dir, 'incoming'), document)
    await started.waitFor('is a FIFO, not a regular file')

    // Still serving, with the last good settings.
    const after = await started.call('settings', 'describe', [])
    expect(after.status).toBe(200)
    expect(JSON.stringify(after.body)).toContain('"limit":3')
    // A write is refused with the reason, naming the document.
    const write = await started.call('settings', 'update', ['web-search', { limit: 4 }])
    expect(write.status).toBeGreaterThanOrEqual(400)
    expect(write.status).toBeLessThan(500)
    expect(write.body).toMatchObject({ error: { code: 'settings/rejected', message: expect.stringContaining(`${document} is a FIFO`), details: { reason: 'SETTINGS_NOT_A_FILE' } } })
    // Later re-checks add no warning: a write and a describe later, still one.
    expect((await started.call('settings', 'describe', [])).status).toBe(200)
    expect(fifoWarnings(started.stdout())).toBe(1)

    process.kill(started.child.pid!, 'SIGTERM')
    expect(await started.exited).toEqual({ code: 0, signal: null })
    expect(started.stdout()).toContain('SIGTERM: stopping')
  })

  it('at boot: the host logs the refusal naming the path, keeps serving, and stops on SIGTERM', { timeout: 120_000 }, async () => {
    const dir = await host.folder()
    const document = join(dir, 'settings.yaml')
    execFileSync('mkfifo', [document])
    const started = await host.start(PLUGINS)
    await started.waitFor(`${document} is a FIFO, not a regular file`)
    await started.remote()
    // The API answers; the settings service is not there (its provider failed to load), which it says.
    // The server prints its address before the controller has put `settings` on it: until then it is not found.
    await eventually(async () => {
      const describe = await started.call('settings', 'describe', [])
      expect(describe).toMatchObject({ status: 503, body: { error: { code: 'settings/unavailable' } } })
    })

    process.kill(started.child.pid!, 'SIGTERM')
    expect(await started.exited).toEqual({ code: 0, signal: null })
    // Nothing was written over the FIFO.
    expect(lstatSync(document).isFIFO()).toBe(true)
  })
})
