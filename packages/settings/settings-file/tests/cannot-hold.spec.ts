/**
 * Data a YAML document cannot hold is refused as SETTINGS_DOCUMENT_CANNOT_HOLD,
 * naming its place and never its value, with nothing written. yaml holds every
 * JSON value the seam lets through (`<<` keys and long keys included, see
 * limits.spec.ts), so the renderer is made to fail here on purpose: values
 * holding a marker make the in-place editor give up and the fresh rendering
 * either read back otherwise or not parse.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Schema from 'schemastery'
import { describe, expect, it, vi } from 'vitest'
import { SettingsStoreError } from 'dsh-settings'
import type { DocumentEdit } from '../src/codec/diff.ts'
import { DocumentCannotHoldError } from '../src/codec/errors.ts'
import { SettingsDocumentCannotHoldError, settingsErrorOf } from '../src/provider/errors.ts'
import { parseSettings } from '../src/codec/parse.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { bootFile, fileFixture } from './file-harness.ts'

/** Rendered, a value holding this reads back with it replaced. */
const ALTERED = 'sk-LEAK-ALTERED'
/** Rendered, a value holding this does not parse. */
const BROKEN = 'sk-LEAK-BROKEN'

const holdsMarker = (value: unknown) => JSON.stringify(value).includes(ALTERED) || JSON.stringify(value).includes(BROKEN)

vi.mock('../src/codec/yaml-edit.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/codec/yaml-edit.ts')>()
  class YamlEditor extends actual.YamlEditor {
    private readonly nextValue: unknown
    constructor(...args: ConstructorParameters<typeof actual.YamlEditor>) {
      super(...args)
      this.nextValue = args[2]
    }
    override apply(edits: readonly DocumentEdit[]): string {
      if (holdsMarker(this.nextValue)) throw new Error('the in-place editor gives up')
      return super.apply(edits)
    }
  }
  return { ...actual, YamlEditor }
})

vi.mock('../src/codec/render.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/codec/render.ts')>()
  return {
    ...actual,
    toYaml: (value: unknown, options: Parameters<typeof actual.toYaml>[1]) => {
      const text = actual.toYaml(value, options)
      if (JSON.stringify(value).includes(BROKEN)) return `${text}broken: [unclosed\n`
      return text.replaceAll(ALTERED, 'something else')
    },
  }
})

const FILE = '/home/user/.dsh/settings.yaml'

/** The error `renderYaml` throws for writing `next` over `text`. */
function refusal(text: string, next: Record<string, unknown>): SettingsDocumentCannotHoldError {
  const parsed = parseSettings(text, 'yaml', FILE)
  let caught: unknown
  try {
    renderYaml(text, parsed, next, FILE)
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(DocumentCannotHoldError)
  expect(caught).toMatchObject({ name: 'DocumentCannotHoldError', code: 'DOCUMENT_CANNOT_HOLD', file: FILE })
  expect((caught as Error).message).not.toContain('sk-LEAK')
  caught = settingsErrorOf(caught)
  expect(caught).toBeInstanceOf(SettingsDocumentCannotHoldError)
  const error = caught as SettingsDocumentCannotHoldError
  expect(error).toBeInstanceOf(SettingsStoreError)
  expect(error).toMatchObject({ name: 'SettingsDocumentCannotHoldError', code: 'SETTINGS_DOCUMENT_CANNOT_HOLD', refusal: 'rejected', file: FILE, store: FILE })
  expect(error.message).not.toContain('sk-LEAK')
  expect(error.message).toMatch(/written as YAML it does not read back the same; nothing was written$/)
  return error
}

describe('renderYaml: the place a fresh rendering does not hold', () => {
  it('names the first place that reads back otherwise, inside its section', () => {
    const error = refusal('web-search:\n  engine: bing\n', { 'web-search': { engine: 'bing', nested: { ok: 1, bad: ALTERED } } })
    expect(error).toMatchObject({ ns: 'web-search', path: ['nested', 'bad'], documentPath: ['web-search', 'nested', 'bad'] })
    expect(error.scope).toBeUndefined()
    expect(error.message).toBe(`settings document ${FILE} cannot hold the value at $.nested.bad of section "web-search": written as YAML it does not read back the same; nothing was written`)
  })

  it('names a scoped section with its scope, and list items by index', () => {
    const error = refusal('', { scopes: { 'preset/coder': { 'web-search': { list: [1, { 'odd key': ALTERED }] } } } })
    expect(error).toMatchObject({ ns: 'web-search', scope: 'preset/coder', path: ['list', '1', 'odd key'] })
    expect(error.message).toContain('cannot hold the value at $.list[1]["odd key"] of section "web-search" in scope preset/coder:')
  })

  it('finds the deepest value that fails on its own when the rendering does not parse at all', () => {
    const error = refusal('other:\n  a: 1\n', { other: { a: 1 }, 'web-search': { fine: [1, 2], deep: { list: ['x', BROKEN] } } })
    expect(error).toMatchObject({ ns: 'web-search', path: ['deep', 'list', '1'] })
    expect(error.message).toContain('at $.deep.list[1] of section "web-search"')
  })

  it('cuts a long key short in the message, keeping it whole in path', () => {
    const long = 'k'.repeat(100)
    const error = refusal('', { 'web-search': { [long]: ALTERED } })
    expect(error.path).toStrictEqual([long])
    expect(error.message).toContain(`at $["${'k'.repeat(64)}…"] of section`)
  })
})

describe('the provider refuses a write YAML cannot hold', () => {
  const fx = fileFixture()

  async function boot(file: string) {
    fx.harness = await bootFile({ path: file, watch: false })
    await fx.harness.root.inject(['settings'], (ctx) => {
      ctx.settings.register('web-search', Schema.object({ engine: Schema.string().default('bing') }))
    })
    return fx.harness.settings
  }

  it('as rejected with the place, writing nothing and keeping the section as it was', async () => {
    const file = join(fx.dir, 's.yaml')
    const before = '# mine\nweb-search:\n  engine: bing\n'
    await writeFile(file, before)
    const settings = await boot(file)
    const write = settings.update('web-search', { nested: { bad: ALTERED } })
    await expect(write).rejects.toThrow(SettingsDocumentCannotHoldError)
    await expect(write).rejects.toMatchObject({ code: 'SETTINGS_DOCUMENT_CANNOT_HOLD', refusal: 'rejected', ns: 'web-search', path: ['nested', 'bad'], file })
    await expect(write).rejects.toThrow(`settings document ${file} cannot hold the value at $.nested.bad of section "web-search"`)
    expect(await readFile(file, 'utf8')).toBe(before)
    expect(await readdir(fx.dir)).toEqual(['s.yaml'])
    expect(settings.get('web-search')).toStrictEqual({ engine: 'bing' })
    // The next write that YAML can hold goes through.
    await settings.update('web-search', { engine: 'google' })
    expect(await readFile(file, 'utf8')).toBe('# mine\nweb-search:\n  engine: google\n')
  })

  it('while a JSON document holds the same data', async () => {
    const file = join(fx.dir, 's.json')
    const settings = await boot(file)
    await settings.update('web-search', { nested: { bad: ALTERED, '<<': { x: 1 } } })
    expect(JSON.parse(await readFile(file, 'utf8'))).toStrictEqual({ 'web-search': { nested: { bad: ALTERED, '<<': { x: 1 } } } })
  })
})
