import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { DocumentNotAMapError } from '../src/codec/errors.ts'
import { SettingsDocumentError, settingsErrorOf, SettingsNotAMapError } from '../src/provider/errors.ts'
import { parseSettings } from '../src/codec/parse.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { bootFile, eventually, fileFixture, type FileHarness } from './file-harness.ts'

const FILE = '/home/user/.dsh/settings.yaml'

/** The refusal `parseSettings` gives `text`: a SettingsNotAMapError at `line`, `column` that quotes none of `hidden`. */
function refusal(text: string, line: number, column: number, hidden: string[] = [], format: 'yaml' | 'json' = 'yaml'): SettingsNotAMapError {
  const raised = (() => {
    try {
      return parseSettings(text, format, FILE)
    } catch (thrown) {
      return thrown
    }
  })()
  expect(raised).toBeInstanceOf(DocumentNotAMapError)
  expect(raised).toMatchObject({ name: 'DocumentNotAMapError', code: 'DOCUMENT_NOT_A_MAP', file: FILE, position: { line, column } })
  const error = settingsErrorOf(raised) as SettingsNotAMapError
  expect(error).toBeInstanceOf(SettingsNotAMapError)
  expect(error).toBeInstanceOf(SettingsDocumentError)
  expect(error).toMatchObject({ name: 'SettingsNotAMapError', code: 'SETTINGS_NOT_A_MAP', refusal: 'rejected', file: FILE, position: { line, column } })
  expect(error.message).toContain(`${FILE} is not a map of namespace sections`)
  expect(error.message).toContain(`line ${line}, column ${column}`)
  for (const text of hidden) expect(error.message).not.toContain(text)
  return error
}

describe('a YAML root that is not a map of sections', () => {
  it.each([
    ['a set', '--- !!set\n? web-search\n? sk-LEAK-1\n', 1, 5, /a map tagged !!set/],
    ['an ordered map', '--- !!omap\n- web-search: {}\n- sk-LEAK-1: 1\n', 1, 5, /a sequence tagged !!omap/],
    ['a map tagged !!str on a line of its own', '# settings\n!!str\nweb-search:\n  apiKey: sk-LEAK-1\n', 2, 1, /a map tagged !!str/],
    ['a map with a custom tag', '--- !sk-LEAK-tag\nweb-search:\n  engine: bing\n', 1, 5, /a map with a custom tag/],
    ['a map with a verbatim custom tag', '!<tag:example.com,2000:sk-LEAK> {web-search: {}}\n', 1, 1, /a map with a custom tag/],
    ['a map with a tag from a %TAG handle', '%TAG !e! tag:example.com,2000:\n--- !e!sk-LEAK\nweb-search: {}\n', 2, 5, /a map with a custom tag/],
    ['an anchored set', '--- &sk-LEAK-anchor !!set\n? a\n', 1, 21, /a map tagged !!set/],
    ['a sequence', '# a list\n  - web-search\n  - sk-LEAK-1\n', 2, 3, /its root is a sequence$|its root is a sequence,/],
    ['a flow sequence', '[web-search, sk-LEAK-1]\n', 1, 1, /a sequence/],
    ['a scalar', 'sk-LEAK-1\n', 1, 1, /a scalar/],
    ['a block scalar', '--- |\n  sk-LEAK-1\n', 1, 5, /a scalar/],
    ['a tagged null', '--- !!null\n', 1, 5, /a scalar tagged !!null/],
  ])('refuses %s, at the root, naming what it is and quoting nothing', (_, text, line, column, what) => {
    const error = refusal(text, line, column, ['sk-LEAK', 'web-search'])
    expect(error.message).toMatch(what)
  })

  it.each([
    ['untagged', 'web-search:\n  engine: bing\n'],
    ['tagged !!map', '--- !!map\nweb-search:\n  engine: bing\n'],
    ['tagged ! (which makes it a map)', '--- !\nweb-search:\n  engine: bing\n'],
    ['anchored', '--- &root\nweb-search:\n  engine: bing\n'],
  ])('reads a map root %s', (_, text) => {
    expect(parseSettings(text, 'yaml', FILE).data).toStrictEqual({ 'web-search': { engine: 'bing' } })
  })

  it.each([
    ['empty', ''],
    ['comments only', '# settings come here\n'],
    ['a --- with nothing after it', '--- \n'],
    ['a plain ~', '~\n'],
    ['a plain null with a comment', 'null # nothing yet\n'],
    ['a --- ~', '--- ~\n'],
  ])('reads a root with nothing in it (%s) as no sections', (_, text) => {
    expect(parseSettings(text, 'yaml', FILE).data).toStrictEqual({})
  })

  it.each([
    ['~\n', 'web-search:\n  engine: bing\n'],
    ['null # nothing yet\n', ' # nothing yet\nweb-search:\n  engine: bing\n'],
    ['--- ~\n', '--- \nweb-search:\n  engine: bing\n'],
    ['# mine\n~', '# mine\nweb-search:\n  engine: bing\n'],
  ])('replaces only the null token of %j when a section is added, keeping everything else', (text, expected) => {
    const rendered = renderYaml(text, parseSettings(text, 'yaml', FILE), { 'web-search': { engine: 'bing' } })
    expect(rendered).toMatchObject({ text: expected, preserved: true })
  })
})

describe('a JSON root that is not an object', () => {
  it('refuses an array or a scalar where it starts', () => {
    expect(refusal('[1, 2]', 1, 1, [], 'json').message).toMatch(/its root is an array/)
    expect(refusal('\n  "sk-LEAK-1"', 2, 3, ['sk-LEAK'], 'json').message).toMatch(/its root is a string/)
    expect(refusal('42', 1, 1, [], 'json').message).toMatch(/its root is a number/)
  })

  it('reads null as no sections', () => {
    expect(parseSettings('null', 'json', FILE).data).toStrictEqual({})
  })
})

describe('the provider and a root that is not a map', () => {
  const fx = fileFixture()
  const tagged = '--- !!set\n? web-search\n? sk-LEAK-1\n'

  async function register(h: FileHarness) {
    let scope!: { get(): { engine: string }; update(patch: { engine: string }): Promise<unknown> }
    await h.root.inject(['settings'], (ctx) => {
      scope = ctx.settings.register('web-search', Schema.object({ engine: Schema.string().default('bing') }))
    })
    return scope
  }

  it('fails the load with the refusal', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, tagged)
    const load = bootFile({ path: file, watch: false })
    await expect(load).rejects.toMatchObject({ name: 'SettingsNotAMapError', code: 'SETTINGS_NOT_A_MAP', position: { line: 1, column: 5 } })
    await expect(load).rejects.not.toThrow(/sk-LEAK/)
    expect(await readFile(file, 'utf8')).toBe(tagged)
  })

  it('keeps the last good settings when an edit makes the root a tagged one, and recovers after', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: google\n')
    fx.harness = await bootFile({ path: file, debounceMs: 20 })
    const scope = await register(fx.harness)
    await writeFile(file, tagged)
    await eventually(() => expect(fx.harness!.logs.some((line) => line.includes('NOT_A_MAP') || (line.includes('not a map') && line.includes('keeping the last good settings')))).toBe(true))
    expect(scope.get().engine).toBe('google')
    expect(fx.harness.logs.join('\n')).not.toContain('sk-LEAK')
    await writeFile(file, 'web-search:\n  engine: duckduckgo\n')
    await eventually(() => expect(scope.get().engine).toBe('duckduckgo'))
  })

  it('refuses a write over a root that is not a map, leaving every byte', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: google\n')
    fx.harness = await bootFile({ path: file, watch: false })
    const scope = await register(fx.harness)
    for (const text of [tagged, '- web-search\n- assistant\n', '!!str\nweb-search:\n  engine: google\n']) {
      await writeFile(file, text)
      await expect(scope.update({ engine: 'bing' })).rejects.toMatchObject({ code: 'SETTINGS_NOT_A_MAP', refusal: 'rejected' })
      expect(await readFile(file, 'utf8')).toBe(text)
    }
  })
})
