/**
 * renderChanges: a write rendered from the transaction's changed sections
 * gives exactly the bytes the whole-document render gives (diffing the whole
 * documents), on the hand-written fixtures and on every document of the YAML
 * test suite that is a map of sections; a namespace's first write adds the
 * section to the last entry's piece without parsing the document whole; a
 * JSON document hands its parse to the next write.
 */
import { documentWith, type SettingsDocument } from 'dsh-settings'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { dataWith, editsOfChanges, renderChanges, type DocumentChange } from '../src/codec/changes.ts'
import { indentStepOf } from '../src/codec/indent-step.ts'
import { parseSettings, type ParsedDocument } from '../src/codec/parse.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { changesOfSections } from '../src/provider/settings-codec.ts'
import { suiteCases } from './suite-edits.ts'

const FIXTURES = new URL('./fixtures/', import.meta.url)

/** The hand-written fixtures, by name. */
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => [name, readFileSync(new URL(name, FIXTURES), 'utf8')] as const)

/** A parse, or `undefined` for a text the provider refuses. */
function parsedOrNot(text: string): ParsedDocument | undefined {
  try {
    return parseSettings(text, 'yaml', 'settings.yaml')
  } catch {
    return undefined
  }
}

/** The changes a write makes on a document: a new section (global and scoped), a changed field, a replaced section, a removed one. */
function changesFor(data: Record<string, unknown>): [string, DocumentChange[]][] {
  const keys = Object.keys(data)
  const first = keys[0]
  const last = keys[keys.length - 1]
  const plans: [string, DocumentChange[]][] = [
    ['a new section', [{ path: ['dsh-new'], value: { engine: 'bing', list: [1, 'two'], nested: { deep: true } } }]],
    ['two new sections', [{ path: ['dsh-new'], value: { a: 1 } }, { path: ['dsh-other'], value: 'scalar' }]],
    ['a new scoped section', [{ path: ['scopes', 'work', 'dsh-new'], value: { a: 1 } }]],
  ]
  if (first !== undefined) {
    const section = data[first]
    const changed = section !== null && typeof section === 'object' && !Array.isArray(section) ? { ...section, 'dsh-field': 42 } : { replaced: true }
    plans.push(['a changed section', [{ path: [first], value: changed }]])
    plans.push(['a changed section and a new one', [{ path: [first], value: changed }, { path: ['dsh-new'], value: { a: [1, 2] } }]])
    plans.push(['a removed section', [{ path: [first], value: undefined }]])
  }
  if (last !== undefined && last !== first) plans.push(['the last section changed', [{ path: [last], value: { 'dsh-field': 'x' } }]])
  return plans
}

/** renderChanges against the whole-document render of the same next data. */
function expectSameBytes(text: string, parsed: ParsedDocument, changes: DocumentChange[]): void {
  const next = dataWith(parsed.data, changes)
  let whole: string | Error
  try {
    whole = renderYaml(text, parsed, next, 'settings.yaml').text
  } catch (error) {
    whole = error as Error
  }
  if (whole instanceof Error) {
    expect(() => renderChanges('yaml', text, parsed, changes, 'settings.yaml')).toThrow(whole.constructor as new () => Error)
    return
  }
  const rendered = renderChanges('yaml', text, parsed, changes, 'settings.yaml')
  expect(rendered.text).toBe(whole)
  expect(rendered.data).toStrictEqual(next)
  // Where the whole-document render writes a text the provider refuses (suite case 7FWL: a tag on the only key
  // is kept as the root's when the key goes), the same bytes are refused the same way: compared above.
  const read = parsedOrNot(rendered.text)
  if (read) expect(read.data).toStrictEqual(next)
}

describe('renderChanges gives the bytes the whole-document render gives', () => {
  it.each(fixtures)('on %s', (_name, text) => {
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    for (const [, changes] of changesFor(parsed.data)) expectSameBytes(text, parseSettings(text, 'yaml', 'settings.yaml'), changes)
  })

  it('on every YAML test suite document that is a map of sections', () => {
    let documents = 0
    for (const { yaml } of suiteCases()) {
      if (!parsedOrNot(yaml)) continue
      documents++
      for (const [, changes] of changesFor(parsedOrNot(yaml)!.data)) expectSameBytes(yaml, parsedOrNot(yaml)!, changes)
    }
    expect(documents).toBeGreaterThan(100)
  })

  it('on an empty document and one of comments only', () => {
    for (const text of ['', '# only a comment\n', '---\n']) {
      for (const [, changes] of changesFor({})) expectSameBytes(text, parseSettings(text, 'yaml', 'settings.yaml'), changes)
    }
  })
})

describe("a namespace's first write", () => {
  it('adds the section after the last entry, read as that entry alone, with no parse of the document whole', () => {
    const text = fixtures.find(([name]) => name === 'basic.yaml')![1]
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const rendered = renderChanges('yaml', text, parsed, [{ path: ['dsh-new'], value: { engine: 'bing', nested: { deep: [1, 2] } } }])
    expect(rendered.text.startsWith(text.slice(0, parsed.segments![parsed.segments!.length - 1]!.start))).toBe(true)
    // The piece path hands on the entries it placed and builds no node tree of the whole document.
    expect(rendered.parsed).toBeDefined()
    expect(Object.hasOwn(rendered.parsed!, 'yaml')).toBe(false)
    expect(rendered.parsed!.segments!.map((segment) => segment.key)).toStrictEqual([...Object.keys(parsed.data), 'dsh-new'])
    for (const segment of rendered.parsed!.segments!) {
      expect(parseSettings(rendered.text.slice(segment.start, segment.end), 'yaml', 'piece.yaml').data).toStrictEqual({ [segment.key]: rendered.data[segment.key] })
    }
  })

  it("nests the new section by the document's own step, which the last entry may not show", () => {
    const text = 'first:\n    a: 1\nlast: plain\n'
    const rendered = renderChanges('yaml', text, parseSettings(text, 'yaml', 'settings.yaml'), [{ path: ['added'], value: { b: { c: 2 } } }])
    expect(rendered.text).toBe('first:\n    a: 1\nlast: plain\nadded:\n    b:\n        c: 2\n')
  })
})

describe('indentStepOf', () => {
  it('reads the step of the first entry holding a block, as the editor does', () => {
    const step = (text: string) => indentStepOf(text, parseSettings(text, 'yaml', 's.yaml').segments!)
    expect(step('a: 1\nb:\n   c: 1\n')).toBe(3)
    expect(step('a:\n- x\nb:\n    - y\n')).toBe(4)
    expect(step('a: [1]\nb: plain\n')).toBe(2)
    expect(step('a: # note\n\n  # inside\n  k: v\n')).toBe(2)
  })
})

describe('a JSON document', () => {
  it('hands its parse to the next write: the data it was rendered from', () => {
    const text = '{\n  "chat": {\n    "model": "o3"\n  }\n}\n'
    const parsed = parseSettings(text, 'json', 'settings.json')
    const rendered = renderChanges('json', text, parsed, [{ path: ['chat', 'model'], value: 'o4' }, { path: ['web'], value: { a: 1 } }])
    expect(rendered.text).toBe('{\n  "chat": {\n    "model": "o4"\n  },\n  "web": {\n    "a": 1\n  }\n}\n')
    expect(rendered.parsed?.data).toBe(rendered.data)
    expect(parseSettings(rendered.text, 'json', 'settings.json').data).toStrictEqual(rendered.parsed!.data)
  })
})

describe('dataWith and editsOfChanges', () => {
  const data = { a: { x: 1 }, b: { y: [1, 2] }, scopes: { work: { a: { x: 2 } } } }

  it('copies only the maps on the changed paths and shares every other section', () => {
    const next = dataWith(data, [{ path: ['scopes', 'home', 'a'], value: { x: 3 } }, { path: ['a'], value: undefined }])
    expect(next).toStrictEqual({ b: { y: [1, 2] }, scopes: { work: { a: { x: 2 } }, home: { a: { x: 3 } } } })
    expect(next.b).toBe(data.b)
    expect((next.scopes as typeof data.scopes).work).toBe(data.scopes.work)
    expect(data).toStrictEqual({ a: { x: 1 }, b: { y: [1, 2] }, scopes: { work: { a: { x: 2 } } } })
  })

  it('sets a new map once for two changes under it, and edits a changed section as deep as it changed', () => {
    const changes: DocumentChange[] = [
      { path: ['scopes', 'home', 'a'], value: 1 },
      { path: ['scopes', 'home', 'b'], value: 2 },
      { path: ['b'], value: { y: [1, 3] } },
    ]
    const next = dataWith(data, changes)
    expect(editsOfChanges(data, next, changes)).toStrictEqual([
      { op: 'set', path: ['scopes', 'home'], value: { a: 1, b: 2 } },
      { op: 'set', path: ['b', 'y', 1], value: 3 },
    ])
  })

  it('finds nothing to do for a change to the same value', () => {
    const changes: DocumentChange[] = [{ path: ['a'], value: { x: 1 } }, { path: ['gone'], value: undefined }]
    expect(editsOfChanges(data, dataWith(data, changes), changes)).toStrictEqual([])
    const text = 'a:\n  x: 1\n'
    expect(renderChanges('yaml', text, parseSettings(text, 'yaml', 's.yaml'), changes).text).toBe(text)
  })
})

describe("the provider's changes from a transaction's sections", () => {
  it('make the document the seam makes of the same sections (documentWith)', () => {
    const data = { a: { x: 1 }, scopes: { work: { a: { x: 2 } }, odd: 'not a map' } } as Record<string, unknown>
    const sections = [
      { ns: 'a', section: { x: 5 } },
      { ns: 'b', scope: 'home', section: { y: 1 } },
      { ns: 'a', scope: 'work', section: undefined },
      { ns: 'c', scope: 'odd', section: 3 },
    ]
    const next = dataWith(data, changesOfSections(sections))
    expect(next).toStrictEqual(documentWith(data as SettingsDocument, sections))
    expect(Object.keys(next)).toStrictEqual(Object.keys(documentWith(data as SettingsDocument, sections)))
  })
})
