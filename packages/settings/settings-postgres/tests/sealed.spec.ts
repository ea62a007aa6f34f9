/** The at-rest form of a secret and the place helpers, without a database. */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { findPlaces, withValueAt } from '../src/places.ts'
import { boxOfJson, seal, unseal, type SealedPlace } from '../src/sealed.ts'

const key = new Uint8Array(randomBytes(32))
const place: SealedPlace = { document: 'default', scope: '', ns: 'web-search', path: ['apiKey'] }

describe('sealed secrets', () => {
  it('opens what it sealed, for the same place and key, whatever the JSON value', () => {
    for (const value of ['sk-1', 42, { nested: ['a', null] }, '']) {
      const box = boxOfJson(seal(value, place, key))!
      expect(box).toMatch(/^v1:/)
      expect(unseal(box, place, key)).toEqual({ value })
    }
  })

  it('refuses a box moved to another document, scope, namespace or path, and one under another key', () => {
    const box = boxOfJson(seal('sk-1', place, key))!
    for (const moved of [{ document: 'other' }, { scope: 'preset/coder' }, { ns: 'other' }, { path: ['token'] }]) {
      expect(unseal(box, { ...place, ...moved }, key)).toEqual({ failure: 'misplaced' })
    }
    expect(unseal(box, place, new Uint8Array(randomBytes(32)))).toEqual({ failure: 'rejected' })
    expect(unseal('v1:nonsense', place, key)).toEqual({ failure: 'malformed' })
  })

  it('takes only a one-key { $encrypted: string } object as a box', () => {
    expect(boxOfJson({ $encrypted: 'v1:x' })).toBe('v1:x')
    for (const other of [{ $encrypted: 1 }, { $encrypted: 'v1:x', more: 1 }, 'v1:x', null, ['v1:x']]) expect(boxOfJson(other)).toBeUndefined()
  })
})

describe('places', () => {
  it('finds picked nodes with their paths and replaces a value without changing the input', () => {
    const input = Object.freeze({ a: Object.freeze([1, Object.freeze({ $env: 'X' })]), b: Object.freeze({ $env: 'Y' }) })
    const found = findPlaces(input, (node) => typeof node === 'object' && node !== null && '$env' in node)
    expect(found.map((entry) => entry.path)).toEqual([['a', '1'], ['b']])
    const next = withValueAt(input, ['a', '1'], 'value') as { a: unknown[]; b: unknown }
    expect(next).toEqual({ a: [1, 'value'], b: { $env: 'Y' } })
    expect(next.b).toBe(input.b)
    expect(withValueAt(input, ['missing', 'x'], 1)).toBe(input)
    expect(withValueAt(input, ['a', '5'], 1)).toBe(input)
  })
})
