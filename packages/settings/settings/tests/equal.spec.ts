import fc from 'fast-check'
import equal from 'fast-deep-equal'
import { describe, expect, it } from 'vitest'
import { dataEqual } from '../src/equal.ts'

const json = fc.jsonValue()

describe('dataEqual', () => {
  it('compares JSON data deeply, ignoring key order', () => {
    expect(dataEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true)
    expect(dataEqual({ a: [1, 2] }, { a: [2, 1] })).toBe(false)
    expect(dataEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false)
    expect(dataEqual([], {})).toBe(false)
    expect(dataEqual(null, {})).toBe(false)
    expect(dataEqual(Number.NaN, Number.NaN)).toBe(true)
  })

  it('never calls valueOf, toString or anything else a stored key names', () => {
    const a = JSON.parse('{"valueOf": 1, "toString": {"x": 1}, "constructor": 2, "hasOwnProperty": 3}')
    const b = JSON.parse('{"hasOwnProperty": 3, "constructor": 2, "toString": {"x": 1}, "valueOf": 1}')
    expect(dataEqual(a, b)).toBe(true)
    expect(dataEqual(a, { ...b, valueOf: 2 })).toBe(false)
    // What the seam used before: it calls the data.
    expect(() => equal(a, b)).toThrow(TypeError)
  })

  it('keeps a __proto__ key as data', () => {
    const a = JSON.parse('{"__proto__": {"x": 1}}')
    expect(dataEqual(a, JSON.parse('{"__proto__": {"x": 1}}'))).toBe(true)
    expect(dataEqual(a, JSON.parse('{"__proto__": {"x": 2}}'))).toBe(false)
    expect(dataEqual(a, {})).toBe(false)
  })

  it('agrees with structural equality on any JSON values (fast-check)', () => {
    fc.assert(fc.property(json, json, (a, b) => dataEqual(a, b) === (JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b)))), { numRuns: 500 })
    fc.assert(fc.property(json, (a) => dataEqual(a, structuredClone(a))), { numRuns: 300 })
  })
})

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]))
  return value
}
