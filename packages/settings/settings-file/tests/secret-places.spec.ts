/**
 * Where a raw section holds references: the quick check that lets a section
 * without any skip the path-building walk, against that walk itself, on
 * references of every form and depth, near misses, and `__proto__` keys.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TaggedScalar } from '../src/codec/index.ts'
import { holdsReference, noteReferenceFree, referencesIn } from '../src/provider/secret-places.ts'

const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.constantFrom(new TaggedScalar('!secret', 'a.b'), new TaggedScalar('!env', 'X'), new TaggedScalar('!file', '/run/x'), new TaggedScalar('!other', 'x')),
  fc.constantFrom({ $secret: 'a.b' }, { $env: 'X' }, { $file: 'f' }, { $secret: '' }, { $secret: 'a', more: 1 }, { $other: 'x' }, { $env: 5 }),
)
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', '$secret', '$x', '__proto__', 'valueOf'), tie('tree'), { maxKeys: 4 }),
  ),
}))

describe('holdsReference', () => {
  it('agrees with referencesIn on every tree: some reference found exactly when the walk lists one', () => {
    fc.assert(fc.property(tree, (root) => holdsReference(root) === referencesIn(root).length > 0), { numRuns: 2000 })
  })

  it('finds a reference deep in a large list, and none in a large list without one', () => {
    const records = Array.from({ length: 50_000 }, (_, id) => ({ id, name: `record ${id}`, tags: ['a', 'b'] }))
    expect(holdsReference({ records })).toBe(false)
    records[49_999]!.tags.push(new TaggedScalar('!secret', 'x') as never)
    expect(holdsReference({ records })).toBe(true)
  })

  it('skips the objects noted free of references, and only those', () => {
    const records = Array.from({ length: 1_000 }, (_, id) => ({ id, name: `record ${id}` }))
    const free = new WeakSet<object>()
    noteReferenceFree({ limit: 3, records }, free)
    // A later section keeping the noted list, with a reference beside it: found.
    expect(holdsReference({ limit: 4, records, token: new TaggedScalar('!env', 'TOKEN') }, free)).toBe(true)
    // The noted list itself is not walked again: a reference planted in it (which a reread never does: it makes a
    // new list for changed text) goes unseen with the note and is found without it.
    records[500]!.name = new TaggedScalar('!secret', 'x') as never
    expect(holdsReference({ limit: 5, records }, free)).toBe(false)
    expect(holdsReference({ limit: 5, records })).toBe(true)
    // What lies deeper than the top two levels is not noted: a kept record is walked.
    expect(holdsReference({ other: [records[500]] }, free)).toBe(true)
  })
})
