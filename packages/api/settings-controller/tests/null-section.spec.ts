/**
 * A real settings.yaml whose sections the user emptied by commenting out every field
 * (`web-search:` alone, `assistant: ~`, a scope's section left empty) boots both example
 * plugins, describes without a problem, and the page repairs it with the writes it always sends.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { plugController, plugProvider, registerKind, rootContext, tempDir } from './harness.ts'

/** The example plugins' settings (packages/examples/*): the shapes that failed to start. */
const WebSearch = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo'),
  limit: Schema.natural().max(50).default(10),
  safeSearch: Schema.object({ enabled: Schema.boolean().default(true), level: Schema.union(['moderate', 'strict']).default('moderate') }),
  apiKey: Schema.string().role('secret'),
})
const Assistant = Schema.object({
  model: Schema.string().default('small'),
  providers: Schema.dict(Schema.object({ baseUrl: Schema.string().required(), apiKey: Schema.string().role('secret') })),
})

const YAML = `# my settings
web-search:
  # engine: google
  # limit: 3
assistant: ~
scopes:
  preset/coder:
    web-search:
`

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function bootFile(text: string) {
  const home = await tempDir()
  cleanups.push(home.cleanup)
  const path = join(home.dir, 'settings.yaml')
  await writeFile(path, text)
  const { root, logs } = rootContext()
  const fibers: Fiber[] = []
  cleanups.push(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  const { fiber } = await plugProvider(root, FileSettingsProvider, { path, watch: false })
  fibers.push(fiber)
  const { controller, fiber: controllerFiber } = await plugController(root, { opener: false, home: home.dir })
  fibers.push(controllerFiber)
  fibers.push(await registerKind(root, 'web-search', WebSearch, { base: { limit: 20 } }))
  fibers.push(await registerKind(root, 'assistant', Assistant))
  fibers.push(await registerKind(root, 'web-search', WebSearch, undefined, 'preset/coder'))
  return { controller, path, logs }
}

describe('empty sections in a real settings.yaml', () => {
  it('boot both examples from defaults and base, and describe without a problem', async () => {
    const { controller, logs } = await bootFile(YAML)
    const global = controller.describe().namespaces
    expect(global.map((view) => [view.ns, view.problem])).toEqual([['web-search', undefined], ['assistant', undefined]])
    expect(global[0]!.value).toMatchObject({ engine: 'duckduckgo', limit: 20 })
    expect(global[1]!.value).toEqual({ model: 'small', providers: {} })
    const [scoped] = controller.describe('preset/coder').namespaces
    expect(scoped).toMatchObject({ ns: 'web-search', registered: true, value: { engine: 'duckduckgo', limit: 10 } })
    expect(scoped!.problem).toBeUndefined()
    expect(logs.filter((line) => line.type === 'warn' || line.type === 'error')).toEqual([])
  })

  it('take the page\'s writes: a mutate and an update over the empty sections, global and scoped', async () => {
    const { controller, path } = await bootFile(YAML)
    const [view] = controller.describe().namespaces
    const written = await controller.mutate('web-search', [{ op: 'set', path: ['engine'], value: 'google' }], view!.revision)
    expect(written.value).toMatchObject({ engine: 'google', limit: 20 })
    await controller.update('assistant', { model: 'large' })
    const [scoped] = controller.describe('preset/coder').namespaces
    await controller.mutate('web-search', [{ op: 'set', path: ['safeSearch', 'level'], value: 'strict' }], scoped!.revision, 'preset/coder')
    expect(controller.describe('preset/coder').namespaces[0]!.value).toMatchObject({ engine: 'google', safeSearch: { level: 'strict' } })
    const text = await readFile(path, 'utf8')
    expect(text).toContain('# my settings')
    expect(text).toContain('# limit: 3')
    expect(text).toMatch(/web-search:\n(.*\n)*\s+engine: google/)
    expect(text).toMatch(/assistant:\s*\n\s+model: large/)
  })
})
