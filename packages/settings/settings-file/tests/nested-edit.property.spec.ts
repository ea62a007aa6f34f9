/**
 * Edits inside a large section touch only the child that holds them: every
 * other byte stays, the edited text reads back as the next document, and
 * shapes an indentation cut could misread (block scalars, quoted scalars
 * running over lines, comments at any depth, keys that read as numbers) never
 * yield a wrong document: they are cut correctly or edited whole.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { blockChildren } from '../src/codec/block-pieces.ts'
import { editNested, NESTED_MIN_BYTES } from '../src/codec/nested-edit.ts'
import { parseSettings } from '../src/codec/parse.ts'
import { rereadChanged } from '../src/codec/reread.ts'
import { renderYaml } from '../src/codec/serialize.ts'

/** Child shapes of the large section, each `[text, key]`: what a hand-written section holds. */
const SHAPES: ((key: string) => string)[] = [
  (key) => `  ${key}: 1\n`,
  (key) => `  ${key}: "a value"  # with a comment\n`,
  (key) => `  ${key}:\n    deep: true\n    label: x\n`,
  (key) => `  ${key}: |\n    line one\n\n    # not a comment\n  # a comment at the children's depth\n`,
  (key) => `  ${key}: >-\n    folded\n    text\n`,
  (key) => `  ${key}: "runs over\n    two lines"\n`,
  (key) => `  ${key}: [a, b,\n    c]\n`,
  (key) => `# a comment at column 0\n  ${key}:\n    - one\n    - two\n`,
  (key) => `  ${key}:\n    - id: x\n      note: y\n    - id: z\n`,
  (key) => `  ${key}: ~\n`,
  (key) => `  ${key}: 'single ''quoted'''\n`,
]

/** A padding child that makes the section large: a list of small records. */
function padding(count: number): string {
  let text = '  entries:\n'
  for (let index = 0; index < count; index++) text += `    - id: e-${index}\n      note: "record ${index}"\n      weight: ${index % 97}\n`
  return text
}

const sectionText = fc
  .record({
    shapes: fc.array(fc.nat(SHAPES.length - 1), { minLength: 1, maxLength: 6 }),
    entriesAt: fc.nat(6),
    tail: fc.constantFrom('', 'after:\n  n: 1\n', '\n# next\nafter: {a: 1}\n'),
  })
  .map(({ shapes, entriesAt, tail }) => {
    const children = shapes.map((shape, index) => SHAPES[shape]!(`k${index}`))
    children.splice(Math.min(entriesAt, children.length), 0, padding(400))
    return `# head\nfirst:\n  a: 1\n\nbig:\n${children.join('')}${tail}`
  })

/** A change somewhere below `big`: a scalar of a child, of something inside a child, or of a record of the list. */
const change = fc.record({ child: fc.nat(20), depth: fc.nat(3), item: fc.nat(399), value: fc.oneof(fc.integer({ min: -9, max: 999 }), fc.string({ maxLength: 6 }), fc.boolean(), fc.constant(null)) })

type Doc = Record<string, any>

/** `data` with one value below `big` set to `value` (a copy along the way; the rest shared, as the seam shares it). */
function changed(data: Doc, pick: { child: number; depth: number; item: number; value: unknown }): Doc {
  const big = data.big as Doc
  const keys = Object.keys(big)
  const key = keys[pick.child % keys.length]!
  const nextBig: Doc = { ...big }
  const current = big[key]
  if (key === 'entries') {
    const list = [...(current as Doc[])]
    list[pick.item % list.length] = { ...list[pick.item % list.length], note: pick.value }
    nextBig.entries = list
  } else if (pick.depth > 0 && current && typeof current === 'object' && !Array.isArray(current)) {
    nextBig[key] = { ...current, [Object.keys(current)[0] ?? 'added']: pick.value }
  } else if (pick.depth > 0 && Array.isArray(current) && current.length) {
    nextBig[key] = [pick.value, ...current.slice(1)]
  } else {
    nextBig[key] = pick.value
  }
  return { ...data, big: nextBig }
}

/** Where two texts differ: the length of their common head and tail. */
function sameEnds(a: string, b: string): { head: number; tail: number } {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  return { head, tail }
}

describe('edits inside a large section', () => {
  it('read back as the next document and leave every byte outside the edited child', () => {
    let nested = 0
    fc.assert(
      fc.property(sectionText, change, (text, pick) => {
        const parsed = parseSettings(text, 'yaml', 'settings.yaml')
        const next = changed(parsed.data as Doc, pick)
        const rendered = renderYaml(text, parsed, next, 'settings.yaml')
        expect(parseSettings(rendered.text, 'yaml', 'settings.yaml').data).toEqual(next)
        expect(rendered.preserved).toBe(true)
        const { head, tail } = sameEnds(text, rendered.text)
        // What changed lies inside `big`, and is small: the child, never the section.
        expect(head).toBeGreaterThanOrEqual(text.indexOf('\nbig:\n') + 6)
        expect(text.length - tail - head).toBeLessThan(400)
        const segment = parsed.segments!.find((candidate) => candidate.key === 'big')!
        const edits = [{ op: 'set' as const, path: ['big', 'x'], value: 1 }]
        if (editNested(text, segment.start, segment.end, 'big', (parsed.data as Doc).big, (parsed.data as Doc).big, edits, () => undefined) === undefined) return
        nested++
      }),
      { numRuns: 150 },
    )
    expect(nested).toBe(0) // an edit whose check fails never yields text
  }, 60_000)

  it('takes the cut for a one-field change in a large section (the edit reads only that child)', () => {
    const text = `big:\n  counter: 0\n${padding(400)}after: 1\n`
    expect(text.length).toBeGreaterThan(NESTED_MIN_BYTES)
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const data = parsed.data as Doc
    const next = { ...data, big: { ...data.big, counter: 5 } }
    const segment = parsed.segments!.find((candidate) => candidate.key === 'big')!
    const reads: string[] = []
    const edited = editNested(text, segment.start, segment.end, 'big', data.big, next.big, [{ op: 'set', path: ['big', 'counter'], value: 5 }], (piece, doc, edits, after) => {
      reads.push(piece)
      return { text: piece.replace('0', '5') }
    })
    expect(edited).toBe(`big:\n  counter: 5\n${padding(400)}`)
    expect(reads).toEqual(['  counter: 0\n'])
  })

  it('descends into a large child to the record a change is in', () => {
    const text = `big:\n  counter: 0\n${padding(400)}`
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const data = parsed.data as Doc
    const entries = [...data.big.entries]
    entries[200] = { ...entries[200], note: 'changed' }
    const next = { ...data, big: { ...data.big, entries } }
    const reads: string[] = []
    const edited = editNested(text, 0, text.length, 'big', data.big, next.big, [{ op: 'set', path: ['big', 'entries', 200, 'note'], value: 'changed' }], (piece) => {
      reads.push(piece)
      return { text: piece.replace('"record 200"', 'changed') }
    })
    expect(reads).toEqual(['    - id: e-200\n      note: "record 200"\n      weight: 6\n'])
    expect(parseSettings(edited!, 'yaml', 'settings.yaml').data).toEqual(next)
  })

  it('refuses a cut whose keys are not the data\'s keys, in order, or whose piece does not read as the data says', () => {
    const text = `big:\n  note: x\n  real: 1\n`
    const edit = [{ op: 'set' as const, path: ['big', 'real'], value: 2 }]
    const keep = (piece: string) => ({ text: piece })
    expect(editNested(text, 0, text.length, 'big', { real: 1, note: 'x' }, { real: 2, note: 'x' }, edit, keep)).toBeUndefined()
    expect(editNested(text, 0, text.length, 'big', { note: 'x' }, { note: 'x' }, edit, keep)).toBeUndefined()
    expect(editNested(text, 0, text.length, 'big', { note: 'x', real: 7 }, { note: 'x', real: 2 }, edit, keep)).toBeUndefined()
    expect(editNested(text, 0, text.length, 'big', { note: 'x', real: 1 }, { note: 'x', real: 2 }, edit, (piece) => ({ text: piece.replace('1', '2') }))).toBe(`big:\n  note: x\n  real: 2\n`)
  })

  it('refuses an edit that runs into the next child or leaves its indentation', () => {
    const text = `big:\n  a: 1\n  b: 2\n`
    const edit = [{ op: 'set' as const, path: ['big', 'a'], value: 3 }]
    const data = { a: 1, b: 2 }
    // Each edited piece reads alone as { a: 3 }, but not in its place.
    expect(editNested(text, 0, text.length, 'big', data, { a: 3, b: 2 }, edit, () => ({ text: '  a: 3\n  b:' }))).toBeUndefined()
    expect(editNested(text, 0, text.length, 'big', data, { a: 3, b: 2 }, edit, () => ({ text: 'a: 3\n' }))).toBeUndefined()
    expect(editNested(text, 0, text.length, 'big', data, { a: 3, b: 2 }, edit, () => ({ text: '  a: |\n' }))).toBeUndefined()
  })

  it('refuses explicit keys', () => {
    expect(blockChildren('big:\n  ? a\n  : 1\n', 0, 17)).toBeUndefined()
  })

  it('refuses keys YAML would not read as strings, tabs, and values on the key line', () => {
    expect(blockChildren('big:\n  1: a\n  b: c\n', 0, 19)).toBeUndefined()
    expect(blockChildren('big:\n  true: a\n', 0, 15)).toBeUndefined()
    expect(blockChildren('big:\n\ta: 1\n', 0, 11)).toBeUndefined()
    expect(blockChildren('big: {a: 1}\n', 0, 12)).toBeUndefined()
    expect(blockChildren('big:\n  "a": 1\n', 0, 14)).toBeUndefined()
  })

  it('reads a hand edit inside the section as a whole parse reads it, or leaves it to a whole parse', () => {
    let partial = 0
    fc.assert(
      fc.property(
        sectionText,
        fc.record({ at: fc.nat(), remove: fc.nat({ max: 8 }), insert: fc.array(fc.constantFrom(' ', ':', '-', '#', '\n', '"', '|', '[', ']', 'a', '1', 'k0', '  x: 2\n', '    - id: q\n'), { maxLength: 5 }).map((units) => units.join('')) }),
        (text, edit) => {
          const parsed = parseSettings(text, 'yaml', 'settings.yaml')
          const big = parsed.segments!.find((candidate) => candidate.key === 'big')!
          const at = big.start + 5 + (edit.at % (big.end - big.start - 5))
          const next = text.slice(0, at) + edit.insert + text.slice(Math.min(at + edit.remove, big.end))
          let whole: unknown
          try {
            whole = parseSettings(next, 'yaml', 'settings.yaml').data
          } catch {
            whole = undefined
          }
          const reread = rereadChanged(text, parsed, next)
          if (reread === undefined) return
          partial++
          expect(reread.data).toEqual(whole)
        },
      ),
      // Each run parses a ~30 KB document twice with yaml: 100 runs keep this near 10 s on a loaded machine.
      { numRuns: 100 },
    )
    expect(partial).toBeGreaterThan(5) // about one run in five reads partially; the rest are left to a whole parse
  }, 60_000)

  it('reads a one-field hand edit by reading that child alone, sharing everything else', () => {
    const text = `big:\n  counter: 0\n${padding(400)}after: 1\n`
    const parsed = parseSettings(text, 'yaml', 'settings.yaml')
    const reread = rereadChanged(text, parsed, text.replace('counter: 0', 'counter: 12'))!
    const before = parsed.data as Doc
    expect(reread.data).toEqual({ ...before, big: { ...before.big, counter: 12 } })
    expect((reread.data.big as Doc).entries).toBe(before.big.entries)
    expect(reread.data.after).toBe(before.after)
  })
})

