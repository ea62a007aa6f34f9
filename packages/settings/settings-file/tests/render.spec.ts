import { parseDocument, type Scalar } from 'yaml'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../src/codec/parse.ts'
import { isInline, renderAfterColon, renderBlock, renderFlow, renderKey, renderScalar } from '../src/codec/render.ts'

/** The parsed scalar node of `k: <source>`, as the editor sees the value it replaces. */
function scalarNode(source: string): Scalar {
  return parseDocument(`k: ${source}\n`).get('k', true) as Scalar
}

/** What `key: <rendered>` reads back as. */
function readBack(line: string): unknown {
  return parseSettings(line + '\n', 'yaml', 'settings.yaml').data
}

describe('isInline', () => {
  it('counts scalars and empty collections as one-line values', () => {
    for (const value of ['x', 0, true, null, [], {}]) expect(isInline(value)).toBe(true)
  })

  it('counts non-empty collections as blocks', () => {
    expect(isInline([1])).toBe(false)
    expect(isInline({ a: 1 })).toBe(false)
  })
})

describe('renderScalar', () => {
  it('keeps double quotes for a string replacing a double-quoted scalar, escaping as JSON does', () => {
    expect(renderScalar('new', scalarNode('"old"'))).toBe('"new"')
    expect(renderScalar('say "hi"\tnow', scalarNode('"old"'))).toBe('"say \\"hi\\"\\tnow"')
    expect(renderScalar('a\nb', scalarNode('"old"'))).toBe('"a\\nb"')
  })

  it("keeps single quotes for a string replacing a single-quoted scalar, doubling apostrophes", () => {
    expect(renderScalar('new', scalarNode("'old'"))).toBe("'new'")
    expect(renderScalar("it's", scalarNode("'old'"))).toBe("'it''s'")
  })

  it('leaves single quotes for a line break, which they cannot hold on one line', () => {
    expect(renderScalar('a\nb', scalarNode("'old'"))).toBe('"a\\nb"')
  })

  it('renders a non-string replacing a quoted scalar as its plain self', () => {
    expect(renderScalar(10, scalarNode('"old"'))).toBe('10')
    expect(renderScalar(false, scalarNode("'old'"))).toBe('false')
  })

  it('renders a plain string plain', () => {
    expect(renderScalar('plain', scalarNode('old'))).toBe('plain')
    expect(renderScalar('words, with spaces')).toBe('words, with spaces')
    expect(renderScalar('host:port')).toBe('host:port')
  })

  it('quotes strings that would read back as another type or as syntax', () => {
    for (const text of ['10', 'true', 'null', '', '#x', 'a: b', '- x', '  padded', '*alias', '&anchor']) {
      const rendered = renderScalar(text)
      expect(rendered).not.toBe(text)
      expect(readBack(`k: ${rendered}`)).toStrictEqual({ k: text })
    }
  })

  it('renders numbers, booleans and null plainly', () => {
    expect(renderScalar(42)).toBe('42')
    expect(renderScalar(0.5)).toBe('0.5')
    expect(renderScalar(true)).toBe('true')
    expect(renderScalar(null)).toBe('null')
  })

  it('renders empty collections in flow style', () => {
    expect(renderScalar([])).toBe('[]')
    expect(renderScalar({})).toBe('{}')
  })

  it('double-quotes a multi-line string so it stays on one line', () => {
    expect(renderScalar('line one\nline two')).toBe('"line one\\nline two"')
  })

  it('never folds a long string', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')
    expect(words.length).toBeGreaterThan(120)
    expect(renderScalar(words)).toBe(words)
    const unbroken = 'x'.repeat(150)
    expect(renderScalar(unbroken)).toBe(unbroken)
  })
})

describe('renderKey', () => {
  it('leaves ordinary keys plain, including scope ids with a slash', () => {
    expect(renderKey('web-search')).toBe('web-search')
    expect(renderKey('preset/coder')).toBe('preset/coder')
    expect(renderKey('two words')).toBe('two words')
  })

  it("quotes keys that would read back as another type: 'true', '1', 'null', '~'", () => {
    expect(renderKey('true')).toBe('"true"')
    expect(renderKey('1')).toBe('"1"')
    expect(renderKey('null')).toBe('"null"')
    expect(renderKey('~')).toBe('"~"')
  })

  it("quotes keys holding syntax: 'a: b', '#c', '- x', the empty key", () => {
    expect(renderKey('a: b')).toBe('"a: b"')
    expect(renderKey('#c')).toBe('"#c"')
    expect(renderKey('- x')).toBe('"- x"')
    expect(renderKey('')).toBe('""')
  })

  it('renders every key so that it reads back as that same string key', () => {
    for (const key of ['true', '1', '1.5', 'null', 'a: b', '#c', 'x #y', '-', '- x', '', '~', 'yes', '[a]', '{b}', '*x', '&y', '!tag', '%p', '@at', '`tick']) {
      expect(readBack(`${renderKey(key)}: 1`)).toStrictEqual({ [key]: 1 })
    }
  })

  it('quotes the merge key << so a literal key named << does not become a merge', () => {
    expect(renderKey('<<')).not.toBe('<<')
    expect(readBack(`${renderKey('<<')}: 1`)).toStrictEqual({ '<<': 1 })
  })
})

describe('renderFlow', () => {
  it('renders collections on one line in flow style', () => {
    expect(renderFlow({ a: 1, b: [1, 'two', { c: null }] })).toBe('{a: 1, b: [1, two, {c: null}]}')
    expect(renderFlow(['delta', 'alpha'])).toBe('[delta, alpha]')
  })

  it('renders empty collections as {} and []', () => {
    expect(renderFlow({})).toBe('{}')
    expect(renderFlow([])).toBe('[]')
  })

  it('quotes keys and values holding flow indicators inside collections', () => {
    expect(renderFlow({ 'a: b': 'x, y' })).toBe('{"a: b": "x, y"}')
  })

  it('renders a plain scalar as itself', () => {
    expect(renderFlow('str')).toBe('str')
    expect(renderFlow(3)).toBe('3')
  })

  it('quotes a lone string holding flow indicators, since it lands inside a flow collection', () => {
    for (const text of ['left, right', 'a]b', '{x}']) {
      expect(readBack(`k: [${renderFlow(text)}]`)).toStrictEqual({ k: [text] })
      expect(readBack(`k: {v: ${renderFlow(text)}}`)).toStrictEqual({ k: { v: text } })
    }
  })

  it('never folds a long flow collection', () => {
    const list = Array.from({ length: 40 }, (_, i) => `item${i}`)
    const rendered = renderFlow(list)
    expect(rendered).not.toContain('\n')
    expect(readBack(`k: ${rendered}`)).toStrictEqual({ k: list })
  })
})

describe('renderBlock', () => {
  it('indents every line of a map by the given amount, nesting by the given step', () => {
    expect(renderBlock({ a: 1, b: { c: [1, 2] } }, 2, 2)).toBe('  a: 1\n  b:\n    c:\n      - 1\n      - 2')
    expect(renderBlock({ a: 1, b: { c: [1, 2] } }, 4, 4)).toBe('    a: 1\n    b:\n        c:\n            - 1\n            - 2')
  })

  it('renders a list at the given indentation with maps aligned after the dash', () => {
    expect(renderBlock([1, { a: 1, b: 2 }], 0, 2)).toBe('- 1\n- a: 1\n  b: 2')
    expect(renderBlock(['x', 'y'], 2, 2)).toBe('  - x\n  - y')
  })

  it('has no final newline', () => {
    expect(renderBlock({ a: 1 }, 0, 2).endsWith('\n')).toBe(false)
  })

  it('keeps long strings on one line', () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')
    expect(renderBlock({ long: words }, 2, 2)).toBe(`  long: ${words}`)
  })

  it('leaves blank lines inside a block scalar unpadded', () => {
    const rendered = renderBlock({ a: 'x\n\ny' }, 2, 2)
    expect(rendered.split('\n')).toContain('')
    expect(rendered.split('\n').every((line) => line === '' || line.startsWith('  '))).toBe(true)
    expect(readBack(`root:\n${rendered}`)).toStrictEqual({ root: { a: 'x\n\ny' } })
  })
})

describe('renderAfterColon', () => {
  it('puts an inline value on the key line after one space', () => {
    expect(renderAfterColon(1, 0, 2, false)).toBe(' 1')
    expect(renderAfterColon('text', 4, 4, false)).toBe(' text')
    expect(renderAfterColon({}, 0, 2, false)).toBe(' {}')
    expect(renderAfterColon([], 0, 2, false)).toBe(' []')
  })

  it('puts a block one step deeper than its key on the following lines', () => {
    expect(renderAfterColon({ a: 1 }, 0, 2, false)).toBe('\n  a: 1')
    expect(renderAfterColon({ a: 1 }, 2, 4, false)).toBe('\n      a: 1')
  })

  it('honours an explicit child indentation, so a zero-indented list stays at its key column', () => {
    expect(renderAfterColon([1, 2], 2, 2, false, 2)).toBe('\n  - 1\n  - 2')
    expect(renderAfterColon({ a: 1 }, 2, 4, false, 8)).toBe('\n        a: 1')
  })

  it('never puts a map at or left of its key, whatever child indentation it is given', () => {
    expect(renderAfterColon({ a: 1 }, 2, 2, false, 2)).toBe('\n    a: 1')
    expect(renderAfterColon({ a: 1 }, 4, 4, false, 0)).toBe('\n        a: 1')
  })

  it('renders the value in flow style inside a flow collection', () => {
    expect(renderAfterColon({ a: [1] }, 0, 2, true)).toBe(' {a: [1]}')
    expect(renderAfterColon('x', 0, 2, true)).toBe(' x')
  })
})
