import { describe, expect, it, vi } from 'vitest'
import { DocumentError } from '../src/codec/errors.ts'
import { SettingsDocumentError, settingsErrorOf } from '../src/provider/errors.ts'
import type { DocumentFormat } from '../src/codec/format.ts'
import { parseSettings } from '../src/codec/parse.ts'

const FILE = '/home/user/.dsh/settings.yaml'
const JSON_FILE = '/home/user/.dsh/settings.json'

/** The error `parseSettings` throws for `text` (the codec's DocumentError), as the provider gives it: a SettingsDocumentError. */
function failure(text: string, format: DocumentFormat, file = format === 'json' ? JSON_FILE : FILE): SettingsDocumentError {
  let caught: unknown
  try {
    parseSettings(text, format, file)
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(DocumentError)
  expect(caught).toMatchObject({ name: 'DocumentError', code: 'DOCUMENT_INVALID', file })
  expect((caught as Error).message).toMatch(/^document /)
  caught = settingsErrorOf(caught)
  expect(caught).toBeInstanceOf(SettingsDocumentError)
  const error = caught as SettingsDocumentError
  expect(error.name).toBe('SettingsDocumentError')
  expect(error.code).toBe('SETTINGS_DOCUMENT')
  expect(error.file).toBe(file)
  return error
}

/** A parse failure that reports `line L, column C` in its message and in `position`, and quotes none of the text. */
function expectPositioned(error: SettingsDocumentError, line: number, column: number, secrets: string[]): void {
  expect(error.position).toStrictEqual({ line, column })
  expect(error.message).toContain(`line ${line}, column ${column}`)
  for (const secret of secrets) expect(error.message).not.toContain(secret)
}

describe('parseSettings: YAML', () => {
  it('reads sections by namespace, with scopes as plain data', () => {
    const text = 'web-search:\n  engine: bing\nscopes:\n  preset/coder:\n    web-search:\n      engine: google\n'
    const parsed = parseSettings(text, 'yaml', FILE)
    expect(parsed.data).toStrictEqual({ 'web-search': { engine: 'bing' }, scopes: { 'preset/coder': { 'web-search': { engine: 'google' } } } })
    expect(parsed.yaml).toBeDefined()
  })

  it('reads an empty, whitespace-only, comment-only or marker-only document as no sections', () => {
    for (const text of ['', '   \n\n\t\n', '# nothing here yet\n# really\n', '---\n', '---\n# comment\n']) {
      expect(parseSettings(text, 'yaml', FILE).data).toStrictEqual({})
    }
  })

  it('keeps the node tree of an empty document for later edits', () => {
    expect(parseSettings('# only a comment\n', 'yaml', FILE).yaml).toBeDefined()
  })

  it('resolves merge keys and aliases', () => {
    const text = 'base: &base\n  timeout: 30\nchild:\n  <<: *base\n  retries: 2\ncopy: *base\n'
    expect(parseSettings(text, 'yaml', FILE).data).toStrictEqual({
      base: { timeout: 30 },
      child: { timeout: 30, retries: 2 },
      copy: { timeout: 30 },
    })
  })

  it('reports a bad indentation by line and column and error code, without the secret on that line', () => {
    const error = failure('chat:\n  model: o3\n api-key: sk-LEAK-123\n', 'yaml')
    expectPositioned(error, 3, 1, ['sk-LEAK', 'api-key', 'model'])
    expect(error.message).toContain('BAD_INDENT')
    expect(error.message).toContain(FILE)
  })

  it('reports an unterminated quote without quoting the string', () => {
    const error = failure('chat:\n  api-key: "sk-LEAK-123\n', 'yaml')
    expect(error.message).toMatch(/line \d+, column \d+/)
    expect(error.message).not.toContain('sk-LEAK')
    expect(error.position).toBeDefined()
  })

  it('reports a duplicate key where the second one starts', () => {
    const error = failure('token: sk-LEAK-1\ntoken: sk-LEAK-2\n', 'yaml')
    expectPositioned(error, 2, 1, ['sk-LEAK', 'token'])
    expect(error.message).toContain('DUPLICATE_KEY')
  })

  it('counts the further errors without describing them', () => {
    const error = failure('a: 1\n  b: sk-LEAK: [\n', 'yaml')
    expect(error.message).toMatch(/\(and \d+ more\)/)
    expect(error.message).not.toContain('sk-LEAK')
  })

  it('fails on an alias to a missing anchor without naming it', () => {
    const error = failure('token: *sk-LEAK\n', 'yaml')
    expect(error.message).not.toContain('sk-LEAK')
  })

  it('refuses a document whose aliases expand beyond the cap', () => {
    const row = (alias: string) => `[${Array(10).fill(alias).join(', ')}]`
    const text = `a: &a ${row('x')}\nb: &b ${row('*a')}\nc: &c ${row('*b')}\nd: &d ${row('*c')}\ne: ${row('*d')}\n`
    failure(text, 'yaml')
  })

  // Roots that are not a map (a list, a scalar, a tagged root) are refused: tests/refused-roots.spec.ts.

  it('prints no process warning quoting a collection key it reads as a string', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    try {
      expect(parseSettings('web-search:\n  ? [sk-LEAK-1, b]\n  : x\n', 'yaml', FILE).data).toStrictEqual({ 'web-search': { '[ sk-LEAK-1, b ]': 'x' } })
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
  })

  it('reads a __proto__ key as an own data key, never as the prototype', () => {
    const data = parseSettings('__proto__:\n  polluted: true\nok: 1\n', 'yaml', FILE).data
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
    expect(Object.hasOwn(data, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toStrictEqual({ polluted: true })
    expect(Object.keys(data)).toStrictEqual(['__proto__', 'ok'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reads constructor and prototype keys as plain data', () => {
    const data = parseSettings('constructor:\n  a: 1\nprototype:\n  b: 2\n', 'yaml', FILE).data
    expect(Object.hasOwn(data, 'constructor')).toBe(true)
    expect(data.constructor).toStrictEqual({ a: 1 })
    expect(data.prototype).toStrictEqual({ b: 2 })
  })
})

describe('parseSettings: JSON', () => {
  it('reads a JSON document, keeping its key order', () => {
    const parsed = parseSettings('{"b": {"x": 1}, "a": [1, 2]}', 'json', JSON_FILE)
    expect(parsed.data).toStrictEqual({ b: { x: 1 }, a: [1, 2] })
    expect(Object.keys(parsed.data)).toStrictEqual(['b', 'a'])
    expect(parsed.yaml).toBeUndefined()
  })

  it('reads an empty or whitespace-only JSON document as no sections', () => {
    for (const text of ['', '  \n\t\n']) expect(parseSettings(text, 'json', JSON_FILE).data).toStrictEqual({})
  })

  it('reports an invalid value by line and column, without the secret', () => {
    const error = failure('{\n  "web-search": {\n    "api-key": sk-LEAK-123\n  }\n}\n', 'json')
    expectPositioned(error, 3, 16, ['sk-LEAK', 'api-key', 'web-search'])
    expect(error.message).toContain('not valid JSON')
  })

  it('reports a trailing comma and a truncated document by position', () => {
    expectPositioned(failure('{"token": "sk-LEAK", }', 'json'), 1, 22, ['sk-LEAK'])
    expectPositioned(failure('{"token": "sk-LEAK",', 'json'), 1, 21, ['sk-LEAK'])
  })

  it('reports a comment, which JSON does not allow, by position', () => {
    expectPositioned(failure('{\n  // sk-LEAK\n  "a": 1\n}', 'json'), 2, 3, ['sk-LEAK'])
  })

  it('reads a __proto__ key as an own data key, never as the prototype', () => {
    const data = parseSettings('{"__proto__": {"polluted": true}}', 'json', JSON_FILE).data
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
    expect(Object.hasOwn(data, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toStrictEqual({ polluted: true })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('parseSettings: recursive aliases', () => {
  it('refuses an alias that contains itself instead of returning a circular value', () => {
    expect(() => parseSettings('a: &x [*x]\n', 'yaml', 'loop.yaml')).toThrow(/alias that contains itself/)
  })

  it('accepts an anchor used twice without a cycle', () => {
    expect(parseSettings('a: &x {k: 1}\nb: *x\nc: *x\n', 'yaml', 'shared.yaml').data).toEqual({ a: { k: 1 }, b: { k: 1 }, c: { k: 1 } })
  })
})
