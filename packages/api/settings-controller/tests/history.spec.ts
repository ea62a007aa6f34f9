import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { plugWithSettings } from 'dsh-testing'
import { RemoteError } from '../src/index.ts'
import { plugController, plugProvider, rootContext } from './harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google', 'ddg']).default('bing'),
  limit: Schema.number().default(10),
  apiKey: Schema.string().role('secret'),
})

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function bootFile() {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-controller-history-'))
  cleanups.push(() => rm(dir, { recursive: true, force: true }))
  const path = join(dir, 'settings.yaml')
  await writeFile(path, 'search:\n  limit: 5\n  apiKey: tok-first\nscopes:\n  preset/coder:\n    search:\n      engine: ddg\n')
  const { root } = rootContext()
  const { fiber: providerFiber } = await plugProvider(root, FileSettingsProvider, { path, watch: false })
  cleanups.push(() => providerFiber.dispose())
  const { controller, fiber } = await plugController(root, { opener: false, home: dir })
  cleanups.push(() => fiber.dispose())
  await plugWithSettings(root, (ctx) => ctx.settings.register('search', Search))
  return { controller, path }
}

/** Everything a wire answer holds, as text, to search for secrets. */
const text = (value: unknown) => JSON.stringify(value)

describe('history on the wire', () => {
  it('says whether the provider keeps history in describe', async () => {
    const { controller } = await bootFile()
    expect(controller.describe().history).toBe(true)
    const { root } = rootContext()
    const { fiber } = await plugProvider(root, MemorySettingsProvider, {})
    cleanups.push(() => fiber.dispose())
    const { controller: memory, fiber: controllerFiber } = await plugController(root, { opener: false })
    cleanups.push(() => controllerFiber.dispose())
    expect(memory.describe().history).toBe(false)
    await expect(memory.history()).rejects.toMatchObject({ code: 'settings/rejected' })
  })

  it('lists versions, compares one with the current document without any secret, and restores it as a normal write that is itself kept', async () => {
    const { controller, path } = await bootFile()
    await controller.update('search', { engine: 'google', apiKey: 'tok-second' })
    await controller.update('search', { limit: 7 })
    const { versions } = await controller.history()
    expect(versions.map((version) => version.by)).toEqual([['wire'], ['unknown']])
    const oldest = versions.at(-1)!
    const compared = await controller.compare(oldest.id)
    expect(compared.sections).toEqual([
      {
        ns: 'search',
        fields: [
          { path: ['apiKey'], change: 'changed', secret: true },
          { path: ['engine'], change: 'set', after: 'google' },
          { path: ['limit'], change: 'changed', before: 5, after: 7 },
        ],
      },
    ])
    expect(text(compared)).not.toMatch(/tok-/)
    expect(text(versions)).not.toMatch(/tok-/)

    const restored = await controller.restore(oldest.id)
    expect(restored).toEqual({ restored: [{ ns: 'search' }], skipped: [] })
    // The restored secret is a value this write sets: it goes to secrets.yaml, the document holds the reference.
    expect(await readFile(path, 'utf8')).toContain('apiKey: !secret search.apiKey')
    expect(await readFile(path, 'utf8')).not.toMatch(/tok-/)
    expect(await readFile(join(dirname(path), 'secrets.yaml'), 'utf8')).toBe('search.apiKey: tok-first\n')
    expect(controller.describe().namespaces.find((view) => view.ns === 'search')?.value).toMatchObject({ limit: 5, engine: 'bing' })
    // The restore is a write like any other: the version it replaced is kept, and can be restored in turn.
    const after = (await controller.history()).versions
    expect(after).toHaveLength(3)
    expect(after[0]!.by).toEqual(['wire'])
    await controller.restore(after[0]!.id)
    expect(controller.describe().namespaces.find((view) => view.ns === 'search')?.value).toMatchObject({ limit: 7, engine: 'google' })
  })

  it('restores one section with a revision check, leaving the others', async () => {
    const { controller } = await bootFile()
    await controller.update('search', { limit: 8 }, undefined, 'preset/coder')
    await controller.update('search', { limit: 9 })
    const [newest] = (await controller.history()).versions
    const revision = controller.describe('preset/coder').namespaces.find((view) => view.ns === 'search')!.revision
    await expect(controller.restore(newest!.id, { ns: 'search', scope: 'preset/coder', expectedRevision: revision + 1000 })).rejects.toMatchObject({ code: 'settings/conflict' })
    await controller.restore(newest!.id, { ns: 'search', scope: 'preset/coder', expectedRevision: revision })
    // The kept version is the one before `limit: 9`: it held the scoped `limit: 8`, so the scope keeps it; the global section is untouched.
    expect(controller.describe('preset/coder').namespaces.find((view) => view.ns === 'search')?.user).toEqual({ engine: 'ddg', limit: 8 })
    expect(controller.describe().namespaces.find((view) => view.ns === 'search')?.value).toMatchObject({ limit: 9 })
  })

  it('refuses malformed calls and unknown versions with clear codes', async () => {
    const { controller } = await bootFile()
    await expect(controller.compare(42 as never)).rejects.toBeInstanceOf(RemoteError)
    await expect(controller.compare('settings.20990101T000000000Z.00000000.yaml')).rejects.toMatchObject({ code: 'settings/rejected' })
    await expect(controller.restore('x', [] as never)).rejects.toMatchObject({ code: 'settings/invalid' })
    await expect(controller.history({ before: 7 } as never)).rejects.toMatchObject({ code: 'settings/invalid' })
    await controller.update('search', { limit: 6 })
    const [newest] = (await controller.history()).versions
    await expect(controller.restore(newest!.id, { scope: 'preset/coder' })).rejects.toMatchObject({ code: 'settings/invalid' })
  })
})
