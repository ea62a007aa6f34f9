/**
 * A page a plugin offers (`remoteServer.offerPage`, as dsh-settings-controller
 * offers the settings page): served at `/` while the plugin lives when no
 * `static` is configured, never over a configured one or an earlier offer, and
 * gone with the plugin that offered it.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { raw, startServer, tempDir, type LiveServer } from './harness.ts'

let dir: string
let live: LiveServer | undefined

beforeEach(async () => {
  dir = await tempDir('dsh-remote-offered-')
  for (const name of ['offered', 'second', 'configured']) {
    await mkdir(join(dir, name))
    await writeFile(join(dir, name, 'index.html'), `<!doctype html><title>${name}</title>`)
  }
})

afterEach(async () => {
  await live?.cleanup()
  live = undefined
  await rm(dir, { recursive: true, force: true })
})

/** Plug a plugin that offers `folder`; resolves with its fiber and whether the offer was taken. */
async function offer(root: Context, folder: string) {
  let served: boolean | undefined
  const fiber = root.plugin({
    inject: ['remoteServer'],
    apply(ctx: Context) {
      served = ctx.remoteServer.offerPage(join(dir, folder))
    },
  })
  await fiber
  return { fiber, served }
}

const title = async (server: LiveServer) => {
  const response = await raw(server, '/')
  return response.status === 200 ? /<title>(\w+)<\/title>/.exec(response.body)?.[1] : response.status
}

describe('a page a plugin offers', () => {
  it('is served at / while the plugin lives, the first offer only, and goes with its plugin', async () => {
    live = await startServer()
    expect(await title(live)).toBe(404)
    const first = await offer(live.root, 'offered')
    expect(first.served).toBe(true)
    expect(await title(live)).toBe('offered')
    expect(live.logs.some((log) => log.text.startsWith('page and API:') && log.text.includes(`${live!.url}/#token=`))).toBe(true)
    const second = await offer(live.root, 'second')
    expect(second.served).toBe(false)
    expect(await title(live)).toBe('offered')
    await first.fiber.dispose()
    expect(await title(live)).toBe(404)
  })

  it('never replaces a configured static folder', async () => {
    live = await startServer({ static: join(dir, 'configured') })
    const offered = await offer(live.root, 'offered')
    expect(offered.served).toBe(false)
    expect(await title(live)).toBe('configured')
  })
})
