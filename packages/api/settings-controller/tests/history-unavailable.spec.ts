/**
 * History the file provider cannot use, as the controller and its wire answer it: a write under a
 * `history/` the host cannot write is answered as written, `describe` says history is unavailable,
 * and asking for history is `settings/rejected` naming the folder; a kept version that is a
 * symlink (to a file only root may read) is `settings/rejected` for compare and restore, naming
 * it, never `internal` and never with its target's content. Against the real file provider.
 */
import { chmod, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Schema from 'schemastery'
import type { Fiber } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { plugWithSettings } from 'dsh-testing'
import { expectNoSecrets, plugController, plugProvider, plugServer, remoteFailure, rootContext } from './harness.ts'

const Search = Schema.object({ limit: Schema.number().default(10), apiKey: Schema.string().role('secret') })

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function temp(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** The file provider, the controller and the recording wire on a document that has been written once (history/ holds a version). */
async function bootFile() {
  const dir = await temp('dsh-controller-history-unavailable-')
  const path = join(dir, 'settings.yaml')
  await writeFile(path, 'search:\n  limit: 5\n  apiKey: tok-kept\n')
  const { root, logs } = rootContext()
  const { fiber: providerFiber } = await plugProvider(root, FileSettingsProvider, { path, watch: false })
  cleanups.push(() => providerFiber.dispose())
  const { controller, fiber } = await plugController(root, { opener: false, home: dir })
  cleanups.push(() => fiber.dispose())
  await plugWithSettings(root, (ctx) => ctx.settings.register('search', Search))
  const fibers: Fiber[] = []
  cleanups.push(async () => {
    for (const serverFiber of fibers) await serverFiber.dispose()
  })
  const { server } = await plugServer({ root }, fibers)
  await controller.update('search', { limit: 6 })
  const handlers = server.exposed.get('settings')!
  const request = () => ({ signal: new AbortController().signal })
  return { dir, path, controller, logs, history: join(dir, 'history'), wire: (method: string, args: unknown[]) => handlers[method]!(args, request()) }
}

describe('a history/ the host cannot write, on the wire', () => {
  it('answers a write as written, says history is unavailable in describe, and refuses history as rejected naming the folder', async () => {
    const { path, history, logs, wire } = await bootFile()
    await chmod(history, 0o555)
    cleanups.push(() => chmod(history, 0o700))
    await wire('update', ['search', { limit: 7 }])
    expect(await readFile(path, 'utf8')).toContain('limit: 7')
    const described = (await wire('describe', [])) as { writable: boolean; history: boolean }
    expect(described).toMatchObject({ writable: true, history: false })
    const refused = await remoteFailure(() => wire('history', []), 'settings/rejected')
    expect(refused.message).toContain(history)
    expect(refused.details).toMatchObject({ reason: 'SETTINGS_HISTORY_UNAVAILABLE' })
    expect(logs.filter((line) => line.type === 'warn' && line.text.includes(history))).toHaveLength(1)
    expect(logs.some((line) => line.type === 'error')).toBe(false)
  })
})

describe('a kept version that is a symlink, on the wire', () => {
  it('refuses compare and restore as rejected, naming it, without its target\'s content, and leaves the document as it was', async () => {
    const { path, history, wire, logs } = await bootFile()
    const secretDir = await temp('dsh-root-only-')
    const secret = join(secretDir, 'secret.yaml')
    await writeFile(secret, 'search:\n  apiKey: root-only-secret\n', { mode: 0o600 })
    const id = 'settings.20990101T000000000Z.deadbeef.yaml'
    await symlink(secret, join(history, id))
    const before = await readFile(path, 'utf8')
    for (const [method, args] of [
      ['compare', [id]],
      ['restore', [id]],
      ['restore', [id, { ns: 'search' }]],
      ['history', []],
    ] as const) {
      const refused = await remoteFailure(() => wire(method, [...args]), 'settings/rejected')
      expect(refused.message).toContain(join(history, id))
      expect(refused.details).toMatchObject({ reason: 'SETTINGS_HISTORY_UNSAFE' })
      expectNoSecrets({ message: refused.message, details: refused.details }, ['root-only-secret'])
    }
    expect(await readFile(path, 'utf8')).toBe(before)
    expect(logs.some((line) => line.type === 'error')).toBe(false)
  })
})
