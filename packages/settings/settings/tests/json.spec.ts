import { describe, expect, it } from 'vitest'
import { SettingsInputError } from '../src/errors.ts'
import {
  formatPath,
  MAX_DEPTH,
  MAX_WRITE_BYTES,
  storedSectionProblem,
  toJsonData,
  toJsonObject,
  type InputCall,
} from '../src/json.ts'
import { isPlainObject } from '../src/data.ts'
import { containers, expectInputErrorAt, Point, thrown } from './assertions.ts'

const call: InputCall = { label: 'settings update for "demo"', ns: 'demo' }

/** `n` nested objects: the root at depth 0, the innermost at depth n - 1. */
function nestedObjects(n: number): unknown {
  let value: unknown = {}
  for (let i = 1; i < n; i++) value = { d: value }
  return value
}

/** `n` nested arrays. */
function nestedArrays(n: number): unknown {
  let value: unknown = []
  for (let i = 1; i < n; i++) value = [value]
  return value
}

describe('formatPath', () => {
  it('renders the root as $', () => {
    expect(formatPath([])).toBe('$')
  })

  it('renders identifier keys with dots and numbers as indexes', () => {
    expect(formatPath(['a', 'b'])).toBe('$.a.b')
    expect(formatPath(['list', 0])).toBe('$.list[0]')
    expect(formatPath(['ops', 2, 'value'])).toBe('$.ops[2].value')
    expect(formatPath(['_x', '$y'])).toBe('$._x.$y')
  })

  it('quotes keys that are not identifiers', () => {
    expect(formatPath(['odd key'])).toBe('$["odd key"]')
    expect(formatPath(['0'])).toBe('$["0"]')
    expect(formatPath(['a', 'say "hi"'])).toBe('$.a["say \\"hi\\""]')
    expect(formatPath([''])).toBe('$[""]')
  })
})

describe('toJsonData', () => {
  it('returns an equal copy of JSON data', () => {
    const input = { s: 'text', n: -1.5, z: 0, t: true, f: false, nil: null, list: [1, 'two', [3], { four: 4 }], nested: { deep: { deeper: [] } } }
    expect(toJsonData(input, call)).toEqual(input)
  })

  it('accepts JSON scalars at the root', () => {
    expect(toJsonData(null, call)).toBeNull()
    expect(toJsonData(7, call)).toBe(7)
    expect(toJsonData('x', call)).toBe('x')
    expect(toJsonData(false, call)).toBe(false)
    expect(toJsonData([1, 2], call)).toEqual([1, 2])
  })

  it('refuses a function at its path', () => {
    expectInputErrorAt(() => toJsonData({ theme: () => 'dark' }, call), ['theme'], 'settings update for "demo"', 'data must be JSON-compatible', 'function', 'at $.theme')
  })

  it('refuses a Date at its path', () => {
    expectInputErrorAt(() => toJsonData({ value: { at: new Date(0) } }, call), ['value', 'at'], 'JSON-compatible', 'Date at $.value.at')
  })

  it('refuses a Map by its constructor name', () => {
    expectInputErrorAt(() => toJsonData({ m: new Map([['a', 1]]) }, call), ['m'], 'JSON-compatible', 'Map at $.m')
  })

  it('refuses a Set inside an array by its constructor name', () => {
    expectInputErrorAt(() => toJsonData({ list: [1, new Set()] }, call), ['list', '1'], 'Set at $.list[1]')
  })

  it('refuses a class instance by its class name', () => {
    expectInputErrorAt(() => toJsonData({ where: new Point(1, 2) }, call), ['where'], 'JSON-compatible', 'Point at $.where')
  })

  it('refuses an object whose prototype is another plain object as a non-plain object', () => {
    expectInputErrorAt(() => toJsonData({ o: Object.create({ inherited: 1 }) }, call), ['o'], 'a non-plain object at $.o')
    expectInputErrorAt(() => toJsonData({ o: Object.create(Object.create(null)) }, call), ['o'], 'a non-plain object at $.o')
  })

  it('refuses a bigint at its path', () => {
    expectInputErrorAt(() => toJsonData({ big: 10n }, call), ['big'], 'JSON-compatible', 'bigint at $.big')
  })

  it('refuses a symbol at its path', () => {
    expectInputErrorAt(() => toJsonData({ a: [Symbol('s')] }, call), ['a', '0'], 'JSON-compatible', 'symbol at $.a[0]')
  })

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-Infinity', Number.NEGATIVE_INFINITY],
  ])('refuses %s as a non-finite number', (_name, value) => {
    expectInputErrorAt(() => toJsonData({ size: { n: value } }, call), ['size', 'n'], 'JSON-compatible', 'non-finite number at $.size.n')
  })

  it('refuses an undefined array entry at its index', () => {
    expectInputErrorAt(() => toJsonData({ list: [1, undefined, 3] }, call), ['list', '1'], 'undefined array entry at $.list[1]')
  })

  it('refuses a hole in a sparse array as a hole, not as an undefined entry', () => {
    const sparse: unknown[] = [1]
    sparse[2] = 3
    const error = expectInputErrorAt(() => toJsonData({ list: sparse }, call), ['list', '1'], 'array hole at $.list[1]')
    expect(error.reason).toBe('not-json')
  })

  it('refuses a getter without running it, at its path', () => {
    let ran = 0
    const input = { a: 1, nested: Object.defineProperty({}, 'secret', { get: () => (ran++, 'x'), enumerable: true }) }
    const error = expectInputErrorAt(() => toJsonData(input, call), ['nested', 'secret'], 'accessor property at $.nested.secret')
    expect(error.reason).toBe('not-json')
    expect(ran).toBe(0)
  })

  it('refuses a getter on an array element without running it', () => {
    let ran = 0
    const list = [1, 2]
    Object.defineProperty(list, 1, { get: () => (ran++, 2), enumerable: true })
    expectInputErrorAt(() => toJsonData({ list }, call), ['list', '1'], 'accessor property')
    expect(ran).toBe(0)
  })

  it('refuses a setter-only property as an accessor too', () => {
    const input = Object.defineProperty({}, 'w', { set: () => {}, enumerable: true })
    expectInputErrorAt(() => toJsonData(input, call), ['w'], 'accessor property')
  })

  it('skips non-enumerable properties, accessors included, as JSON does', () => {
    const input = Object.defineProperty({ a: 1 }, 'hidden', { get: () => { throw new Error('must not run') }, enumerable: false })
    expect(toJsonData(input, call)).toEqual({ a: 1 })
  })

  it('refuses undefined at the root', () => {
    expectInputErrorAt(() => toJsonData(undefined, call), [], 'JSON-compatible', 'undefined at $')
  })

  it('refuses a circular object reference at $.a.self', () => {
    const a: Record<string, unknown> = { x: 1 }
    a.self = a
    expectInputErrorAt(() => toJsonData({ a }, call), ['a', 'self'], 'JSON-compatible', 'circular reference at $.a.self')
  })

  it('refuses a circular array reference at $.a[0]', () => {
    const a: unknown[] = []
    a.push(a)
    expectInputErrorAt(() => toJsonData({ a }, call), ['a', '0'], 'circular reference at $.a[0]')
  })

  it('refuses a cycle that passes through several levels', () => {
    const top: Record<string, unknown> = {}
    top.child = { list: [{ back: top }] }
    expectInputErrorAt(() => toJsonData({ top }, call), ['top', 'child', 'list', '0', 'back'], 'circular reference')
  })

  it('prefixes paths with the given root', () => {
    expectInputErrorAt(() => toJsonData({ when: new Date() }, call, ['list', 2, 'value']), ['list', '2', 'value', 'when'], 'Date at $.list[2].value.when')
  })

  it('names the op of the call in its message and on the error', () => {
    const error = expectInputErrorAt(() => toJsonData({ when: new Date() }, { ...call, op: 3 }, ['a']), ['a', 'when'], 'settings update for "demo": op 3: ', 'Date at $.a.when')
    expect(error.op).toBe(3)
  })

  it.each([
    ['a function', { f: () => 1 }, 'not-json'],
    ['a class instance', { d: new Date(0) }, 'not-json'],
    ['a cycle', (() => { const a: Record<string, unknown> = {}; a.a = a; return a })(), 'not-json'],
    ['a prototype key', JSON.parse('{"__proto__":1}'), 'prototype-key'],
    ['deep nesting', nestedObjects(65), 'too-deep'],
    ['an oversized string', 'x'.repeat(MAX_WRITE_BYTES), 'too-large'],
  ])('gives %s the machine-readable reason %s', (_name, value, reason) => {
    expect((thrown(() => toJsonData(value, call)) as SettingsInputError).reason).toBe(reason)
  })

  it('carries the namespace and scope of the call on its errors', () => {
    const error = expectInputErrorAt(() => toJsonData({ f: () => 1 }, { label: 'settings replace for "demo"', ns: 'demo', scope: 'preset/coder' }), ['f'])
    expect(error.ns).toBe('demo')
    expect(error.scope).toBe('preset/coder')
    expect(error.message.startsWith('settings replace for "demo": ')).toBe(true)
  })

  it('drops object entries that hold undefined', () => {
    const result = toJsonData({ a: 1, b: undefined, nested: { c: undefined, d: 2 } }, call) as Record<string, Record<string, unknown>>
    expect(result).toEqual({ a: 1, nested: { d: 2 } })
    expect(Object.hasOwn(result, 'b')).toBe(false)
    expect(Object.hasOwn(result.nested!, 'c')).toBe(false)
  })

  it('accepts one object referenced twice without a cycle and copies each reference', () => {
    const shared = { x: 1, inner: [1, 2] }
    const result = toJsonData({ a: shared, b: shared, list: [shared, shared] }, call) as Record<string, unknown>
    expect(result).toEqual({ a: shared, b: shared, list: [shared, shared] })
    const list = result.list as unknown[]
    expect(result.a).not.toBe(shared)
    expect(result.a).not.toBe(result.b)
    expect(list[0]).not.toBe(list[1])
    expect((result.a as { inner: unknown }).inner).not.toBe((result.b as { inner: unknown }).inner)
  })

  it('accepts one array referenced by siblings at different depths', () => {
    const shared = [1, 2]
    expect(toJsonData({ a: shared, b: { c: shared } }, call)).toEqual({ a: [1, 2], b: { c: [1, 2] } })
  })

  it('refuses a __proto__ own key (as JSON.parse makes) with a TypeError naming its path', () => {
    const input = JSON.parse('{"a":{"__proto__":{"polluted":true}}}') as unknown
    expectInputErrorAt(() => toJsonData(input, call), ['a', '__proto__'], 'prototype key "__proto__"', '$.a.__proto__')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses a top-level __proto__ own key', () => {
    expectInputErrorAt(() => toJsonData(JSON.parse('{"__proto__":1}'), call), ['__proto__'], 'prototype key "__proto__"')
  })

  it('refuses a constructor key with a TypeError naming its path', () => {
    expectInputErrorAt(() => toJsonData({ ok: 1, constructor: 'x' }, call), ['constructor'], 'prototype key "constructor"')
  })

  it('refuses a prototype key inside an array element', () => {
    expectInputErrorAt(() => toJsonData({ list: [{ prototype: {} }] }, call), ['list', '0', 'prototype'], 'prototype key "prototype"')
  })

  it('has a depth limit of 64', () => {
    expect(MAX_DEPTH).toBe(64)
  })

  it('accepts 64 nested objects', () => {
    expect(toJsonData(nestedObjects(64), call)).toEqual(nestedObjects(64))
  })

  it('refuses 65 nested objects at the path of the 65th', () => {
    const at = Array.from({ length: 64 }, () => 'd')
    expectInputErrorAt(() => toJsonData(nestedObjects(65), call), at, 'nests deeper than 64 levels')
  })

  it('counts arrays as nesting levels too', () => {
    expect(toJsonData(nestedArrays(64), call)).toEqual(nestedArrays(64))
    expectInputErrorAt(() => toJsonData(nestedArrays(65), call), Array.from({ length: 64 }, () => '0'), 'nests deeper than 64 levels')
  })

  it('accepts a scalar inside the 64th level', () => {
    let value: unknown = { leaf: 'x' }
    for (let i = 1; i < 64; i++) value = { d: value }
    expect(toJsonData(value, call)).toEqual(value)
  })

  it('measures depth from the root it is given', () => {
    expect(toJsonData(nestedObjects(64), call, ['a', 'b', 'c'])).toEqual(nestedObjects(64))
    expectInputErrorAt(() => toJsonData(nestedObjects(65), call, ['a']), ['a', ...Array.from({ length: 64 }, () => 'd')], 'nests deeper')
  })

  it('has a size limit of 1 MiB', () => {
    expect(MAX_WRITE_BYTES).toBe(1024 * 1024)
  })

  it('accepts a string whose JSON encoding is exactly 1 MiB', () => {
    const text = 'x'.repeat(MAX_WRITE_BYTES - 2)
    expect(toJsonData(text, call)).toBe(text)
    const inObject = { s: 'x'.repeat(MAX_WRITE_BYTES - '{"s":""}'.length) }
    expect(toJsonData(inObject, call)).toEqual(inObject)
  })

  it('refuses data one byte past 1 MiB of JSON', () => {
    expectInputErrorAt(() => toJsonData('x'.repeat(MAX_WRITE_BYTES - 1), call), [], 'exceeds 1048576 bytes of JSON')
    expectInputErrorAt(() => toJsonData({ s: 'x'.repeat(MAX_WRITE_BYTES - '{"s":""}'.length + 1) }, call), ['s'], 'exceeds 1048576 bytes')
  })

  it('refuses data spread over many entries once it passes 1 MiB', () => {
    const entries: Record<string, string> = {}
    for (let i = 0; i < 1100; i++) entries[`k${i}`] = 'y'.repeat(1000)
    expectInputErrorAt(() => toJsonData(entries, call), [expect.stringMatching(/^k\d+$/)], 'exceeds 1048576 bytes')
  })

  it('measures strings by their UTF-8 bytes, refusing multi-byte text past 1 MiB', () => {
    // 400 000 euro signs are 1 200 002 bytes of UTF-8 JSON, though only 400 002 UTF-16 code units.
    const text = '€'.repeat(400_000)
    expect(new TextEncoder().encode(JSON.stringify(text)).length).toBeGreaterThan(MAX_WRITE_BYTES)
    expectInputErrorAt(() => toJsonData({ text }, call), expect.any(Array), 'exceeds 1048576 bytes')
  })

  it('counts the separators between array entries, refusing an encoding past 1 MiB', () => {
    const list = new Array<string>(400_000).fill('')
    expect(JSON.stringify(list).length).toBeGreaterThan(MAX_WRITE_BYTES)
    expectInputErrorAt(() => toJsonData({ list }, call), expect.any(Array), 'exceeds 1048576 bytes')
  })

  it('accepts many small numbers whose JSON encoding is far below 1 MiB', () => {
    const list = new Array<number>(50_000).fill(0)
    expect(JSON.stringify(list).length).toBeLessThan(MAX_WRITE_BYTES / 10)
    expect(toJsonData({ list }, call)).toEqual({ list })
  })

  it('accepts null-prototype objects', () => {
    const inner = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2 })
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, inner })
    const result = toJsonData(input, call) as Record<string, unknown>
    expect(isPlainObject(result)).toBe(true)
    expect(Object.keys(result)).toEqual(['a', 'inner'])
    expect(result.a).toBe(1)
    expect((result.inner as Record<string, unknown>).b).toBe(2)
  })

  it('never aliases its input and leaves it unmodified', () => {
    const input = { a: { b: [1, { c: 2 }] }, list: [[1], [2]], skip: undefined }
    const before = containers(input)
    const result = toJsonData(input, call)
    for (const node of containers(result)) expect(before.has(node)).toBe(false)
    expect(Object.hasOwn(input, 'skip')).toBe(true)
    expect(input).toEqual({ a: { b: [1, { c: 2 }] }, list: [[1], [2]], skip: undefined })
  })

  it('ignores symbol-keyed entries', () => {
    const key = Symbol('k')
    expect(toJsonData({ a: 1, [key]: 2 }, call)).toEqual({ a: 1 })
  })
})

describe('toJsonObject', () => {
  it('returns a copy of a plain object', () => {
    const input = { a: { b: 1 } }
    const result = toJsonObject(input, call)
    expect(result).toEqual(input)
    expect(result).not.toBe(input)
    expect(result.a).not.toBe(input.a)
  })

  it('accepts a null-prototype object', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { theme: 'dark' })
    expect({ ...toJsonObject(input, call) }).toEqual({ theme: 'dark' })
  })

  it.each([
    ['an array', [1, 2]],
    ['a Date', new Date()],
    ['a Map', new Map()],
    ['a class instance', new Point(0, 0)],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'dark'],
    ['a number', 3],
  ])('refuses %s as not a plain object', (_name, value) => {
    const error = expectInputErrorAt(() => toJsonObject(value, call), undefined, 'settings update for "demo" must be a plain object')
    expect(error.ns).toBe('demo')
    expect(error.reason).toBe('not-object')
  })

  it('still refuses non-JSON data inside the object at its path', () => {
    expectInputErrorAt(() => toJsonObject({ theme: () => 'x' }, call), ['theme'], 'function at $.theme')
  })

  it('refuses a prototype key inside the object', () => {
    expectInputErrorAt(() => toJsonObject(JSON.parse('{"__proto__":{}}'), call), ['__proto__'], 'prototype key')
  })
})

describe('storedSectionProblem', () => {
  it('accepts an absent section', () => {
    expect(storedSectionProblem(undefined)).toBeUndefined()
  })

  it('accepts plain sections, nested data and null-prototype objects', () => {
    expect(storedSectionProblem({})).toBeUndefined()
    expect(storedSectionProblem({ a: { b: [1, { c: null }] }, s: 'x' })).toBeUndefined()
    expect(storedSectionProblem(Object.create(null))).toBeUndefined()
  })

  it.each([
    ['a string', 'dark'],
    ['a number', 3],
    ['a boolean', true],
    ['null', null],
    ['an array', [{ a: 1 }]],
    ['an empty array', []],
    ['a Date', new Date()],
  ])('refuses %s as not an object of keys', (_name, value) => {
    expect(storedSectionProblem(value)).toBe('must be an object of keys')
  })

  it('names a top-level __proto__ own key and its path', () => {
    const problem = storedSectionProblem(JSON.parse('{"__proto__":{"x":1}}'))
    expect(problem).toContain('prototype key "__proto__"')
    expect(problem).toContain('$.__proto__')
  })

  it('finds a nested prototype key and names its path', () => {
    expect(storedSectionProblem(JSON.parse('{"a":{"b":{"__proto__":1}}}'))).toContain('"__proto__" at $.a.b.__proto__')
    expect(storedSectionProblem(JSON.parse('{"a":{"constructor":1}}'))).toContain('"constructor" at $.a.constructor')
    expect(storedSectionProblem({ a: { prototype: null } })).toContain('"prototype" at $.a.prototype')
  })

  it('finds a prototype key inside an array element', () => {
    const problem = storedSectionProblem(JSON.parse('{"list":[1,{"__proto__":{}}]}'))
    expect(problem).toContain('prototype key "__proto__"')
  })

  it('names an array element in a prototype-key path as an index', () => {
    expect(storedSectionProblem(JSON.parse('{"list":[{"__proto__":1}]}'))).toContain('at $.list[0].__proto__')
  })
})
