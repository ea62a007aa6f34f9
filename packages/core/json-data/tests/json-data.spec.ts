import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { dataEqual, isPlainObject, setOwn, valueAt } from '../src/index.ts'

describe('dsh-json-data', () => {
  it('compares parsed data deeply, never calling what the data holds', () => {
    expect(dataEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true)
    expect(dataEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false)
    expect(dataEqual([1, 2], { 0: 1, 1: 2 })).toBe(false)
    expect(dataEqual(Number.NaN, Number.NaN)).toBe(true)
    // A key named valueOf or toString is a plain key.
    expect(dataEqual({ valueOf: 1, toString: 'x' }, { valueOf: 1, toString: 'x' })).toBe(true)
    expect(dataEqual(Object.assign(Object.create(null), { a: 1 }), { a: 1 })).toBe(true)
    fc.assert(fc.property(fc.jsonValue(), (value) => dataEqual(value, JSON.parse(JSON.stringify(value)))))
  })

  it('tells plain objects from arrays and class instances, and sets __proto__ as an own key', () => {
    expect(isPlainObject({})).toBe(true)
    expect(isPlainObject(Object.create(null))).toBe(true)
    expect(isPlainObject([])).toBe(false)
    expect(isPlainObject(new Date())).toBe(false)
    const target: Record<string, unknown> = {}
    setOwn(target, '__proto__', { polluted: true })
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype)
    expect(Object.keys(target)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('reads at a path through own keys and array indexes only', () => {
    const data = { list: [{ name: 'a' }], __proto__x: 1 }
    expect(valueAt(data, ['list', 0, 'name'])).toBe('a')
    expect(valueAt(data, ['list', '0', 'name'])).toBe('a')
    expect(valueAt(data, ['list', '01'])).toBeUndefined()
    expect(valueAt(data, ['toString'])).toBeUndefined()
    expect(valueAt(data, ['list', 5])).toBeUndefined()
  })
})
