/**
 * The editor schema across a stop: stopping the host takes every kind away (its plugins are
 * disposed, before or after the provider), and none of that may reach `settings.schema.json`, or
 * the editor flags every section of the document the user edits while the host is down. A kind
 * whose plugin is removed while the host keeps running does leave it.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { setTimeout as sleep } from 'node:timers/promises'
import { plugWithSettings } from 'dsh-testing'
import { bootFile, eventually, fileFixture } from './file-harness.ts'
import { hostFixture } from './host-process.ts'

const Search = Schema.object({ engine: Schema.union(['bing', 'google']).default('bing') })
const Theme = Schema.object({ dark: Schema.boolean().default(false) })

const fx = fileFixture()
const host = hostFixture()

/** The namespaces a schema file describes (`scopes` aside), or `undefined` while there is none. */
async function described(path: string): Promise<string[] | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  return Object.keys((JSON.parse(text) as { properties: object }).properties)
    .filter((key) => key !== 'scopes')
    .sort()
}

/** The provider with a short grace for a kind that leaves while the host runs (10 s by default). */
class QuickLeave extends FileSettingsProvider {
  protected override get kindLeaveGraceMs(): number {
    return 50
  }
}

/** Boot a provider (`provider`) with two plugins registering `search` and `theme`, once the schema describes both. */
async function bootWithTwoKinds(provider: typeof FileSettingsProvider = FileSettingsProvider) {
  const file = join(fx.dir, 'settings.yaml')
  fx.harness = await bootFile({ path: file, watch: false }, provider)
  const search = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
  const theme = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('theme', Theme))
  const schemaFile = join(fx.dir, 'settings.schema.json')
  await eventually(async () => expect(await described(schemaFile)).toEqual(['search', 'theme']))
  return { schemaFile, plugins: [search.fiber, theme.fiber], text: await readFile(schemaFile, 'utf8') }
}

describe('stopping the host', () => {
  it('keeps every kind in the editor schema when the plugins are disposed before the provider (as the loader stops)', async () => {
    const { schemaFile, plugins, text } = await bootWithTwoKinds()
    for (const fiber of [...plugins].reverse()) await fiber.dispose()
    await fx.harness!.dispose()
    fx.harness = undefined
    expect(await readFile(schemaFile, 'utf8')).toBe(text)
  })

  it('keeps every kind in the editor schema when the provider is disposed first (its dependents go with it)', async () => {
    const { schemaFile, plugins, text } = await bootWithTwoKinds()
    await fx.harness!.dispose()
    fx.harness = undefined
    for (const fiber of plugins) await fiber.dispose()
    expect(await readFile(schemaFile, 'utf8')).toBe(text)
  })

  it('keeps them also when the grace of a kind runs out while the provider is going down', async () => {
    // A provider that takes a while to stop: the kinds' short grace ends during its stop, and must see it.
    class SlowStop extends QuickLeave {
      protected override async close(): Promise<void> {
        await sleep(300)
        return super.close()
      }
    }
    const { schemaFile, plugins, text } = await bootWithTwoKinds(SlowStop)
    for (const fiber of plugins) await fiber.dispose()
    await fx.harness!.dispose()
    fx.harness = undefined
    expect(await readFile(schemaFile, 'utf8')).toBe(text)
  })
})

describe('a plugin removed while the host keeps running', () => {
  it('takes its namespace out of the editor schema once its grace ran out; the others stay', async () => {
    const { schemaFile, plugins } = await bootWithTwoKinds(QuickLeave)
    await plugins[1]!.dispose()
    await eventually(async () => expect(await described(schemaFile)).toEqual(['search']))
  })
})

describe('a real host stopped with SIGINT', () => {
  it('leaves settings.schema.json describing every namespace of the deployment', { timeout: 120_000 }, async () => {
    const dir = await host.folder()
    const started = await host.start(
      [
        '  dsh-settings-file:',
        '    path: ${DSH_TEST_DIR}/settings.yaml',
        '  dsh-example-web-search:',
        '    engine: bing',
        '  dsh-example-assistant:',
        '    model: small',
        '',
      ].join('\n'),
    )
    await started.waitFor('assistant ready')
    const schemaFile = join(dir, 'settings.schema.json')
    await eventually(async () => expect(await described(schemaFile)).toEqual(['assistant', 'web-search']))
    const before = await readFile(schemaFile, 'utf8')

    process.kill(started.child.pid!, 'SIGINT')
    expect(await started.exited).toEqual({ code: 0, signal: null })
    expect(started.stdout()).toContain('SIGINT: stopping')
    expect(await readFile(schemaFile, 'utf8')).toBe(before)
  })
})
