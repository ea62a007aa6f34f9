/**
 * The line scan that places `dsh settings check`'s lines without a second parse
 * (src/check/line-positions.ts) against yaml's own tree (src/check/positions.ts):
 * for every node of a document, and for paths leading past what it holds, both
 * give the same line and column, or the scan gives none and the tree is asked.
 * Fixture documents, hand-written shapes, and generated documents rendered by
 * `yaml` in block style.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { stringify } from 'yaml'
import { describe, expect, it } from 'vitest'
import { parseSettings } from 'dsh-settings-file/codec'
import { LinePositions } from '../src/check/line-positions.ts'
import { PositionedText } from '../src/check/positions.ts'
import { WORKSPACE } from './hosts.ts'

/** Every path of `data`'s nodes (the root too), and for each map and list one child it does not hold. */
function pathsOf(data: unknown, path: string[] = [], into: string[][] = []): string[][] {
  into.push(path)
  if (Array.isArray(data)) {
    data.forEach((item, index) => pathsOf(item, [...path, String(index)], into))
    into.push([...path, String(data.length)])
  } else if (typeof data === 'object' && data !== null) {
    for (const [key, value] of Object.entries(data)) pathsOf(value, [...path, key], into)
    into.push([...path, 'no-such-key'], [...path, 'no-such-key', 'below'])
  } else {
    into.push([...path, 'inside-a-scalar'])
  }
  return into
}

/** The scan's places for every path of `text`'s data, checked against the tree's; answers how many the scan gave. */
function compare(text: string): number {
  const { data } = parseSettings(text, 'yaml', 'settings.yaml')
  const tree = PositionedText.parse(text)
  const lines = LinePositions.of(text, data)
  let given = 0
  for (const path of pathsOf(data)) {
    for (const target of ['value', 'key'] as const) {
      const found = lines?.locate(path, target)
      if (found === undefined) continue
      given++
      expect({ path, target, at: found }).toEqual({ path, target, at: tree.locate(path, target) })
    }
  }
  return given
}

describe('the line scan places what yaml places', () => {
  it('on every fixture document the check reads', () => {
    let given = 0
    for (const name of ['clean.yaml', 'problems.yaml', 'plugins.yaml', 'setup.yaml', 'versioned.yaml', 'versioned-failing.yaml']) {
      given += compare(readFileSync(join(WORKSPACE, 'packages/tools/dsh/tests/fixtures', name), 'utf8'))
    }
    expect(given).toBeGreaterThan(100)
  })

  it('on the shapes hand-written documents have', () => {
    const texts = [
      // Comments, blank lines, quoted keys and values, an empty value, flow lists and maps, a trailing comment.
      '# settings\nweb-search:\n  engine: "bing"   # the default\n\n  limit: 10\n  "odd key": \'it\'\'s\'\n  empty:\n  tags: [a, "b, c", \'d\']\n  none: []\n  map: {}\n',
      // A list at its key's column, lists of maps (`- key: value`), maps nested in them.
      'a:\n- x\n- y: 1\n  z: 2\nb:\n  list:\n    - one\n    - two: 2\n      three:\n        deep: true\n',
      // Keys an object orders otherwise (integer-like), CRLF line ends, a quoted key with an escape.
      'scopes:\r\n  preset/a:\r\n    ns:\r\n      "2": two\r\n      "1": one\r\n      "a\\tb": tab\r\n',
      // A document of nothing but comments.
      '# nothing here\n',
    ]
    for (const text of texts) expect(compare(text)).toBeGreaterThan(texts.at(-1) === text ? 0 : 5)
  })

  it('leaves to the tree what it cannot place: aliases and merges (which the data reads through), block scalars, flow maps, a list in a list', () => {
    for (const text of ['a: &x\n  b: 1\nc: *x\n', 'base: &b\n  k: 1\nns:\n  <<: *b\n  own: 2\n', 'a: |\n  text\n  more\nb: 1\n', 'a: {b: 1, c: [2]}\n', 'a:\n- - 3\n']) {
      const { data } = parseSettings(text, 'yaml', 'settings.yaml')
      const lines = LinePositions.of(text, data)
      const tree = PositionedText.parse(text)
      for (const path of pathsOf(data)) {
        const found = lines?.locate(path)
        if (found !== undefined) expect(found).toEqual(tree.locate(path))
      }
    }
    // An alias to a map reads as that map: the scan sees a scalar there, and steps aside.
    const aliased = 'a: &x\n  b: 1\nc: *x\n'
    expect(LinePositions.of(aliased, parseSettings(aliased, 'yaml', 'settings.yaml').data)?.locate(['c', 'b'])).toBeUndefined()
  })

  it('on generated documents rendered by yaml in block style', () => {
    const key = fc.oneof(fc.constantFrom('a', 'b', 'web-search', 'preset/x', 'odd key', 'k:v', '#hash', "it's", '"q"', '10', '007', 'true', 'null', ''), fc.string({ maxLength: 6 }))
    const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom('a: b', '- x', '#c', '[x]', 'yes', '1.5e3', ' lead', 'trail '))
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
    }))
    let given = 0
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 }), (data) => {
        const text = stringify(data)
        let parsed: Record<string, unknown>
        try {
          parsed = parseSettings(text, 'yaml', 'settings.yaml').data
        } catch {
          return
        }
        const tree = PositionedText.parse(text)
        const lines = LinePositions.of(text, parsed)
        for (const path of pathsOf(parsed)) {
          for (const target of ['value', 'key'] as const) {
            const found = lines?.locate(path, target)
            if (found === undefined) continue
            given++
            expect(found).toEqual(tree.locate(path, target))
          }
        }
      }),
      { numRuns: 400 },
    )
    expect(given).toBeGreaterThan(1000)
  })
})
