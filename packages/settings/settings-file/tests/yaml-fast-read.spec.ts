/**
 * The fast reader (js-yaml) against `yaml` itself: whatever text the fast
 * reader takes, `yaml` with the provider's options must read without a
 * problem and as the same data, and the pieces found by scanning lines must be
 * pieces that read alone as their entry. Checked on every document of the YAML
 * test suite (as given, with CRLF line ends, and as the value of a section)
 * and on generated texts: data written by both libraries in many styles, then
 * cut and spliced at random.
 */
import fc from 'fast-check'
import { dump } from 'js-yaml'
import { dataEqual } from 'dsh-settings'
import { describe, expect, it } from 'vitest'
import { stringify } from 'yaml'
import { parseSettings, parseYaml, YAML_OPTIONS } from '../src/codec/parse.ts'
import { segmentsOf, segmentsOfPlainText, type Segment } from '../src/codec/segments.ts'
import { isCoreNonString } from '../src/codec/core-schema.ts'
import { OUTSIDE_SUBSET, outsideSubset, readYamlData } from '../src/codec/yaml-fast-read.ts'
import { readLineData } from '../src/codec/yaml-line-read.ts'
import { suiteCases } from './suite-edits.ts'

/** What `yaml` reads, with the provider's options: its data, or `undefined` when it finds a problem or the root is not a map. */
function yamlRead(text: string): { data: Record<string, unknown>; segments: Segment[] | undefined } | undefined {
  const { doc, problems } = parseYaml(text)
  if (problems.length) return undefined
  let data: unknown
  try {
    data = doc.toJS(YAML_OPTIONS) ?? {}
  } catch {
    return undefined
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
  return { data: data as Record<string, unknown>, segments: segmentsOf(text, doc) }
}

/** The disagreement between the fast reader and `yaml` on `text`, or `undefined` when there is none. */
function disagreement(text: string): string | undefined {
  const fast = readYamlData(text)
  if (fast === undefined) return undefined
  const slow = yamlRead(text)
  if (!slow) return 'the fast reader took a text yaml refuses'
  if (!dataEqual(fast, slow.data) || !sameNumbers(fast, slow.data)) return 'the two read different data'
  const pieces = segmentsOfPlainText(text, fast)
  if (!pieces) return undefined
  if (pieces[0]!.start !== 0 || pieces.at(-1)!.end !== text.length) return 'the pieces do not cover the text'
  for (const [index, piece] of pieces.entries()) {
    if (index && piece.start !== pieces[index - 1]!.end) return 'the pieces are not contiguous'
    const alone = yamlRead(text.slice(piece.start, piece.end))
    if (!alone || !dataEqual(alone.data, { [piece.key]: slow.data[piece.key] })) return `piece ${piece.key} does not read alone as its entry`
  }
  if (slow.segments && JSON.stringify(slow.segments) !== JSON.stringify(pieces)) return 'the pieces differ from those of the node tree'
  return undefined
}

/** `dataEqual` with -0, NaN and the infinities told apart exactly, as a number reads. */
function sameNumbers(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b)
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return true
  const keys = Object.keys(a)
  return keys.every((key) => sameNumbers((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}

/**
 * Check texts of `base` cut and spliced at random: one to four splices, each cutting up to four
 * characters somewhere and inserting up to four of `pieces` there.
 */
function assertSpliced(base: fc.Arbitrary<string>, pieces: readonly string[], numRuns: number, check: (text: string) => void): void {
  const splice = fc.record({ at: fc.nat(), cut: fc.nat({ max: 4 }), insert: fc.array(fc.constantFrom(...pieces), { maxLength: 4 }) })
  fc.assert(
    fc.property(base, fc.array(splice, { minLength: 1, maxLength: 4 }), (start, edits) => {
      let text = start
      for (const edit of edits) {
        const at = text.length ? edit.at % (text.length + 1) : 0
        text = text.slice(0, at) + edit.insert.join('') + text.slice(at + edit.cut)
      }
      check(text)
    }),
    { numRuns },
  )
}

describe('the fast reader', () => {
  it('agrees with yaml on every document of the YAML test suite, as given, with CRLF line ends and nested in a section', () => {
    let taken = 0
    const wrong: string[] = []
    for (const entry of suiteCases()) {
      const variants = [entry.yaml, entry.yaml.replace(/\n/g, '\r\n'), `section:\n${entry.yaml.replace(/^(?=.)/gm, '  ')}`]
      for (const [index, text] of variants.entries()) {
        if (readYamlData(text) !== undefined) taken++
        const problem = disagreement(text)
        if (problem) wrong.push(`${entry.id} (variant ${index}): ${problem}`)
      }
    }
    expect(wrong).toEqual([])
    // Exact, as the editor's suite counts: the reader takes the plain documents and declines the rest
    // (anchors, tags, flow keys, several documents…); a change in what it takes shows here. 105 since the
    // line reader: it also takes AZW3 nested in a section (`- bla]keks: foo`), which js-yaml refuses.
    expect(taken).toBe(105)
  })

  it('agrees with yaml on data written by yaml and by js-yaml in many styles', () => {
    const key = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('a', 'b c', 'x-y', 'true', '1', 'null', '~', '', '-a', 'é', '日本', '__proto__', 'a:b', 'a #b'))
    const text = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('', ' ', 'a\nb', 'a\n\nb\n', ' lead', 'trail ', '#x', 'a: b', '- a', '"q"', "'q'", '0o17', '0x1F', '1_000', '1e3', '.5', '+1', '-0', '.inf', '.NaN', 'yes', 'No', '2001-12-14', 'null', '~', '|', '>', 'http://x.y/?a=1&b=2'),
    )
    const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null))
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
    })).node
    const root = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 })
    const style = fc.constantFrom<(data: unknown) => string>(
      (data) => stringify(data),
      (data) => stringify(data, { lineWidth: 20, minContentWidth: 5 }),
      (data) => stringify(data, { defaultStringType: 'QUOTE_DOUBLE' }),
      (data) => stringify(data, { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' }),
      (data) => stringify(data, { blockQuote: 'literal', indentSeq: false }),
      (data) => stringify(data, { collectionStyle: 'flow' }),
      (data) => dump(data, { lineWidth: 20 }),
      (data) => dump(data, { flowLevel: 1 }),
      (data) => dump(data, { noCompatMode: true, quotingType: '"' }),
    )
    fc.assert(
      fc.property(root, style, (data, write) => {
        let written: string
        try {
          written = write(data)
        } catch {
          return
        }
        expect(disagreement(written)).toBeUndefined()
      }),
      { numRuns: 1500 },
    )
  })

  it('agrees with yaml on texts cut and spliced at random', () => {
    const pieces = ['"a\n b"', '\\n', "''", '|2', '>1', '\n\n', ' - ', 'k: ', '\n   ', '\n- ', '\n  - ', '\n    ', '\n', ' ', '  ', ':', ': ', '- ', '-', '#', ' #', '"', "'", '\\', '[', ']', '{', '}', ',', '|', '>', '|-', '>+', 'a', 'b: c', 'x', '1', '.', '\r\n', '\n  ', '\n- ', '~', 'null', 'é']
    const base = fc.constantFrom(...suiteCases().map((entry) => entry.yaml), 'a: 1\nb:\n  c: [1, 2]\n  d: "x\\ty"\ne: |\n  text\n  more\nf: >-\n  folded\n  line\n')
    assertSpliced(base, pieces, 5000, (text) => expect(disagreement(text)).toBeUndefined())
  })

  it('looks quickly for what it leaves to yaml, missing nothing the full pattern finds', () => {
    // The quick look (MAYBE_OUTSIDE_SUBSET, then the full pattern only where it matches) must answer as the full pattern.
    for (const entry of suiteCases()) {
      for (const text of [entry.yaml, entry.yaml.replace(/\n/g, '\r\n'), `section:\n${entry.yaml.replace(/^(?=.)/gm, '  ')}`]) {
        expect(outsideSubset(text), entry.id).toBe(OUTSIDE_SUBSET.test(text))
      }
    }
    const pieces = ['&a ', '*a', '!t ', '? ', '?', '%YAML', '<<: ', '---', '...', '\t', '\r', '\r\n', '\\\r', '\uFEFF', '\u2028', '\uD800', '\uDC00', '\x01', '\x85', '|+', '>2+', '|\n  \n ', ']:', '}: ', '{[', ', {', '"#', ']#', '-\n', '- -', '-  #x', '\n ', '\n  ', ' ', 'a', ': ', '\n- ', '#', '"', "'", '[', '{', '-', '|', '>']
    const base = fc.constantFrom('a: 1\nb:\n  - x\n  - y\n', 'k: "v"\nl: [1, 2]\n', '', 'x: |\n  t\n')
    const splice = fc.record({ at: fc.nat(), insert: fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 5 }) })
    fc.assert(
      fc.property(base, fc.array(splice, { minLength: 1, maxLength: 4 }), (start, edits) => {
        let text = start
        for (const edit of edits) {
          const at = text.length ? edit.at % (text.length + 1) : 0
          text = text.slice(0, at) + edit.insert.join('') + text.slice(at)
        }
        expect(outsideSubset(text)).toBe(OUTSIDE_SUBSET.test(text))
      }),
      { numRuns: 20000 },
    )
  })

  it('declines what it must leave to yaml, and takes plain documents', () => {
    for (const text of ['a: [1,\n  2]\n', 'a:\n  - \n- b\n', 'a: "x"#c\n', 'a: |+\n  x\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', '%YAML 1.2\n---\na: 1\n', '--- \na: 1\n', '? a\n: 1\n', 'a:\n  <<: {b: 1}\n', 'a:\t1\n', '\uFEFFa: 1\n', '- a\n', 'just a scalar\n', '1: a\n', 'true: a\n', '~: a\n', 'a: 1\na: 2\n', '__proto__: {a: 1}\n']) {
      expect(readYamlData(text), JSON.stringify(text)).toBeUndefined()
    }
    expect(readYamlData('')).toEqual({})
    expect(readYamlData('# only a comment\n')).toEqual({})
    expect(readYamlData('url: http://x.y/?a=1&b=2\nwhy: really?\nstars: a*b\n')).toEqual({ url: 'http://x.y/?a=1&b=2', why: 'really?', stars: 'a*b' })
    expect(readYamlData('n: 0o17\nh: 0x1F\nu: 1_000\nd: 2001-12-14\nb: yes\nf: .5\ni: -.inf\nz: ~\n')).toEqual({ n: 15, h: 31, u: '1_000', d: '2001-12-14', b: 'yes', f: 0.5, i: Number.NEGATIVE_INFINITY, z: null })
  })

  it('tells the core schema’s non-strings from strings', () => {
    for (const text of ['', '~', 'null', 'NULL', 'true', 'False', '0', '-12', '0o7', '0xfF', '1.5', '.5', '1e3', '-1.5E-3', '.inf', '-.Inf', '.NaN']) expect(isCoreNonString(text), text).toBe(true)
    for (const text of ['yes', 'no', 'on', '1_000', '0b1', '0o8', '0xG', '1.2.3', 'nan', 'inf', 'a', '+.inf.']) expect(isCoreNonString(text), text).toBe(false)
  })
})

/** What the line reader takes: texts that pass the fast reader's subset check first, as in `readYamlData`. */
function lineRead(text: string): Record<string, unknown> | undefined {
  return outsideSubset(text) ? undefined : readLineData(text)
}

/** The disagreement between the line reader alone and `yaml` on `text`, or `undefined` when there is none. */
function lineDisagreement(text: string): string | undefined {
  const fast = lineRead(text)
  if (fast === undefined) return undefined
  const slow = yamlRead(text)
  if (!slow) return 'the line reader took a text yaml refuses'
  if (!dataEqual(fast, slow.data) || !sameNumbers(fast, slow.data)) return 'the two read different data'
  if (JSON.stringify(Object.keys(fast)) !== JSON.stringify(Object.keys(slow.data))) return 'the keys come in another order'
  return undefined
}

describe('the line reader', () => {
  // Keys and scalars a settings file holds, and the ones where the rules part: indicators, `: `, ` #`, quotes, core non-strings.
  const key = fc.oneof(fc.constantFrom('a', 'b c', 'x-y', 'name', 'é', '日本', 'true', '1', 'null', '', '-a', 'a:b', 'a #b', 'a#b', "it's", '"q"', '__proto__', 'toString', 'k '), fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/))
  const text = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.stringMatching(/^[a-zA-Z0-9 .,:#'"\/@?!&*[\]{}|>%-]{0,12}$/),
    fc.constantFrom('', ' ', 'a b', ' lead', 'trail ', '#x', 'a #b', 'a#b', 'a: b', 'a:', ':a', '- a', '-a', '--a', '-1', '"q"', "'q'", 'it\'s', 'x\ty', '0o17', '0x1F', '1_000', '1e3', '.5', '+1', '-0', '.inf', '.NaN', 'yes', '2001-12-14', 'null', '~', '|', '>', '[a]', '{}', 'a, b', 'a]b', 'http://x.y/?a=1&b=2', '\u00e9', 'é', '日本'),
  )
  const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null))
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
  })).node
  const root = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 })
  const style = fc.constantFrom<(data: unknown) => string>(
    (data) => stringify(data),
    (data) => stringify(data, { indentSeq: false }),
    (data) => stringify(data, { indent: 4, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' }),
    (data) => stringify(data, { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN', lineWidth: 0 }),
    (data) => dump(data, { lineWidth: -1 }),
    (data) => dump(data, { flowLevel: 2, lineWidth: -1 }),
    (data) => dump(data, { noCompatMode: true, quotingType: '"', lineWidth: -1 }),
  )
  // What editors and people add to a written text: comments after values and on lines of their own, blank lines, CRLF.
  const dress = fc.record({ comments: fc.boolean(), blanks: fc.boolean(), crlf: fc.boolean() })
  function dressed(written: string, how: { comments: boolean; blanks: boolean; crlf: boolean }): string {
    let out = written
    if (how.comments) out = out.replace(/^( *)(.*[^ \n])$/gm, (line, indent: string) => `${indent}# note\n${line} # after`)
    if (how.blanks) out = out.replace(/\n/g, '\n\n')
    return how.crlf ? out.replace(/\n/g, '\r\n') : out
  }

  /**
   * How many of the texts `data` written in a style and dressed the line reader took, of those the subset check let
   * through (`- - a` for a list in a list, for one, is left to yaml before the line reader looks); each must read as in `yaml`.
   */
  function readsWritten(data: fc.Arbitrary<Record<string, unknown>>, runs: number): { taken: number; tried: number } {
    let taken = 0
    let tried = 0
    fc.assert(
      fc.property(data, style, dress, (written, write, how) => {
        let text: string
        try {
          text = dressed(write(written), how)
        } catch {
          return
        }
        if (!outsideSubset(text)) tried++
        if (lineRead(text) !== undefined) taken++
        expect(lineDisagreement(text)).toBeUndefined()
      }),
      { numRuns: runs },
    )
    return { taken, tried }
  }

  it('reads as yaml does whatever written text it takes', () => {
    readsWritten(root, 3000)
  })

  it('takes nearly every text of ordinary settings, however written', () => {
    // Keys and values as settings hold them: names, words, numbers, switches, lists and maps of them.
    const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/).filter((name) => !isCoreNonString(name))
    const plain = fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ./_-]{0,15}$/), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true }))
    const ordinary = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, plain, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(word, tie('node'), { maxKeys: 4 })),
    })).node
    const { taken, tried } = readsWritten(fc.dictionary(word, ordinary, { minKeys: 1, maxKeys: 5 }), 2000)
    expect(taken / tried).toBeGreaterThan(0.9)
  })

  it('reads as yaml does whatever it takes of texts cut and spliced at random', () => {
    const pieces = ['\n', '\n  ', '\n    ', '\n- ', '\n  - ', ' ', '  ', ':', ': ', '- ', '-', '#', ' #', '"', "'", "''", '\\', '\\n', '\\x', '[', ']', '{', '}', '[]', '{}', ',', ', ', '|', '>', 'a', 'b: c', 'k:', '1', '~', 'null', '\r\n', 'é', '"q"', "'q'", '-1']
    const base = fc.oneof(
      fc.constantFrom('a: 1\nb:\n  c: [1, "x", y]\n  d: "x\\ty"\ne:\n- f\n- g: h\n  i: j\nk: {}\n', 'list:\n  - id: a\n    note: "n # not a comment"\n    w: -3\n  - id: b # c\n    note: \'it\'\'s\'\n'),
      fc.tuple(root, style).map(([data, write]) => write(data)),
    )
    assertSpliced(base, pieces, 6000, (text) => expect(lineDisagreement(text)).toBeUndefined())
  })

  it('takes the lines settings files are made of', () => {
    const text = [
      '# settings',
      'search:',
      '  engine: "bing"   # the default',
      "  note: 'it''s #1'",
      '  limit: -10',
      '  tags: [a, "b c", 3]',
      '  empty: []',
      '  none: {}',
      '  url: http://x.y/?a=1#top',
      '  unset:',
      'list:',
      '- id: a',
      '  weight: 0x1F',
      '-   id: b',
      '    rows:',
      '      - 1.5',
      '      - ~',
      'escaped: "tab\\t, quote \\", \\u00e9"',
      'last:',
    ].join('\r\n')
    expect(readLineData(text)).toEqual({
      search: { engine: 'bing', note: "it's #1", limit: -10, tags: ['a', 'b c', 3], empty: [], none: {}, url: 'http://x.y/?a=1#top', unset: null },
      list: [{ id: 'a', weight: 31 }, { id: 'b', rows: [1.5, null] }],
      escaped: 'tab\t, quote ", é',
      last: null,
    })
    expect(lineDisagreement(text)).toBeUndefined()
    // 100 deep is still taken.
    const deep = readLineData(Array.from({ length: 100 }, (_, depth) => `${'  '.repeat(depth)}k:`).join('\n') + ' 1\n')
    let level: unknown = deep
    for (let depth = 0; depth < 100; depth++) level = (level as Record<string, unknown>).k
    expect(level).toBe(1)
    expect(readLineData('')).toEqual({})
    expect(readLineData('# nothing\n\n')).toEqual({})
  })

  it('declines what is not one entry per line, or what it cannot be sure of', () => {
    for (const text of [
      'a: |\n  text\n',
      'a: >-\n  text\n',
      'a: "open\n  still"\n',
      'a: plain\n  more\n',
      'a: [1,\n  2]\n',
      'a: [[1]]\n',
      'a: {b: 1}\n',
      'a: [b, ]\n',
      'a: [b,, c]\n',
      'a: [b:c]\n',
      'a: b: c\n',
      'a: b:\n',
      'a: - b\n',
      'a: "x\\x41"\n',
      'a: "x" y\n',
      'a#b: 1\n',
      'a:b: 1\n',
      '-a: 1\n',
      '"1": a\n',
      'true: a\n',
      '__proto__: a\n',
      'a: 1\na: 2\n',
      'a:\n  b: 1\n b: 2\n',
      'a:\n  b: 1\n    c: 2\n',
      'a:\n  - 1\n  b: 2\n',
      '- a\n',
      '  a: 1\n',
      'just text\n',
      'a: @b\n',
      'a: `b\n',
      'a: --b\n',
      `${'k'.repeat(1100)}: v\n`,
      // Deeper than 100 collections (js-yaml's own limit): left to yaml, as js-yaml leaves it.
      Array.from({ length: 101 }, (_, depth) => `${'  '.repeat(depth)}k:`).join('\n') + ' 1\n',
      Array.from({ length: 101 }, (_, depth) => `${'  '.repeat(depth)}- k:`).join('\n') + ' 1\n',
    ]) {
      expect(readLineData(text), JSON.stringify(text)).toBeUndefined()
    }
  })
})

describe('the provider reading through the fast reader', () => {
  it('reads a plain document as yaml does, with its pieces, and builds the node tree only when asked', () => {
    const text = '# settings\nsearch:\n  engine: bing\n  limit: 10\n\ntheme:\n  dark: true\n'
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    expect(parsed.data).toEqual({ search: { engine: 'bing', limit: 10 }, theme: { dark: true } })
    expect(parsed.segments).toEqual([
      { key: 'search', start: 0, end: text.indexOf('theme:') },
      { key: 'theme', start: text.indexOf('theme:'), end: text.length },
    ])
    expect(parsed.yaml!.toJS()).toEqual(parsed.data)
    expect(parsed.yaml).toBe(parsed.yaml)
  })

  it('still refuses what yaml refuses, with yaml’s position', () => {
    expect(() => parseSettings('a: 1\na: 2\n', 'yaml', 'settings.yaml')).toThrow(/DUPLICATE_KEY at line 2, column 1/)
    expect(() => parseSettings('a: [1\n', 'yaml', 'settings.yaml')).toThrow(/not valid YAML/)
    expect(() => parseSettings('- a\n', 'yaml', 'settings.yaml')).toThrow(/its root is a sequence/)
  })
})
