/**
 * The corpus of published Configs (dsh-testing/corpus) through the YAML file
 * provider: every plugin registered on one document, its realistic section
 * written through the seam and read back by a host started afterwards; the
 * plugins that need setup named in the editor schema; the editor schema's
 * descriptions in the deployment's locale.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { editorSchemaPath } from '../src/provider/editor-schema.ts'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const fx = fileFixture()
const entries = corpusEntries()

/** Plug every corpus plugin as its author wrote it; those needing setup wait. */
async function plugAll(harness: FileHarness): Promise<void> {
  for (const entry of entries) {
    const fiber = harness.root.plugin({ inject: ['settings'], apply: (ctx: Context) => void ctx.settings.register(entry.ns, corpusSchema(entry)) })
    await fiber.await().catch(() => {})
  }
  await eventually(() => expect(harness.settings.describe().length).toBe(entries.length))
}

describe('the corpus through the file provider', () => {
  it('writes every plugin’s section to YAML and a host started afterwards reads each back as written', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false, secrets: 'inline' })
    await plugAll(fx.harness)
    const written = new Map<string, Record<string, unknown>>()
    for (const entry of entries) {
      const { section } = sampleSection(corpusSchema(entry), { optional: true, secretPrefix: `yaml-${entry.ns}` })
      await fx.harness.settings.replace(entry.ns, section)
      written.set(entry.ns, section)
    }
    expect(fx.harness.settings.describe().filter((view) => view.needsSetup)).toEqual([])
    await fx.harness.dispose()
    fx.harness = undefined

    const text = await readFile(file, 'utf8')
    const document = parse(text) as Record<string, unknown>
    for (const [ns, section] of written) expect(document[ns], ns).toEqual(section)

    fx.harness = await bootFile({ path: file, watch: false, secrets: 'inline' })
    await plugAll(fx.harness)
    for (const view of fx.harness.settings.describe()) {
      expect(view.user, view.ns).toEqual(written.get(view.ns))
      expect(view.problem, view.ns).toBeUndefined()
    }
  })

  it('names every plugin in the editor schema, those waiting for setup too, with descriptions in the locale asked for', async () => {
    for (const locale of ['zh-CN', 'en-US']) {
      const file = join(fx.dir, `${locale}.yaml`)
      const harness = await bootFile({ path: file, watch: false, locale })
      try {
        await plugAll(harness)
        const schemaFile = editorSchemaPath(file)
        await eventually(async () => expect(Object.keys(JSON.parse(await readFile(schemaFile, 'utf8')).properties)).toHaveLength(entries.length + 1))
        const schema = await readFile(schemaFile, 'utf8')
        // chatluna describes its fields as { zh-CN, en-US }: the schema carries one language only.
        const chatluna = JSON.stringify(JSON.parse(schema).$defs.chatluna)
        const chinese = (chatluna.match(/[\u4e00-\u9fff]/g) ?? []).length
        if (locale === 'zh-CN') expect(chinese).toBeGreaterThan(200)
        else expect(chinese).toBeLessThan(50)
      } finally {
        await harness.dispose()
      }
    }
  })
})
