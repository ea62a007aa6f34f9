import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSettings, reparseChanged } from '../src/codec/parse.ts'

/** A small YAML document of top-level entries, some with comments and blank lines between them. */
const documentText = fc
  .array(
    fc.record({
      key: fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'web-search', 'scopes', '"quoted key"'),
      body: fc.constantFrom('  n: 1\n', '  list: [a, b]\n', '  s: "x y"\n', '  nested:\n    deep: true\n', '  block: |\n    line one\n    line two\n', '  {}\n'),
      before: fc.constantFrom('', '\n', '# a comment\n', '\n# note\n\n'),
      note: fc.constantFrom('', ' # on the key line'),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((entries) => {
    const seen = new Set<string>()
    return entries
      .filter((entry) => !seen.has(entry.key) && seen.add(entry.key))
      .map((entry) => `${entry.before}${entry.key}:${entry.body === '  {}\n' ? ` {}${entry.note}\n` : `${entry.note}\n${entry.body}`}`)
      .join('')
  })

/** A splice of YAML-ish characters anywhere in the text: most make another valid document, some a broken one. */
const splice = fc.record({
  at: fc.nat(),
  remove: fc.nat({ max: 12 }),
  insert: fc
    // With whole tokens a hand-written document has: a tagged root, an explicit key, a null, a document end.
    .array(fc.constantFrom(' ', ':', '-', '#', '\n', '"', "'", '[', ']', '{', '}', '&', '*', '!', '|', '>', 'a', 'b', '1', 'k', 'alpha', '!!set\n', '? ', '~', '...\n'), { maxLength: 12 })
    .map((units) => units.join('')),
})

function fullParse(text: string) {
  try {
    return parseSettings(text, 'yaml', 'settings.yaml')
  } catch {
    return undefined
  }
}

describe('reparseChanged', () => {
  it('reads an edited document exactly as a whole parse does, or declines', () => {
    fc.assert(
      fc.property(documentText, fc.array(splice, { minLength: 1, maxLength: 3 }), (before, splices) => {
        const parsed = parseSettings(before, 'yaml', 'settings.yaml')
        let after = before
        for (const { at, remove, insert } of splices) {
          const position = at % (after.length + 1)
          after = after.slice(0, position) + insert + after.slice(position + remove)
        }
        const quick = reparseChanged(before, parsed, after)
        if (!quick) return
        const whole = fullParse(after)
        // Whatever the quick read accepts, the whole parse accepts and reads the same way, pieces and all.
        expect(whole, after).toBeDefined()
        expect(quick.data).toStrictEqual(whole!.data)
        // The pieces tile the text, in the document's key order, and each reads alone as its entry.
        const pieces = quick.segments!
        expect(pieces.map((piece) => piece.key)).toEqual(Object.keys(whole!.data))
        expect(pieces[0]!.start).toBe(0)
        expect(pieces.at(-1)!.end).toBe(after.length)
        pieces.forEach((piece, index) => {
          if (index) expect(piece.start).toBe(pieces[index - 1]!.end)
          const alone = parseSettings(after.slice(piece.start, piece.end), 'yaml', 'settings.yaml').data
          expect(alone).toStrictEqual({ [piece.key]: whole!.data[piece.key] })
        })
      }),
      { numRuns: 5000 },
    )
  })

  it('keeps the sections outside the change as the very same objects', () => {
    const before = 'alpha:\n  n: 1\nbeta:\n  n: 2\ngamma:\n  n: 3\n'
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    const quick = reparseChanged(before, parsed, before.replace('n: 2', 'n: 22'))!
    expect(quick.data).toStrictEqual({ alpha: { n: 1 }, beta: { n: 22 }, gamma: { n: 3 } })
    expect(quick.data.alpha).toBe(parsed.data.alpha)
    expect(quick.data.gamma).toBe(parsed.data.gamma)
  })

  it('declines a change that repeats a key kept elsewhere, or links pieces together', () => {
    const before = 'alpha:\n  n: 1\nbeta:\n  n: 2\n'
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    expect(reparseChanged(before, parsed, before.replace('beta:', 'alpha:'))).toBeUndefined()
    expect(reparseChanged(before, parsed, before.replace('  n: 2', '  n: &x 2'))).toBeUndefined()
    expect(reparseChanged(before, parsed, before.replace('beta:\n', '---\nbeta:\n'))).toBeUndefined()
  })

  it('hands on only pieces that read alone (found by the property above)', () => {
    const before = '\n"quoted key":\n  n: 1\nweb-search:\n  nested:\n    deep: true\nscopes:\n  list: [a, b]\n'
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    let after = before
    for (const { at, remove, insert } of [{ at: 361956147, remove: 6, insert: '    ' }, { at: 1549840343, remove: 1, insert: '' }]) {
      const position = at % (after.length + 1)
      after = after.slice(0, position) + insert + after.slice(position + remove)
    }
    const quick = reparseChanged(before, parsed, after)
    for (const piece of quick?.segments ?? []) {
      expect(parseSettings(after.slice(piece.start, piece.end), 'yaml', 'settings.yaml').data).toStrictEqual({ [piece.key]: quick!.data[piece.key] })
    }
  })

  it('declines a change whose meaning runs on into the next entry (found by the property above)', () => {
    const before = 'gamma:\n  block: |\n    line one\n    line two\n\ndelta:\n  n: 1\n'
    const parsed = parseSettings(before, 'yaml', 'settings.yaml')
    // The block indicator commented out leaves a multi-line plain scalar that the next key breaks.
    const after = before.replace('  block: |', '#>  block: |')
    expect(() => parseSettings(after, 'yaml', 'settings.yaml')).toThrow()
    expect(reparseChanged(before, parsed, after)).toBeUndefined()
  })
})
