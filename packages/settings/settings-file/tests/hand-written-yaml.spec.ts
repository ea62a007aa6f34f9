import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../src/codec/parse.ts'
import { renderYaml } from '../src/codec/serialize.ts'
import { bootFile, fileFixture } from './file-harness.ts'

type Data = Record<string, any>

/**
 * `text` edited so it reads as `change` makes its data: asserted to be an edit
 * in place (no fresh rendering) that reads back as the data asked for.
 */
function edited(text: string, change: (data: Data) => Data): string {
  const parsed = parseSettings(text, 'yaml', 'settings.yaml')
  const next = change(structuredClone(parsed.data))
  const rendered = renderYaml(text, parsed, next)
  expect(rendered.preserved).toBe(true)
  expect(parseSettings(rendered.text, 'yaml', 'settings.yaml').data).toStrictEqual(next)
  return rendered.text
}

const addSection = (data: Data) => ({ ...data, assistant: { model: 'small' } })

describe('hand-written YAML: a first key with properties or in explicit form', () => {
  it.each([
    ['an anchor', '&a web-search:\n  engine: bing\n'],
    ['a tag', '!!str web-search:\n  engine: bing\n'],
    ['a verbatim tag', '!<tag:yaml.org,2002:str> web-search:\n  engine: bing\n'],
    ['an explicit ? key', '? web-search\n: engine: bing\n'],
    ['an explicit key with an anchor', '? &k web-search\n: engine: bing\n'],
  ])('adds a section after a first key with %s at the map’s own column', (_, text) => {
    expect(edited(text, addSection)).toBe(`${text}assistant:\n  model: small\n`)
  })

  it('adds a field under a key with an anchor at the fields’ column', () => {
    expect(edited('&a web-search:\n  engine: bing\n', (data) => ({ 'web-search': { ...data['web-search'], limit: 10 } }))).toBe('&a web-search:\n  engine: bing\n  limit: 10\n')
  })

  it('adds a field into a section whose first field has an anchor or is an explicit key', () => {
    expect(edited('web-search:\n  &e engine: bing\n', (data) => ({ 'web-search': { ...data['web-search'], limit: 10 } }))).toBe('web-search:\n  &e engine: bing\n  limit: 10\n')
    expect(edited('web-search:\n  ? engine\n  : bing\n', (data) => ({ 'web-search': { ...data['web-search'], limit: 10 } }))).toBe('web-search:\n  ? engine\n  : bing\n  limit: 10\n')
  })

  it('removes an explicit ? key with its value, leaving the next field as written', () => {
    expect(edited('mapping:\n  ? sky\n  : blue\n  sea : green\n', () => ({ mapping: { sea: 'green' } }))).toBe('mapping:\n  sea : green\n')
  })
})

describe('hand-written YAML: tags on values', () => {
  const set = (path: string[], value: unknown) => (data: Data) => {
    let at = data
    for (const key of path.slice(0, -1)) at = at[key]
    at[path.at(-1)!] = value
    return data
  }

  it('keeps a tag the new value still fits, and drops one it does not (keeping the anchor and comment)', () => {
    expect(edited('s:\n  c: !!int 42\n', set(['s', 'c'], 7))).toBe('s:\n  c: !!int 7\n')
    expect(edited('s:\n  c: !!int 42\n', set(['s', 'c'], 'edited'))).toBe('s:\n  c: edited\n')
    expect(edited('s:\n  c: &x !custom 42 # c\n', set(['s', 'c'], 7))).toBe('s:\n  c: &x 7 # c\n')
    expect(edited('s:\n  l: [ !!int 1, &a !!int 2 ]\n', set(['s', 'l', '1'], 'x'))).toBe('s:\n  l: [ !!int 1, &a x ]\n')
    expect(edited('s:\n  l:\n    - !!int 1\n    - &a !!int 2 # two\n', set(['s', 'l', '1'], 'y'))).toBe('s:\n  l:\n    - !!int 1\n    - &a y # two\n')
  })

  it('leaves no value that reads only with a warning', () => {
    const text = edited('s:\n  c: !!bool true\n  d: !!float 1.5\n', (data) => ({ s: { c: 'yes please', d: 'n/a' } }))
    expect(parseSettings(text, 'yaml', 'settings.yaml').yaml!.warnings).toStrictEqual([])
  })
})

describe('hand-written YAML: flow maps', () => {
  it('adds a section to a flow root with a trailing comma, keeping the comma last', () => {
    expect(edited('{ web-search: { engine: bing }, }\n', addSection)).toBe('{ web-search: { engine: bing }, assistant: {model: small}, }\n')
  })

  it('adds a section to a flow root written over several lines on a line of its own', () => {
    expect(edited('{\n  web-search: { engine: bing },\n}\n', addSection)).toBe('{\n  web-search: { engine: bing },\n  assistant: {model: small},\n}\n')
    expect(edited('{\n  web-search: { engine: bing }\n}\n', addSection)).toBe('{\n  web-search: { engine: bing },\n  assistant: {model: small}\n}\n')
  })

  it('leaves the comment on the last entry’s line where it is', () => {
    expect(edited('{\n  web-search: { engine: bing },   # one line per section\n}\n', addSection)).toBe(
      '{\n  web-search: { engine: bing },   # one line per section\n  assistant: {model: small},\n}\n',
    )
    expect(edited('{\n  web-search: { engine: bing }   # no comma\n}\n', addSection)).toBe('{\n  web-search: { engine: bing },   # no comma\n  assistant: {model: small}\n}\n')
    expect(edited('web-search:\n  mirrors: [\n    a,  # first\n  ]\n', () => ({ 'web-search': { mirrors: ['a', 'b'] } }))).toBe('web-search:\n  mirrors: [\n    a,  # first\n    b,\n  ]\n')
  })

  it('removes the last entry of a flow map with a trailing comma', () => {
    expect(edited('{ a: { x: 1 }, b: { y: 2 }, }\n', (data) => ({ a: data.a }))).toBe('{ a: { x: 1 }, }\n')
  })

  it('gives a single pair in a flow sequence its braces when it gets a second key', () => {
    expect(edited('web-search:\n  mirrors: [ host : a.example ]\n', (data) => ({ 'web-search': { mirrors: [{ ...data['web-search'].mirrors[0], port: 8080 }] } }))).toBe(
      'web-search:\n  mirrors: [ { host : a.example, port: 8080 } ]\n',
    )
  })
})

describe("hand-written YAML: comments on a section's key line and deeper than its fields", () => {
  it('keeps the comment on the key line, as written, when a section is replaced by {}', () => {
    expect(edited('# top\nweb-search: # my search\n  engine: bing\n\nother: {}\n', (data) => ({ ...data, 'web-search': {} }))).toBe('# top\nweb-search: {} # my search\n\nother: {}\n')
    expect(edited('web-search:   # my search\n  # about engine\n  engine: bing\nother: {}\n', (data) => ({ ...data, 'web-search': {} }))).toBe(
      'web-search: {}   # my search\n  # about engine\nother: {}\n',
    )
  })

  it('keeps the comment on the key line when a section is replaced by other fields', () => {
    expect(edited('web-search: # my search\n  engine: bing\nother: {}\n', (data) => ({ ...data, 'web-search': { limit: 10 } }))).toBe('web-search: # my search\n  limit: 10\nother: {}\n')
  })

  it('keeps a comment after a field, indented deeper than the fields, when that field is unset', () => {
    expect(edited('web-search:\n  engine: bing\n  limit: 10\n      # deeper\nother: {}\n', (data) => ({ ...data, 'web-search': { engine: 'bing' } }))).toBe(
      'web-search:\n  engine: bing\n      # deeper\nother: {}\n',
    )
    expect(edited('web-search:\n  engine: bing\n      # deeper\n  limit: 10\nother: {}\n', (data) => ({ ...data, 'web-search': { limit: 10 } }))).toBe(
      'web-search:\n      # deeper\n  limit: 10\nother: {}\n',
    )
  })

  it('keeps a list item’s deeper comment when the item is removed', () => {
    expect(edited('web-search:\n  mirrors:\n    - a\n    - b\n        # deeper\n  limit: 1\n', (data) => ({ 'web-search': { mirrors: ['a'], limit: 1 } }))).toBe(
      'web-search:\n  mirrors:\n    - a\n        # deeper\n  limit: 1\n',
    )
  })

  it('keeps a comment a scalar had when a block takes its place, with its spacing', () => {
    expect(edited('web-search:\n  engine: bing   # the default\n', () => ({ 'web-search': { engine: { name: 'bing' } } }))).toBe('web-search:\n  engine:   # the default\n    name: bing\n')
  })
})

describe('hand-written YAML: editing into a section left empty', () => {
  const field = (value: unknown) => (data: Data) => ({ ...data, 'web-search': value })

  it('writes a field under a section whose fields are all commented out, keeping the comment lines', () => {
    expect(edited('web-search:\n  # engine: bing\n  # limit: 10\nother: {}\n', field({ engine: 'google' }))).toBe('web-search:\n  engine: google\n  # engine: bing\n  # limit: 10\nother: {}\n')
  })

  it.each([
    ['web-search: ~\nother: {}\n', 'web-search:\n  engine: google\nother: {}\n'],
    ['web-search: null   # my search\nother: {}\n', 'web-search:   # my search\n  engine: google\nother: {}\n'],
    ['web-search:    # my search\n  # engine: bing\nother: {}\n', 'web-search:    # my search\n  engine: google\n  # engine: bing\nother: {}\n'],
    ['web-search:   \nother: {}\n', 'web-search:   \n  engine: google\nother: {}\n'],
    ['web-search: &ws\nother: {}\n', 'web-search: &ws\n  engine: google\nother: {}\n'],
  ])('writes a field into %j in place', (text, expected) => {
    expect(edited(text, field({ engine: 'google' }))).toBe(expected)
  })

  it('leaves an empty section as {} after replace({}) or the last unset, keeping its comments', () => {
    expect(edited('web-search:\n  # engine: bing\nother: {}\n', field({}))).toBe('web-search: {}\n  # engine: bing\nother: {}\n')
    expect(edited('web-search:    # my search\nother: {}\n', field({}))).toBe('web-search: {}    # my search\nother: {}\n')
    expect(edited('web-search: # mine\n  engine: bing\n  # limit: 10\nother: {}\n', field({}))).toBe('web-search: {} # mine\n  # limit: 10\nother: {}\n')
  })
})

/** One section as a user might write it: a key with properties or in explicit form, comments around its fields. */
const sectionText = fc.record({
  prefix: fc.constantFrom('', '&ANCHOR ', '!!str ', '? '),
  note: fc.constantFrom('', ' # my section NOTE', '   # spaced NOTE'),
  fields: fc.subarray(['engine: bing', 'limit: 10', 'safe: true'], { minLength: 0 }),
  deeper: fc.boolean(),
  commentedOut: fc.boolean(),
})

/** A document of such sections; every comment and anchor is numbered, so each can be looked for in an edited text. */
const handWritten = fc.uniqueArray(fc.constantFrom('web-search', 'assistant', 'mail'), { minLength: 1, maxLength: 3 }).chain((keys) =>
  fc.tuple(...keys.map(() => sectionText)).map((sections) =>
    sections
      .map((section, index) => {
        const key = keys[index]!
        const note = section.note.replace('NOTE', String(index))
        const head = section.prefix === '? ' ? `? ${key}\n:${note}\n` : `${section.prefix.replace('ANCHOR', `a${index}`)}${key}:${note}\n`
        const lines = section.fields.map((field, at) => `  ${field}\n${section.deeper ? `      # deeper ${index}.${at}\n` : ''}`)
        const out = section.commentedOut ? `  # limit: 50 (commented out ${index})\n` : ''
        return head + lines.join('') + out
      })
      .join(''),
  ),
)

/** A write of one section: a field set, added or unset, the section replaced by {}, or a new section. */
const sectionWrite = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom('set', 'add', 'unset', 'empty', 'new'),
  value: fc.constantFrom<unknown>('google', 3, false, 'two words', { nested: 1 }),
})

describe('hand-written YAML: any write keeps it in place (property)', () => {
  it('edits generated hand-written documents in place, keeping every comment outside what it replaces', () => {
    fc.assert(
      fc.property(handWritten, fc.array(sectionWrite, { minLength: 1, maxLength: 3 }), (text, writes) => {
        const parsed = parseSettings(text, 'yaml', 'settings.yaml')
        const next: Data = structuredClone(parsed.data)
        for (const { pick, kind, value } of writes) {
          const keys = Object.keys(next)
          const key = keys[pick % keys.length]!
          const section: Data = next[key] ?? {}
          const fields = Object.keys(section)
          if (kind === 'new') next[`added-${pick % 5}`] = { engine: value }
          else if (kind === 'empty') next[key] = {}
          else if (kind === 'add') next[key] = { ...section, [`field${pick % 3}`]: value }
          else if (kind === 'set' && fields.length) next[key] = { ...section, [fields[pick % fields.length]!]: value }
          else if (kind === 'unset' && fields.length) next[key] = Object.fromEntries(Object.entries(section).filter(([name]) => name !== fields[pick % fields.length]))
        }
        const rendered = renderYaml(text, parsed, next)
        expect(rendered.preserved).toBe(true)
        expect(parseSettings(rendered.text, 'yaml', 'settings.yaml').data).toStrictEqual(next)
        for (const [index, key] of Object.keys(parsed.data).entries()) {
          // A key's line, its comment and anchor stay, and so do the lines around its fields, unless the
          // section was written whole (a value sharing no field with the old one): then its inner comments go with it.
          const before: Data = parsed.data[key] ?? {}
          const after: Data | undefined = next[key]
          const whole = after !== undefined && Object.keys(before).length > 0 && !Object.keys(after).some((field) => Object.hasOwn(before, field))
          const lines = text.split('\n')
          const kept = lines.filter((line) => line.includes(`&a${index} `)).map((line) => line.slice(0, line.indexOf(':') + 1))
          kept.push(...lines.map((line) => /[ \t]+# (my section|spaced) \d+$/.exec(line)?.[0]).filter((note) => note?.endsWith(` ${index}`)) as string[])
          if (!whole) kept.push(...lines.filter((line) => line.includes(`# deeper ${index}.`) || line.includes(`commented out ${index}`)))
          if (after === undefined) continue
          for (const piece of kept) expect(rendered.text).toContain(piece)
        }
      }),
      { numRuns: 400 },
    )
  })
})

describe('hand-written YAML through the provider', () => {
  const fx = fileFixture()

  it('adds a section to a document whose first key has an anchor without rendering it afresh', async () => {
    const file = join(fx.dir, 'settings.yaml')
    const text = '# my settings\n&search web-search:   # the engine\n  engine: bing\n\n# the end\n'
    await writeFile(file, text)
    fx.harness = await bootFile({ path: file, watch: false })
    await fx.harness.root.inject(['settings'], async (ctx) => {
      await ctx.settings.register('assistant', Schema.object({ model: Schema.string().default('small') })).update({ model: 'large' })
    })
    // The new section follows the last one; the comment closing the document stays last.
    expect(await readFile(file, 'utf8')).toBe('# my settings\n&search web-search:   # the engine\n  engine: bing\nassistant:\n  model: large\n\n# the end\n')
    expect(fx.harness.logs.join('\n')).not.toContain('rendered afresh')
  })

  it('writes into a section whose fields are all commented out, and empties it again, keeping those lines', async () => {
    const file = join(fx.dir, 'settings.yaml')
    await writeFile(file, 'web-search:   # my search\n  # engine: bing\n  # limit: 10\nassistant: {}\n')
    fx.harness = await bootFile({ path: file, watch: false })
    await fx.harness.root.inject(['settings'], async (ctx) => {
      const search = ctx.settings.register('web-search', Schema.object({ engine: Schema.string().default('bing'), limit: Schema.number().default(10) }))
      await search.update({ engine: 'google' })
      expect(await readFile(file, 'utf8')).toBe('web-search:   # my search\n  engine: google\n  # engine: bing\n  # limit: 10\nassistant: {}\n')
      await search.replace({})
      expect(await readFile(file, 'utf8')).toBe('web-search: {}   # my search\n  # engine: bing\n  # limit: 10\nassistant: {}\n')
    })
    expect(fx.harness.logs.join('\n')).not.toContain('rendered afresh')
  })
})
