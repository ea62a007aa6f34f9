/**
 * The settings page found by package resolution: with `dsh-settings-page-assets`
 * installed (it is, in this workspace), the controller offers its folder to the
 * remote server, which serves it at `/` with no `static` setting; `page: false`
 * opts out, and a configured `static` folder wins.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Fiber } from 'cordis'
import RemoteServer from 'dsh-remote'
import { PAGE_ASSETS } from 'dsh-settings-page-assets'
import { afterEach, describe, expect, it } from 'vitest'
import { plugController, rootContext, tempDir } from './harness.ts'

const started: { fibers: Fiber[]; cleanup: () => Promise<void> }[] = []
afterEach(async () => {
  for (const run of started.splice(0)) {
    for (const fiber of run.fibers.reverse()) await fiber.dispose()
    await run.cleanup()
  }
})

/** A remote server (port 0, temp home) and the controller; answers the server's URL and the logs. */
async function boot(remote: Record<string, unknown>, controller: Record<string, unknown> = {}) {
  const { dir, cleanup } = await tempDir()
  const { root, logs } = rootContext()
  const server = root.plugin(RemoteServer, { port: 0, home: dir, ...remote })
  await server
  const { fiber } = await plugController(root, { home: dir, opener: false, ...controller })
  started.push({ fibers: [server, fiber], cleanup })
  let url = ''
  await root.inject(['remoteServer'], (ctx) => void (url = ctx.remoteServer.url))
  // The offer runs once the controller's remote fiber imported the package.
  await new Promise((done) => setTimeout(done, 50))
  return { url, logs, dir }
}

/** What `/` answers: 200, or the refusal's message. */
async function root(url: string): Promise<string> {
  const response = await fetch(`${url}/`)
  if (response.ok) return 'page'
  return ((await response.json()) as { error: { message: string } }).error.message
}

describe('the settings page by package resolution', () => {
  it('is offered to the server, which serves the assets folder at /', async () => {
    const { url, logs } = await boot({})
    await expect.poll(() => logs.some((line) => line.text.startsWith('page and API:') && line.text.includes(url) && line.text.includes(PAGE_ASSETS))).toBe(true)
    // Built or not (pnpm start builds it), the folder is the one served: never "this server serves no page".
    expect(await root(url)).not.toBe('this server serves no page')
  })

  it('is not offered with page: false, and never over a configured static folder', async () => {
    const off = await boot({}, { page: false })
    expect(await root(off.url)).toBe('this server serves no page')
    const { dir, cleanup } = await tempDir()
    started.push({ fibers: [], cleanup })
    await mkdir(join(dir, 'page'))
    await writeFile(join(dir, 'page', 'index.html'), '<!doctype html><title>own</title>')
    const own = await boot({ static: join(dir, 'page') })
    expect(await (await fetch(`${own.url}/`)).text()).toContain('<title>own</title>')
    expect(own.logs.some((line) => line.text.includes('(the page from'))).toBe(false)
  })
})
