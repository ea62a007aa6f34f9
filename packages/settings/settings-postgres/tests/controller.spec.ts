import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { RemoteError } from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import { plugWithSettings } from 'dsh-testing'
import { TEST_PASSWORD } from 'dsh-testing/postgres'
import { bootHost, freshPrefix, HAVE_POSTGRES, useServer, type Host } from './harness.ts'

const holder = useServer()
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A host with the controller plugged, as a configuration page reaches it. */
async function withController(): Promise<{ host: Host; controller: SettingsController }> {
  const home = await mkdtemp(join(tmpdir(), 'dsh-pg-controller-'))
  cleanups.push(() => rm(home, { recursive: true, force: true }))
  const host = await bootHost({ url: holder.server.url(), table: freshPrefix(), recheckMs: 0, timeoutMs: 1500 })
  cleanups.push(() => host.dispose())
  await host.root.plugin(SettingsController, { home, opener: false })
  await plugWithSettings(host.root, (ctx) => ctx.settings.register('demo', Schema.object({ size: Schema.number().default(1) })))
  let controller!: SettingsController
  await host.root.inject(['settingsController'], (ctx) => {
    controller = ctx.settingsController
  })
  return { host, controller }
}

describe.runIf(HAVE_POSTGRES)('the controller over PostgreSQL', () => {
  it('reports no local document to open, and a writable store', async () => {
    const { controller } = await withController()
    const described = controller.describe()
    expect(described.document).toBe(false)
    expect(described.writable).toBe(true)
  })

  it('answers settings/unavailable, naming the database without its password, while the server is down', async () => {
    const { controller } = await withController()
    await controller.update('demo', { size: 2 })
    await holder.server.halt()
    try {
      const failure = await controller.update('demo', { size: 3 }).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(failure).toBeInstanceOf(RemoteError)
      expect(failure).toMatchObject({ code: 'settings/unavailable' })
      const wire = JSON.stringify((failure as RemoteError).toJSON())
      expect(wire).toContain(`127.0.0.1:${holder.server.port}/postgres`)
      expect(wire).not.toContain(TEST_PASSWORD)
      expect(controller.describe().namespaces.find((view) => view.ns === 'demo')?.value).toEqual({ size: 2 })
    } finally {
      await holder.server.start()
    }
  }, 30_000)
})
