import { readFile, readdir, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import Ajv2020 from 'ajv/dist/2020.js'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { plugWithSettings } from 'dsh-testing'
import { JSON_SCHEMA_EXTRA_KEYWORDS } from 'dsh-settings/json-schema'
import { EditorSchemaWriter, editorSchemaPath, hasSchemaModeline, schemaModeline } from '../src/provider/editor-schema.ts'
import { currentOwner } from '../src/store/owner.ts'
import FileSettingsProvider from 'dsh-settings-file'
import { bootFile, eventually, fileFixture } from './file-harness.ts'

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing').description('Which engine answers.'),
  limit: Schema.natural().max(50).default(10),
  apiKey: Schema.string().role('secret').default('default-secret-never-written'),
})
const Theme = Schema.object({ dark: Schema.boolean().default(false) })

const fx = fileFixture()

/** The provider with a short grace for a kind that leaves while the host runs (10 s by default). */
class QuickLeave extends FileSettingsProvider {
  protected override get kindLeaveGraceMs(): number {
    return 50
  }
}

/** The schema the provider wrote, compiled by ajv as the language server would read it. */
async function compiled(path: string) {
  const ajv = new Ajv2020({ strict: true })
  for (const keyword of JSON_SCHEMA_EXTRA_KEYWORDS) ajv.addKeyword(keyword)
  return ajv.compile(JSON.parse(await readFile(path, 'utf8')))
}

/** Where the YAML language server looks for a document's schema: its modeline, resolved from the document's folder. */
function modelineTarget(document: string, text: string): string | undefined {
  const match = /^#\s*yaml-language-server:\s*\$schema=(\S+)/m.exec(text)
  return match ? resolve(dirname(document), match[1]!) : undefined
}

describe('the editor schema beside the document', () => {
  it('is written when kinds register, says what each namespace holds, and follows a kind that leaves', async () => {
    const file = join(fx.dir, 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false }, QuickLeave)
    await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    const { fiber } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('theme', Theme))
    const schemaFile = join(fx.dir, 'settings.schema.json')
    await eventually(async () => expect(Object.keys(JSON.parse(await readFile(schemaFile, 'utf8')).properties)).toEqual(expect.arrayContaining(['search', 'theme', 'scopes'])))
    const text = await readFile(schemaFile, 'utf8')
    expect(text).toContain('Which engine answers.')
    expect(text).not.toContain('default-secret-never-written')
    const validate = await compiled(schemaFile)
    // What the seam accepts, the schema accepts; a type error the seam refuses, it refuses too.
    expect(validate(parse('search:\n  engine: google\n  limit: 20\ntheme:\n  dark: true\nscopes:\n  preset/coder:\n    search:\n      limit: 3\n'))).toBe(true)
    expect(validate(parse('search:\n  limit: 500\n'))).toBe(false)
    expect(validate(parse('search:\n  engine: altavista\n'))).toBe(false)
    expect(validate(parse('serach:\n  limit: 1\n'))).toBe(false)
    await fiber.dispose()
    await eventually(async () => expect(Object.keys(JSON.parse(await readFile(schemaFile, 'utf8')).properties).sort()).toEqual(['scopes', 'search']))
  })

  it('is where the modeline of a new document points, and the language server finds it there', async () => {
    const file = join(fx.dir, 'home', 'settings.yaml')
    fx.harness = await bootFile({ path: file, watch: false })
    const { value: search } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    await search.update({ engine: 'google' })
    const text = await readFile(file, 'utf8')
    expect(text.split('\n')[0]).toBe(schemaModeline(file))
    expect(modelineTarget(file, text)).toBe(editorSchemaPath(file))
    await eventually(async () => expect((await compiled(editorSchemaPath(file)))(parse(text))).toBe(true))
  })

  it('leaves an existing document’s bytes alone unless asked, and adds the modeline once when asked', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, '# mine\nsearch:\n  limit: 5 # keep\n')
    fx.harness = await bootFile({ path: file, watch: false })
    const { value: search } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    await search.update({ limit: 6 })
    expect(await readFile(file, 'utf8')).toBe('# mine\nsearch:\n  limit: 6 # keep\n')
    await fx.harness.dispose()
    fx.harness = await bootFile({ path: file, watch: false, schemaModeline: true })
    const { value: again } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    await again.update({ limit: 7 })
    await again.update({ limit: 8 })
    const text = await readFile(file, 'utf8')
    expect(text).toBe(`${schemaModeline(file)}\n# mine\nsearch:\n  limit: 8 # keep\n`)
    expect(hasSchemaModeline(text)).toBe(true)
  })

  it('writes no modeline into JSON, and nothing at all with editorSchema: false', async () => {
    const json = join(fx.dir, 'settings.json')
    fx.harness = await bootFile({ path: json, watch: false })
    const { value } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    await value.update({ limit: 2 })
    expect(JSON.parse(await readFile(json, 'utf8'))).toEqual({ search: { limit: 2 } })
    await eventually(async () => expect(await readdir(fx.dir)).toContain('settings.schema.json'))
    await fx.harness.dispose()
    const yamlFile = join(fx.dir, 'off', 'settings.yaml')
    fx.harness = await bootFile({ path: yamlFile, watch: false, editorSchema: false })
    const { value: off } = await plugWithSettings(fx.harness.root, (ctx) => ctx.settings.register('search', Search))
    await off.update({ limit: 3 })
    await fx.harness.dispose()
    fx.harness = undefined
    expect(await readFile(yamlFile, 'utf8')).toBe('search:\n  limit: 3\n')
    expect((await readdir(dirname(yamlFile))).sort()).toEqual(['history', 'settings.yaml'])
  })
})

describe('EditorSchemaWriter, a burst of registrations', () => {
  it('compares the kinds once per burst (not once per registration) and writes every kind of it', async () => {
    const document = join(fx.dir, 'burst.yaml')
    const kinds: { ns: string; schema: typeof Theme }[] = []
    let asked = 0
    const writer = new EditorSchemaWriter(
      document,
      () => {
        asked++
        return kinds
      },
      (error) => {
        throw error
      },
      { owner: currentOwner(), stopping: () => false, delayMs: 1 },
    )
    // 2,000 kinds arrive one by one, each telling the writer, within one turn of the event loop.
    for (let index = 0; index < 2000; index++) {
      kinds.push({ ns: `plugin-${index}`, schema: Theme })
      writer.schedule()
    }
    expect(asked).toBe(0)
    await Promise.resolve()
    expect(asked).toBe(1)
    await writer.close()
    const written = JSON.parse(await readFile(editorSchemaPath(document), 'utf8'))
    expect(Object.keys(written.properties).filter((key) => key.startsWith('plugin-'))).toHaveLength(2000)
  })

  it('still writes a burst that close() interrupts before the comparison ran', async () => {
    const document = join(fx.dir, 'closing.yaml')
    const writer = new EditorSchemaWriter(document, () => [{ ns: 'late', schema: Theme }], (error) => {
      throw error
    }, { owner: currentOwner(), stopping: () => false })
    writer.schedule()
    await writer.close()
    expect(Object.keys(JSON.parse(await readFile(editorSchemaPath(document), 'utf8')).properties)).toContain('late')
  })
})
