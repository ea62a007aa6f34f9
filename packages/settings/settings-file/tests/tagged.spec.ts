// The codec's kept tags: a scalar with a tag the caller names reads as a TaggedScalar (tag and text) in every
// reader, renders back as the tag and the text byte-stably, and its position is found for a checker.
import { describe, expect, it } from 'vitest'
import { isTaggedScalar, parseSettings, renderChanges, renderDocument, rereadChanged, TaggedScalar, taggedScalarsIn } from 'dsh-settings-file/codec'

const TAGS = ['!secret', '!env', '!file']
const parse = (text: string) => parseSettings(text, 'yaml', 'x.yaml', undefined, { tags: TAGS })

describe('reading kept tags', () => {
  it('reads !secret, !env and !file scalars as TaggedScalar in block and flow, quoted or plain', () => {
    const text = 'a:\n  key: !secret web-search.apiKey\n  env: !env "HOME"\n  list: [!file /run/secrets/x, plain]\n  flow: {k: !secret \'a b\'}\n'
    const { data, tags } = parse(text)
    expect(tags).toEqual(TAGS)
    expect(data).toEqual({ a: { key: new TaggedScalar('!secret', 'web-search.apiKey'), env: new TaggedScalar('!env', 'HOME'), list: [new TaggedScalar('!file', '/run/secrets/x'), 'plain'], flow: { k: new TaggedScalar('!secret', 'a b') } } })
    expect(isTaggedScalar((data.a as Record<string, unknown>).key)).toBe(true)
  })

  it('keeps only the tags it is given: without them a tagged scalar reads as yaml reads it (a string)', () => {
    expect(parseSettings('a: !secret name\n', 'yaml', 'x.yaml').data).toEqual({ a: 'name' })
    expect(parseSettings('a: !other name\n', 'yaml', 'x.yaml', undefined, { tags: TAGS }).data).toEqual({ a: 'name' })
  })

  it('keeps the tags through a reread of a changed text', () => {
    const before = 'a:\n  key: !secret one\nb:\n  n: 1\n'
    const parsed = parse(before)
    const after = 'a:\n  key: !secret one\nb:\n  n: 2\n  other: !env TWO\n'
    const reread = rereadChanged(before, parsed, after) ?? parse(after)
    expect(reread.data).toEqual({ a: { key: new TaggedScalar('!secret', 'one') }, b: { n: 2, other: new TaggedScalar('!env', 'TWO') } })
  })
})

describe('rendering kept tags', () => {
  it('leaves a tagged line byte for byte when another value changes', () => {
    const text = '# top\na:\n  key:   !secret web-search.apiKey   # mine\n  n: 1\n'
    const parsed = parse(text)
    const next = { a: { ...(parsed.data.a as object), n: 2 } }
    expect(renderChanges('yaml', text, parsed, [{ path: ['a'], value: next.a }]).text).toBe('# top\na:\n  key:   !secret web-search.apiKey   # mine\n  n: 2\n')
  })

  it('writes a TaggedScalar as the tag and its text, quoting a text that needs it, and it reads back', () => {
    const text = 'a:\n  key: plain # keep\n  other: !env OLD\n'
    const parsed = parse(text)
    const value = { key: new TaggedScalar('!secret', 'preset/coder/web-search["a.b"]'), other: 'now plain', added: new TaggedScalar('!file', './key file') }
    const rendered = renderChanges('yaml', text, parsed, [{ path: ['a'], value }])
    expect(rendered.text).toBe('a:\n  key: !secret "preset/coder/web-search[\\"a.b\\"]" # keep\n  other: now plain\n  added: !file "./key file"\n')
    expect(parse(rendered.text).data).toEqual({ a: value })
  })

  it('renders tagged scalars inside a new block collection and a document rendered afresh', () => {
    const parsed = parse('')
    const next = { s: { list: [new TaggedScalar('!env', 'X'), 1], map: { k: new TaggedScalar('!secret', 's.map.k') } } }
    const rendered = renderDocument('yaml', '', parsed, next)
    expect(rendered.text).toBe('s:\n  list:\n    - !env X\n    - 1\n  map:\n    k: !secret s.map.k\n')
    expect(parse(rendered.text).data).toEqual(next)
  })

  it('quotes a text that would read as another type or kind of scalar', () => {
    for (const name of ['true', 'null', '12', '-x', 'a: b', '#c', ' lead', '']) {
      const next = { s: { k: new TaggedScalar('!secret', name) } }
      expect(parse(renderDocument('yaml', '', parse(''), next).text).data).toEqual(next)
    }
  })
})

describe('positions of tagged scalars', () => {
  it('gives each kept-tag scalar its path, tag, text and the line and column of its tag', () => {
    const text = '# c\nweb-search:\n  apiKey: !secret web-search.apiKey\nscopes:\n  preset/coder:\n    web-search:\n      list: [a, !env KEY]\n'
    expect(taggedScalarsIn(text, TAGS)).toEqual([
      { path: ['web-search', 'apiKey'], tag: '!secret', text: 'web-search.apiKey', offset: 26, line: 3, column: 11 },
      { path: ['scopes', 'preset/coder', 'web-search', 'list', 1], tag: '!env', text: 'KEY', offset: text.indexOf('!env'), line: 7, column: 17 },
    ])
    expect(taggedScalarsIn(text, [])).toEqual([])
    expect(taggedScalarsIn('a: !other x\n', TAGS)).toEqual([])
  })
})
