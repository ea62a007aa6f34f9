/**
 * Re-resolving only the keys a write changed must give exactly what resolving
 * the whole value gives: the same data, the same key order, the same refusals.
 */
import fc from 'fast-check'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { frozenCopy } from '../src/data.ts'
import { mergeLayers } from '../src/merge.ts'
import { resolveChanged } from '../src/resolve-changed.ts'

const schema = Schema.object({
  name: Schema.string().default('anon'),
  limit: Schema.natural().max(100).default(10),
  nested: Schema.object({ on: Schema.boolean().default(false), label: Schema.string() }),
  tags: Schema.array(String).default([]),
  mode: Schema.union(['a', 'b']).default('a'),
  token: Schema.string().role('secret'),
  shout: Schema.transform(Schema.string(), (text) => text.toUpperCase()),
  required: Schema.number(),
})

/** A value for any key: right or wrong for the schema, so refusals are tried too. */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -5, max: 200 }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  fc.record({ on: fc.oneof(fc.boolean(), fc.string({ maxLength: 2 })), label: fc.string({ maxLength: 3 }) }, { requiredKeys: [] }),
  fc.constantFrom('a', 'b', 'c'),
)
const keys = ['name', 'limit', 'nested', 'tags', 'mode', 'token', 'shout', 'required', 'extra', 'other']
const layer = fc.option(fc.dictionary(fc.constantFrom(...keys), anyValue, { maxKeys: 6 }), { nil: undefined })

/** What resolving the whole value answers: the frozen value, or the refusal's path. */
function whole(layers: readonly unknown[]): { value?: unknown; refused?: unknown } {
  try {
    return { value: frozenCopy(schema(mergeLayers(layers) as never)) }
  } catch (error) {
    return { refused: (error as { options?: { path?: unknown } }).options?.path ?? 'error' }
  }
}

/** The next layers: each key of each layer kept (the same object) or given another value; no key added, none removed. */
function nextOf(layers: readonly (Record<string, unknown> | undefined)[], changes: readonly [number, number, unknown][]) {
  const next = layers.map((item) => (item === undefined ? undefined : { ...item }))
  for (const [index, which, value] of changes) {
    const target = next[index % next.length]
    if (!target) continue
    const present = Object.keys(target).filter((key) => target[key] !== undefined)
    if (present.length && value !== undefined) target[present[which % present.length]!] = value
  }
  return next
}

describe('resolveChanged', () => {
  it('answers what a whole resolution answers, and keeps unchanged keys as they were', () => {
    let shortcuts = 0
    fc.assert(
      fc.property(fc.array(layer, { minLength: 1, maxLength: 3 }), fc.array(fc.tuple(fc.nat(5), fc.nat(9), anyValue), { minLength: 1, maxLength: 2 }), (before, changes) => {
        const first = whole(before)
        fc.pre(first.value !== undefined)
        const after = nextOf(before, changes)
        const expected = whole(after)
        let actual: { value?: unknown; refused?: unknown } | undefined
        try {
          const value = resolveChanged(schema, after, { layers: before, value: first.value })
          actual = value === undefined ? undefined : { value }
        } catch (error) {
          actual = { refused: (error as { options?: { path?: unknown } }).options?.path ?? 'error' }
        }
        if (actual === undefined) return // resolved whole instead
        shortcuts++
        expect(actual).toEqual(expected)
        if (actual.value === undefined) return
        const value = actual.value as Record<string, unknown>
        expect(Object.keys(value)).toEqual(Object.keys(expected.value as object))
        expect(Object.isFrozen(value)).toBe(true)
        const previous = first.value as Record<string, unknown>
        for (const key of Object.keys(value)) {
          const same = after.every((item, index) => (item === undefined ? undefined : item[key]) === (before[index] === undefined ? undefined : before[index]![key]))
          if (same && typeof value[key] === 'object' && value[key] !== null) expect(value[key]).toBe(previous[key])
        }
      }),
      { numRuns: 500 },
    )
    // The shortcut must really have been taken, or this compared nothing.
    expect(shortcuts).toBeGreaterThan(100)
  })

  it('resolves whole (answers undefined) for a root that is not a plain object schema', () => {
    const union = Schema.union([Schema.object({ a: Schema.number() }), Schema.object({ b: Schema.string() })])
    expect(resolveChanged(union, [{ a: 2 }], { layers: [{ a: 1 }], value: { a: 1 } })).toBeUndefined()
  })

  it('resolves whole when a layer appears or keys change order', () => {
    const last = { layers: [{ name: 'x', limit: 1 }], value: whole([{ name: 'x', limit: 1 }]).value }
    expect(resolveChanged(schema, [{ limit: 1, name: 'x' }], last)).toBeUndefined()
    expect(resolveChanged(schema, [{ name: 'x', limit: 1 }, { name: 'y' }], last)).toBeUndefined()
  })
})
