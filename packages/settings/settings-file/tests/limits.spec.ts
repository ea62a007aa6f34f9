/**
 * Limits of the file provider: duplicate keys checked in linear time (yaml's own
 * check is quadratic), alias expansion, the document size cap, and data the
 * YAML renderer must hold (`<<` keys, keys past yaml's 1024-character implicit-key limit).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import Schema from 'schemastery'
import { parseDocument } from 'yaml'
import { describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { SettingsStoreError } from 'dsh-settings'
import { DocumentCannotHoldError, DocumentError, DocumentTooLargeError } from '../src/codec/errors.ts'
import { SettingsDocumentCannotHoldError, SettingsDocumentError, SettingsDocumentTooLargeError, settingsErrorOf } from '../src/provider/errors.ts'
import { DEFAULT_MAX_DOCUMENT_BYTES, parseSettings, YAML_OPTIONS } from '../src/codec/parse.ts'
import { renderBlockKey, renderFlow, toYaml } from '../src/codec/render.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { bootFile, eventually, fileFixture } from './file-harness.ts'

const FILE = '/home/user/.dsh/settings.yaml'

/** The error `parseSettings` throws for `text`. */
/** The codec's refusal of `text`, as the provider gives it (see settingsErrorOf). */
function failure(text: string, format: 'yaml' | 'json' = 'yaml', maxBytes?: number): Error {
  try {
    parseSettings(text, format, FILE, maxBytes)
  } catch (error) {
    expect(error instanceof DocumentError || error instanceof DocumentTooLargeError).toBe(true)
    return settingsErrorOf(error) as Error
  }
  throw new Error('expected the parse to fail')
}

/** A section of `count` keys `key0: value0`…, one per line from line 2. */
function manyKeys(count: number): string {
  const lines = ['web-search:']
  for (let index = 0; index < count; index++) lines.push(`  key${index}: value${index}`)
  return lines.join('\n') + '\n'
}

/** What yaml's own (quadratic) duplicate-key check says: the first DUPLICATE_KEY's line and column, if any. */
function yamlsOwnVerdict(text: string): { line: number; column: number } | undefined {
  const doc = parseDocument(text, { ...YAML_OPTIONS, uniqueKeys: true })
  const duplicate = doc.errors.find((error) => error.code === 'DUPLICATE_KEY')
  return duplicate?.linePos ? { line: duplicate.linePos[0].line, column: duplicate.linePos[0].col } : undefined
}

/** Our verdict: the position of a DUPLICATE_KEY refusal, if the parse refuses for one. */
function ourVerdict(text: string): { line: number; column: number } | undefined {
  try {
    parseSettings(text, 'yaml', FILE)
  } catch (error) {
    if (error instanceof DocumentError && error.message.includes('DUPLICATE_KEY')) return error.position
  }
  return undefined
}

describe('duplicate keys: checked per map with a set, linear in the document', () => {
  it('turns yaml\'s own quadratic check off', () => {
    expect(YAML_OPTIONS.uniqueKeys).toBe(false)
  })

  it.each([40_000, 80_000])('reads %i keys, and finds a duplicate among them at the second key without quoting it', (count) => {
    const text = manyKeys(count)
    expect(Object.keys(parseSettings(text, 'yaml', FILE).data['web-search'] as object)).toHaveLength(count)
    const middle = `key${count / 2}`
    const error = failure(`${text}  ${middle}: other\n`)
    expect(error).toBeInstanceOf(SettingsDocumentError)
    expect((error as SettingsDocumentError).position).toStrictEqual({ line: count + 2, column: 3 })
    expect(error.message).toContain(`DUPLICATE_KEY at line ${count + 2}, column 3`)
    expect(error.message).not.toContain(middle)
    expect(error.message).not.toContain('other')
    // No timing assertion; with yaml's own check, 80,000 keys took over a minute per parse, far past this timeout.
  }, 30_000)

  it('counts every duplicate among the further errors', () => {
    expect(failure('a: 1\na: 2\nb: 1\nb: 2\nb: 3\n').message).toMatch(/DUPLICATE_KEY at line 2, column 1 \(and 2 more\)/)
  })

  it.each([
    ['nested maps', 'a:\n  x: 1\n  y: 2\n  x: 3\n', { line: 4, column: 3 }],
    ['a map in a list', 'a:\n  - x: 1\n    x: 2\n', { line: 3, column: 5 }],
    ['a flow map', 'a: {x: 1, y: 2, x: 3}\n', { line: 1, column: 17 }],
    ['an anchored key', '&k a: 1\n&j a: 2\n', { line: 2, column: 4 }],
    ['two quoted "<<" keys', 'a:\n  "<<": 1\n  "<<": 2\n', { line: 3, column: 3 }],
    ['1 and 1.0 (the same number)', 'a:\n  1: x\n  1.0: y\n', { line: 3, column: 3 }],
    ['two empty keys', 'a:\n  : 1\n  : 2\n', { line: 3, column: 3 }],
    ['explicit keys', '? a\n? a\n', { line: 2, column: 3 }],
  ])('refuses %s as yaml does, at the same place', (_name, text, position) => {
    expect(ourVerdict(text)).toStrictEqual(position)
    expect(yamlsOwnVerdict(text)).toStrictEqual(position)
  })

  it.each([
    ['several plain << merge keys', 'base: &b {x: 1}\nmore: &m {y: 2}\na:\n  <<: *b\n  <<: *m\n', { x: 1, y: 2 }],
    ['a plain << merge and a quoted "<<" key', 'base: &b {x: 1}\na:\n  <<: *b\n  "<<": 2\n', { x: 1, '<<': 2 }],
    ['1 and "1" (a number and a string)', 'a:\n  1: x\n  "1": y\n', { 1: 'y' }],
    ['.nan twice', 'a:\n  .nan: x\n  .nan: y\n', { NaN: 'y' }],
    ['the same key in sibling maps', 'a:\n  - x: 1\n  - x: 2\n', [{ x: 1 }, { x: 2 }]],
  ])('accepts %s, as yaml does', (_name, text, a) => {
    expect(yamlsOwnVerdict(text)).toBeUndefined()
    expect(parseSettings(text, 'yaml', FILE).data.a).toStrictEqual(a)
  })

  /** Lines `lead key: value` from the given pieces. */
  const lines = (keys: string[], values: string[]) =>
    fc.array(
      fc.tuple(fc.constantFrom('', '', '  ', '- '), fc.constantFrom(...keys), fc.constantFrom(...values)).map(([lead, key, value]) => `${lead}${key}: ${value}`),
      { minLength: 1, maxLength: 6 },
    )
  const KEYS = ['a', 'b', '1', '1.0', '"1"', "'a'", '"a"', '<<', '"<<"', '.nan', '~', 'null', '&x a', '? a', '!!str a', '0x1']
  const VALUES = ['1', 'x', '&x {a: 1}', '*x', '{a: 1, a: 2}', '{b: 1, "b": 2}', '[a: 1, a: 2]', '{<<: *x, <<: *x}', '{1: a, 1.0: b}', '[1, 2']

  /** Our refusal of `text` for not being valid YAML, if any. */
  function ours(text: string): string | undefined {
    try {
      parseSettings(text, 'yaml', FILE)
    } catch (error) {
      if (/not valid YAML/.test((error as Error).message)) return (error as Error).message
    }
    return undefined
  }

  it('agrees with yaml\'s own check on generated documents: the same refusals, first error and position, and count', () => {
    fc.assert(
      fc.property(lines(KEYS, VALUES), (generated) => {
        const text = generated.join('\n') + '\n'
        const reference = parseDocument(text, { ...YAML_OPTIONS, uniqueKeys: true })
        if (!reference.errors.length) return ours(text) === undefined
        const first = reference.errors[0]!
        const more = reference.errors.length > 1 ? ` (and ${reference.errors.length - 1} more)` : ''
        return ours(text)?.endsWith(`${first.code} at line ${first.linePos![0].line}, column ${first.linePos![0].col}${more}`) === true
      }),
      { numRuns: 3000, seed: 10 },
    )
  })

  it('agrees with it on empty keys and values too, but for where a key after an empty value is placed', () => {
    fc.assert(
      fc.property(lines([...KEYS, ''], [...VALUES, '']), (generated) => {
        const text = generated.join('\n') + '\n'
        const reference = parseDocument(text, { ...YAML_OPTIONS, uniqueKeys: true })
        const refusal = ours(text)
        const count = refusal === undefined ? 0 : 1 + Number(/\(and (\d+) more\)$/.exec(refusal)?.[1] ?? 0)
        return count === reference.errors.length
      }),
      { numRuns: 3000, seed: 11 },
    )
    // yaml placed this duplicate at the end of line 1; it is the key on line 2.
    expect(ourVerdict('- a: \n  a: 1\n')).toStrictEqual({ line: 2, column: 3 })
  })
})

describe('aliases', () => {
  it('refuses a document whose aliases expand past the cap as using too many aliases', () => {
    const row = (alias: string) => `[${Array(10).fill(alias).join(', ')}]`
    const text = `a: &a ${row('x')}\nb: &b ${row('*a')}\nc: &c ${row('*b')}\nd: &d ${row('*c')}\ne: ${row('*d')}\n`
    const error = failure(text)
    expect(error).toBeInstanceOf(SettingsDocumentError)
    expect(error.message).toContain(`settings document ${FILE} uses too many aliases`)
    expect(error.message).not.toContain('ReferenceError')
    expect(YAML_OPTIONS.maxAliasCount).toBe(100)
  })

  it('says an alias names no anchor, without naming it', () => {
    const error = failure('token: *sk-LEAK\n')
    expect(error.message).toContain('alias to an anchor it does not define')
    expect(error.message).not.toContain('sk-LEAK')
  })

  it('says a << merge of a scalar is not a map', () => {
    expect(failure('a: {<<: 3}\n').message).toContain('<< merge of something that is not a map')
  })
})

describe('the size cap: parseSettings', () => {
  it('refuses a text over the cap before parsing it, naming the cap and never the text', () => {
    const error = failure(`a: ${'sk-LEAK'.repeat(200)}\n`, 'yaml', 1000)
    expect(error).toBeInstanceOf(SettingsDocumentTooLargeError)
    expect(error).toBeInstanceOf(SettingsStoreError)
    expect(error).toMatchObject({ code: 'SETTINGS_DOCUMENT_TOO_LARGE', refusal: 'rejected', limit: 1000, bytes: 1404, file: FILE })
    expect(error.message).toBe(`settings document ${FILE} is 1404 bytes (1.37 KiB), over the cap of 1000 bytes (maxDocumentBytes); it is not read`)
  })

  it('counts UTF-8 bytes, and takes a text of exactly the cap', () => {
    expect(parseSettings(`a: ${'é'.repeat(10)}\n`, 'yaml', FILE, 24).data).toStrictEqual({ a: 'é'.repeat(10) })
    expect(failure(`a: ${'é'.repeat(10)}\n`, 'yaml', 23)).toMatchObject({ bytes: 24, limit: 23 })
    expect(failure(`{"a": "${'é'.repeat(10)}"}`, 'json', 20)).toBeInstanceOf(SettingsDocumentTooLargeError)
  })

  it('defaults to 8 MiB', () => {
    expect(DEFAULT_MAX_DOCUMENT_BYTES).toBe(8 * 1024 * 1024)
    expect(FileSettingsProvider.Config({}).maxDocumentBytes).toBe(8 * 1024 * 1024)
    const big = `a: "${'x'.repeat(DEFAULT_MAX_DOCUMENT_BYTES)}"\n`
    expect(failure(big).message).toContain('over the cap of 8388608 bytes (8 MiB) (maxDocumentBytes)')
  })
})

const schema = () => Schema.object({ engine: Schema.string().default('bing'), note: Schema.string().default('') })

describe('the size cap: the provider', () => {
  const fx = fileFixture()

  async function boot(file: string, config: FileSettingsProvider.Config = {}) {
    fx.harness = await bootFile({ path: file, watch: false, ...config })
    await fx.harness.root.inject(['settings'], (ctx) => {
      ctx.settings.register('web-search', schema())
    })
    return fx.harness.settings
  }

  it('fails the load of a document over the cap, naming the cap', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, `web-search:\n  note: ${'sk-LEAK'.repeat(300)}\n`)
    const load = bootFile({ path: file, watch: false, maxDocumentBytes: 1024 })
    await expect(load).rejects.toThrow(SettingsDocumentTooLargeError)
    await expect(load).rejects.toThrow(/is 2121 bytes \(2\.07 KiB\), over the cap of 1024 bytes \(1 KiB\) \(maxDocumentBytes\)/)
    await expect(load).rejects.not.toThrow(/sk-LEAK/)
  })

  it('logs and ignores a reload over the cap, keeping the last good settings, then recovers', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    const settings = await boot(file, { watch: true, debounceMs: 20, maxDocumentBytes: 1024 })
    await writeFile(file, `web-search:\n  engine: huge\n  note: ${'sk-LEAK'.repeat(300)}\n`)
    await eventually(() => expect(fx.harness!.logs.some((line) => line.includes('over the cap of 1024 bytes') && line.includes('keeping the last good settings'))).toBe(true))
    expect(settings.get('web-search')).toMatchObject({ engine: 'bing' })
    expect(fx.harness!.logs.join('\n')).not.toContain('sk-LEAK')
    await writeFile(file, 'web-search:\n  engine: ddg\n')
    await eventually(() => expect(settings.get('web-search')).toMatchObject({ engine: 'ddg' }))
  })

  it.each(['s.yaml', 's.json'])('refuses a write whose document would pass the cap, writing nothing (%s)', async (name) => {
    const file = join(fx.dir, name)
    const before = name.endsWith('.json') ? '{"web-search": {"engine": "bing"}}\n' : 'web-search:\n  engine: bing # kept\n'
    await writeFile(file, before)
    const settings = await boot(file, { maxDocumentBytes: 512 })
    const write = settings.update('web-search', { note: 'n'.repeat(600) })
    await expect(write).rejects.toThrow(SettingsDocumentTooLargeError)
    await expect(write).rejects.toMatchObject({ code: 'SETTINGS_DOCUMENT_TOO_LARGE', refusal: 'rejected', limit: 512, next: true })
    await expect(write).rejects.toThrow(/would be \d+ bytes after this write, over the cap of 512 bytes \(maxDocumentBytes\); nothing was written/)
    expect(await readFile(file, 'utf8')).toBe(before)
    expect(await readdir(fx.dir)).toEqual([name])
    expect(settings.get('web-search')).toMatchObject({ engine: 'bing', note: '' })
    // A write that stays under the cap still goes through.
    await settings.update('web-search', { note: 'short' })
    expect(settings.get('web-search')).toMatchObject({ note: 'short' })
  })

  it('refuses a write while the document on disk is over the cap, leaving it as it is', async () => {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    const settings = await boot(file, { maxDocumentBytes: 1024 })
    const grown = `web-search:\n  engine: bing\n  note: ${'n'.repeat(2000)}\n`
    await writeFile(file, grown)
    await expect(settings.update('web-search', { engine: 'x' })).rejects.toMatchObject({ code: 'SETTINGS_DOCUMENT_TOO_LARGE', next: false })
    expect(await readFile(file, 'utf8')).toBe(grown)
  })
})

describe('data YAML holds', () => {
  const fx = fileFixture()

  async function boot(file: string) {
    fx.harness = await bootFile({ path: file, watch: false })
    await fx.harness.root.inject(['settings'], (ctx) => {
      ctx.settings.register('web-search', schema())
    })
    return fx.harness.settings
  }

  /** Write `value` into web-search, then check the file holds it across a restart, edited in place. */
  async function roundTrip(value: Record<string, unknown>): Promise<string> {
    const file = join(fx.dir, 's.yaml')
    await writeFile(file, '# mine\nweb-search:\n  engine: bing # by hand\n')
    let settings = await boot(file)
    await settings.update('web-search', value)
    const text = await readFile(file, 'utf8')
    expect(text.startsWith('# mine\nweb-search:\n  engine: bing # by hand\n')).toBe(true)
    expect(fx.harness!.logs.join('\n')).not.toContain('rendered afresh')
    await fx.harness!.dispose()
    settings = await boot(file)
    expect(settings.get('web-search')).toMatchObject({ engine: 'bing', ...value })
    expect(parseSettings(text, 'yaml', file).data['web-search']).toStrictEqual({ engine: 'bing', ...value })
    return text
  }

  it('writes a << key as a quoted key, never a merge, at any depth', async () => {
    const text = await roundTrip({ nested: { '<<': { x: 1 } }, list: [{ '<<': 2 }], '<<': { y: 3 } })
    expect(text).toContain('"<<":')
    expect(text).not.toMatch(/^\s*(- )?<<:/m)
  })

  it('writes a key past 1024 characters as an explicit ? key, in place', async () => {
    const long = 'k'.repeat(1100)
    const text = await roundTrip({ [long]: 1, nested: { [long]: { a: 1 } }, list: [{ [long]: 2 }] })
    expect(text).toContain(`  ? ${long}\n  : 1\n`)
    // Its value is then edited in place like any other.
    await fx.harness!.settings.update('web-search', { [long]: 'two' })
    expect(await readFile(join(fx.dir, 's.yaml'), 'utf8')).toBe(text.replace(`  ? ${long}\n  : 1\n`, `  ? ${long}\n  : two\n`))
  })

  it('renders << keys quoted and long keys explicit in the blocks and flows it writes', () => {
    expect(toYaml({ '<<': { '<<': 1 }, a: [{ '<<': 2 }] }, { lineWidth: 0 })).toBe('"<<":\n  "<<": 1\na:\n  - "<<": 2\n')
    expect(renderFlow({ '<<': 1, b: { '<<': 2 } })).toBe('{"<<": 1, b: {"<<": 2}}')
    expect(renderBlockKey('short', 4)).toBe('short')
    expect(renderBlockKey('<<', 4)).toBe('"<<"')
    expect(renderBlockKey('k'.repeat(1024), 4)).toBe('k'.repeat(1024))
    expect(renderBlockKey('k'.repeat(1025), 4)).toBe(`? ${'k'.repeat(1025)}\n    `)
    expect(renderBlockKey(`"${'k'.repeat(1022)}`, 0)).toBe(`? '"${'k'.repeat(1022)}'\n`)
  })

  it('writes a long quoted key as an explicit key too', async () => {
    await roundTrip({ [`#${'q'.repeat(1030)}`]: 'v', [`a\n${'b'.repeat(1030)}`]: 'w' })
  })
})

describe('data YAML cannot hold', () => {
  it('is refused with SETTINGS_DOCUMENT_CANNOT_HOLD naming the place, never the value: a byte order mark opening the document', () => {
    const parsed = parseSettings('', 'yaml', FILE)
    let caught: unknown
    try {
      renderYaml('', parsed, { '\ufeffweb': { engine: 'sk-LEAK' } }, FILE)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(DocumentCannotHoldError)
    expect(caught).toMatchObject({ code: 'DOCUMENT_CANNOT_HOLD', documentPath: ['\ufeffweb'] })
    caught = settingsErrorOf(caught)
    expect(caught).toBeInstanceOf(SettingsDocumentCannotHoldError)
    expect(caught).toBeInstanceOf(SettingsStoreError)
    const error = caught as SettingsDocumentCannotHoldError
    expect(error).toMatchObject({ code: 'SETTINGS_DOCUMENT_CANNOT_HOLD', refusal: 'rejected', file: FILE, ns: '\ufeffweb', path: [], documentPath: ['\ufeffweb'] })
    expect(error.message).toContain(`settings document ${FILE} cannot hold the value at $ of section "\ufeffweb":`)
    expect(error.message).not.toContain('sk-LEAK')
  })
})
