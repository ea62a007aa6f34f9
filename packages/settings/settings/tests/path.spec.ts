import { describe, expect, it } from 'vitest'
import { SettingsInputError } from '../src/errors.ts'
import { toJsonData, type InputCall } from '../src/json.ts'
import { applyPathOps, checkPathOps, MAX_OPS, type CheckedPathOp } from '../src/path.ts'
import type { JsonObject } from '../src/types.ts'
import { containers, expectInputError } from './assertions.ts'

const call: InputCall = { label: 'settings mutate for "demo"', ns: 'demo' }

/** Check `ops` as a caller would pass them, then apply them to `section`. */
function apply(section: JsonObject, ops: unknown[]): JsonObject {
  return applyPathOps(section, checkPathOps(ops, call), call)
}

describe('checkPathOps', () => {
  it('returns checked copies of well-formed set and unset ops', () => {
    const ops = checkPathOps([
      { op: 'set', path: ['a', 'b'], value: { c: [1] } },
      { op: 'unset', path: ['d'] },
      { op: 'set', path: [], value: {} },
    ], call)
    expect(ops).toEqual([
      { op: 'set', path: ['a', 'b'], value: { c: [1] } },
      { op: 'unset', path: ['d'] },
      { op: 'set', path: [], value: {} },
    ])
  })

  it('accepts an empty list', () => {
    expect(checkPathOps([], call)).toEqual([])
  })

  it('accepts null as a set value', () => {
    expect(checkPathOps([{ op: 'set', path: ['a'], value: null }], call)).toEqual([{ op: 'set', path: ['a'], value: null }])
  })

  it('accepts null-prototype op objects', () => {
    const op = Object.assign(Object.create(null) as Record<string, unknown>, { op: 'set', path: ['a'], value: 1 })
    expect(checkPathOps([op], call)).toEqual([{ op: 'set', path: ['a'], value: 1 }])
  })

  it.each([
    ['a value on an unset', { op: 'unset', path: ['a'], value: 1 }, 'value'],
    ['a stray key on a set', { op: 'set', path: ['a'], value: 1, merge: true }, 'merge'],
  ])('refuses %s as a malformed op naming the key', (_name, op, key) => {
    const error = expectInputError(() => checkPathOps([op], call), `op 0: has an unexpected key "${key}"`)
    expect(error.reason).toBe('bad-op')
    expect(error.op).toBe(0)
  })

  it('reads ops as data: a getter in an op is refused without running it', () => {
    let ran = 0
    const op = Object.defineProperty({ op: 'set', value: 1 }, 'path', { get: () => (ran++, ['a']), enumerable: true })
    const error = expectInputError(() => checkPathOps([op], call), "op 0: must be {op:'set'|'unset', path}")
    expect(error.reason).toBe('bad-op')
    expect(ran).toBe(0)
  })

  it('refuses a hole or an accessor in the ops list as a malformed list', () => {
    const holey: unknown[] = [{ op: 'unset', path: ['a'] }]
    holey[2] = { op: 'unset', path: ['b'] }
    expectInputError(() => checkPathOps(holey, call), 'ops must be an array of path ops without holes or accessors')
    const accessor: unknown[] = [{ op: 'unset', path: ['a'] }]
    Object.defineProperty(accessor, 0, { get: () => ({ op: 'unset', path: ['a'] }), enumerable: true })
    expect(expectInputError(() => checkPathOps(accessor, call)).reason).toBe('bad-op')
  })

  it.each([
    ['an object', { op: 'set', path: ['a'], value: 1 }],
    ['a string', 'set a 1'],
    ['null', null],
    ['undefined', undefined],
    ['a number', 3],
  ])('refuses %s instead of an array of ops', (_name, value) => {
    const error = expectInputError(() => checkPathOps(value, call), 'settings mutate for "demo": ', 'ops must be an array of path ops')
    expect(error.reason).toBe('bad-op')
    expect(error.op).toBeUndefined()
  })

  it.each([
    ['null', null],
    ['a string', 'set'],
    ['an array', ['set', ['a'], 1]],
    ['an unknown op', { op: 'delete', path: ['a'] }],
    ['a missing op', { path: ['a'], value: 1 }],
    ['a class instance', new (class Op { op = 'set'; path = ['a']; value = 1 })()],
  ])('refuses %s as a malformed op, naming its index', (_name, value) => {
    const error = expectInputError(() => checkPathOps([{ op: 'unset', path: ['x'] }, value], call), "op 1: must be {op:'set'|'unset', path}")
    expect(error.reason).toBe('bad-op')
    expect(error.op).toBe(1)
  })

  it.each([
    ['a missing path', { op: 'unset' }],
    ['a string path', { op: 'set', path: 'a.b', value: 1 }],
    ['a numeric segment', { op: 'set', path: ['list', 0], value: 1 }],
    ['a nested array segment', { op: 'unset', path: [['a']] }],
    ['a null segment', { op: 'unset', path: ['a', null] }],
  ])('refuses %s as a path that is not an array of strings', (_name, value) => {
    expect(expectInputError(() => checkPathOps([value], call), 'op 0: op paths must be arrays of strings').reason).toBe('bad-op')
  })

  it('refuses a sparse path array as not an array of strings', () => {
    const path: string[] = []
    path[1] = 'a'
    expectInputError(() => checkPathOps([{ op: 'set', path, value: 1 }], call), 'op paths must be arrays of strings')
  })

  it.each([
    ['__proto__', ['__proto__', 'polluted']],
    ['constructor', ['a', 'constructor']],
    ['prototype', ['a', 'b', 'prototype']],
  ])('refuses a %s path segment with a TypeError naming it, at the path up to it', (key, path) => {
    const set = expectInputError(() => checkPathOps([{ op: 'set', path, value: true }], call), 'op 0', `prototype key "${key}"`)
    const unset = expectInputError(() => checkPathOps([{ op: 'unset', path }], call), `prototype key "${key}"`)
    for (const error of [set, unset]) {
      expect(error.reason).toBe('prototype-key')
      expect(error.path).toEqual(path.slice(0, path.indexOf(key) + 1))
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('refuses a set without a value', () => {
    expectInputError(() => checkPathOps([{ op: 'set', path: ['a'] }], call), 'op 0: a set op needs a value')
  })

  it('refuses a set whose value is undefined', () => {
    expectInputError(() => checkPathOps([{ op: 'unset', path: [] }, { op: 'set', path: ['a'], value: undefined }], call), 'op 1: a set op needs a value')
  })

  it('refuses a non-JSON set value at its place in the section, naming the op', () => {
    const error = expectInputError(
      () => checkPathOps([{ op: 'unset', path: ['x'] }, { op: 'set', path: ['a'], value: { when: new Date() } }], call),
      'op 1: ',
      'JSON-compatible',
      'Date at $.a.when',
    )
    expect(error.path).toEqual(['a', 'when'])
    expect(error.op).toBe(1)
    expect(error.reason).toBe('not-json')
  })

  it('refuses a prototype key inside a set value at its place in the section', () => {
    const error = expectInputError(() => checkPathOps([{ op: 'set', path: ['a'], value: JSON.parse('{"__proto__":{}}') }], call), 'prototype key "__proto__"')
    expect(error.path).toEqual(['a', '__proto__'])
    expect(error.reason).toBe('prototype-key')
  })

  it('refuses the same hostile value at the same place whether it comes as a patch or as a root set', () => {
    const hostile = { list: [1, 2] as unknown[] }
    Object.defineProperty(hostile.list, 1, { get: () => 2, enumerable: true })
    const asOp = expectInputError(() => checkPathOps([{ op: 'set', path: [], value: hostile }], call))
    const asData = expectInputError(() => toJsonData(hostile, call))
    expect([asOp.reason, asOp.path]).toEqual([asData.reason, asData.path])
    expect(asOp.path).toEqual(['list', '1'])
  })

  it('counts the nesting of a set value from its own root', () => {
    let value: unknown = {}
    for (let i = 1; i < 64; i++) value = { d: value }
    const path = Array.from({ length: 10 }, () => 'p')
    expect(checkPathOps([{ op: 'set', path, value }], call)[0]).toMatchObject({ path })
    const error = expectInputError(() => checkPathOps([{ op: 'set', path, value: { d: value } }], call), 'nests deeper than 64 levels')
    expect(error.reason).toBe('too-deep')
    expect(error.path).toEqual([...path, ...Array.from({ length: 64 }, () => 'd')])
  })

  it(`accepts exactly ${MAX_OPS} ops`, () => {
    expect(MAX_OPS).toBe(1000)
    const ops = Array.from({ length: 1000 }, (_, i) => ({ op: 'set', path: [`k${i}`], value: i }))
    expect(checkPathOps(ops, call)).toHaveLength(1000)
  })

  it('refuses more than 1000 ops', () => {
    const ops = Array.from({ length: 1001 }, () => ({ op: 'unset', path: ['a'] }))
    expect(expectInputError(() => checkPathOps(ops, call), 'at most 1000 ops').reason).toBe('too-many-ops')
  })

  it('accepts a path of 64 segments and refuses one of 65', () => {
    const path64 = Array.from({ length: 64 }, () => 'd')
    expect(checkPathOps([{ op: 'set', path: path64, value: 1 }], call)[0]!.path).toHaveLength(64)
    expect(expectInputError(() => checkPathOps([{ op: 'set', path: [...path64, 'd'], value: 1 }], call), 'op 0: path is deeper than 64 segments').reason).toBe('too-deep')
  })

  it('copies ops at call time so later caller mutation cannot leak in', () => {
    const path = ['a', 'b']
    const value = { list: [1, 2], nested: { x: 1 } }
    const op: Record<string, unknown> = { op: 'set', path, value }
    const input: unknown[] = [op]
    const checked = checkPathOps(input, call)
    path.push('c')
    path[0] = 'z'
    value.list.push(3)
    value.nested.x = 2
    op.op = 'unset'
    input.push({ op: 'unset', path: [] })
    expect(checked).toEqual([{ op: 'set', path: ['a', 'b'], value: { list: [1, 2], nested: { x: 1 } } }])
    expect(checked[0]!.path).not.toBe(path)
  })

  it('carries the namespace and scope of the call on its errors', () => {
    const error = expectInputError(() => checkPathOps('x', { label: 'settings mutate for "demo"', ns: 'demo', scope: 'preset/coder' }))
    expect(error.ns).toBe('demo')
    expect(error.scope).toBe('preset/coder')
  })
})

describe('applyPathOps', () => {
  it('applies ops in order, later ops seeing earlier ones', () => {
    expect(apply({}, [
      { op: 'set', path: ['a'], value: 1 },
      { op: 'set', path: ['a'], value: 2 },
      { op: 'set', path: ['b', 'c'], value: 1 },
      { op: 'set', path: ['b', 'd'], value: 2 },
    ])).toEqual({ a: 2, b: { c: 1, d: 2 } })
  })

  it('leaves a key absent after a set then an unset of it', () => {
    const result = apply({ keep: true }, [
      { op: 'set', path: ['k'], value: 1 },
      { op: 'unset', path: ['k'] },
    ])
    expect(result).toEqual({ keep: true })
    expect(Object.hasOwn(result, 'k')).toBe(false)
  })

  it('stores a value set after an unset of the same key', () => {
    expect(apply({ k: 1 }, [
      { op: 'unset', path: ['k'] },
      { op: 'set', path: ['k'], value: 2 },
    ])).toEqual({ k: 2 })
  })

  it('creates missing intermediate objects for a nested set', () => {
    expect(apply({}, [{ op: 'set', path: ['a', 'b', 'c'], value: 1 }])).toEqual({ a: { b: { c: 1 } } })
  })

  it.each([
    ['a number', 5],
    ['a string', 'text'],
    ['null', null],
    ['a boolean', false],
  ])('replaces %s intermediate with an object', (_name, scalar) => {
    expect(apply({ a: scalar, other: 1 }, [{ op: 'set', path: ['a', 'b'], value: 1 }])).toEqual({ a: { b: 1 }, other: 1 })
  })

  it('does nothing for an unset through an absent path', () => {
    expect(apply({ a: 1 }, [{ op: 'unset', path: ['x', 'y', 'z'] }])).toEqual({ a: 1 })
    expect(apply({ a: 1 }, [{ op: 'unset', path: ['b'] }])).toEqual({ a: 1 })
  })

  it('does nothing for an unset through a scalar or null', () => {
    expect(apply({ a: 5, n: null }, [
      { op: 'unset', path: ['a', 'b'] },
      { op: 'unset', path: ['n', 'b'] },
    ])).toEqual({ a: 5, n: null })
  })

  it('keeps the siblings of a set leaf', () => {
    const section = { a: { b: 1, c: { d: 2 }, list: [1] }, e: 3 }
    expect(apply(section, [{ op: 'set', path: ['a', 'b'], value: 9 }])).toEqual({ a: { b: 9, c: { d: 2 }, list: [1] }, e: 3 })
  })

  it('removes only the unset field, keeping fields the caller never saw', () => {
    const section = { apiKey: 'secret', endpoint: { url: 'u', retries: 3 } }
    expect(apply(section, [{ op: 'unset', path: ['endpoint', 'retries'] }])).toEqual({ apiKey: 'secret', endpoint: { url: 'u' } })
  })

  it('stores null as data', () => {
    expect(apply({ a: { b: 1 } }, [{ op: 'set', path: ['a'], value: null }])).toEqual({ a: null })
  })

  it('replaces the whole section through a set at the empty path', () => {
    expect(apply({ old: 1, nested: { x: 1 } }, [{ op: 'set', path: [], value: { fresh: { y: 2 } } }])).toEqual({ fresh: { y: 2 } })
  })

  it('makes the section {} through an unset at the empty path', () => {
    expect(apply({ a: 1, b: { c: 2 } }, [{ op: 'unset', path: [] }])).toEqual({})
  })

  it('applies later ops over a replaced root', () => {
    expect(apply({ old: 1 }, [
      { op: 'set', path: [], value: { a: { b: 1 } } },
      { op: 'set', path: ['a', 'c'], value: 2 },
      { op: 'unset', path: ['old'] },
    ])).toEqual({ a: { b: 1, c: 2 } })
  })

  it.each([
    ['a number', 5],
    ['a string', 'x'],
    ['null', null],
    ['an array', [1, 2]],
  ])('refuses to set %s at the section root, already when the ops are checked', (_name, value) => {
    const section = { a: 1 }
    const error = expectInputError(() => checkPathOps([{ op: 'set', path: [], value }], call), 'setting the section root requires a plain object')
    expect(error.path).toEqual([])
    expect(error.reason).toBe('not-object')
    expect(section).toEqual({ a: 1 })
  })

  it('refuses a root set of a non-object in ops built by hand, too', () => {
    const error = expectInputError(() => applyPathOps({ a: 1 }, [{ op: 'unset', path: ['a'] }, { op: 'set', path: [], value: [1] }], call), 'op 1: setting the section root')
    expect([error.reason, error.path, error.op]).toEqual(['not-object', [], 1])
  })

  it('replaces an array element through its index', () => {
    expect(apply({ list: ['a', 'b', 'c'] }, [{ op: 'set', path: ['list', '1'], value: 'B' }])).toEqual({ list: ['a', 'B', 'c'] })
  })

  it("appends to an array through a set at the array's length", () => {
    expect(apply({ list: ['a', 'b'] }, [
      { op: 'set', path: ['list', '2'], value: 'c' },
      { op: 'set', path: ['list', '3'], value: { d: 1 } },
    ])).toEqual({ list: ['a', 'b', 'c', { d: 1 }] })
    expect(apply({ list: [] }, [{ op: 'set', path: ['list', '0'], value: 1 }])).toEqual({ list: [1] })
  })

  it("refuses a set past an array's length, naming the array's path", () => {
    const error = expectInputError(() => apply({ list: ['a'] }, [{ op: 'set', path: ['list', '2'], value: 'c' }]), 'segment "2"', 'element index', '$.list')
    expect(error.path).toEqual(['list'])
    expect(error.reason).toBe('bad-index')
  })

  it('removes an array element through an unset and shifts the rest', () => {
    expect(apply({ list: ['a', 'b', 'c', 'd'] }, [{ op: 'unset', path: ['list', '1'] }])).toEqual({ list: ['a', 'c', 'd'] })
    expect(apply({ list: ['a', 'b', 'c'] }, [
      { op: 'unset', path: ['list', '0'] },
      { op: 'unset', path: ['list', '0'] },
    ])).toEqual({ list: ['c'] })
  })

  it('does nothing for an unset past the end of an array', () => {
    expect(apply({ list: ['a'] }, [{ op: 'unset', path: ['list', '1'] }])).toEqual({ list: ['a'] })
  })

  it.each([['x'], ['01'], ['-1'], ['1.5'], [''], [' 1']])('refuses the non-index segment %j on an array', (segment) => {
    const error = expectInputError(() => apply({ list: [1, 2] }, [{ op: 'set', path: ['list', segment], value: 0 }]), 'is not an element index of the array at $.list')
    expect(error.path).toEqual(['list'])
  })

  it('refuses a non-index segment on an array in the middle of a path', () => {
    const error = expectInputError(() => apply({ list: [{ a: 1 }] }, [{ op: 'unset', path: ['z'] }, { op: 'set', path: ['list', 'x', 'a'], value: 0 }]), 'op 1: segment "x"')
    expect(error.path).toEqual(['list'])
    expect(error.op).toBe(1)
  })

  it('edits one field of an object inside an array', () => {
    const section = { servers: [{ name: 'a', on: true }, { name: 'b', on: false }] }
    expect(apply(section, [{ op: 'set', path: ['servers', '1', 'on'], value: true }])).toEqual({ servers: [{ name: 'a', on: true }, { name: 'b', on: true }] })
    expect(apply(section, [{ op: 'unset', path: ['servers', '0', 'on'] }])).toEqual({ servers: [{ name: 'a' }, { name: 'b', on: false }] })
  })

  it('addresses elements of nested arrays', () => {
    expect(apply({ m: [[1, 2], [3]] }, [
      { op: 'set', path: ['m', '0', '1'], value: 9 },
      { op: 'set', path: ['m', '1', '1'], value: 4 },
      { op: 'unset', path: ['m', '0', '0'] },
    ])).toEqual({ m: [[9], [3, 4]] })
  })

  it('treats a decimal segment on an object as an ordinary key', () => {
    expect(apply({ byId: { '0': 'a' } }, [{ op: 'set', path: ['byId', '7'], value: 'b' }])).toEqual({ byId: { '0': 'a', '7': 'b' } })
  })

  it('never modifies the input section', () => {
    const section: JsonObject = { a: { b: 1, c: [1, { d: 2 }] }, list: ['x', 'y'], keep: { deep: { v: 1 } } }
    const snapshot = structuredClone(section)
    const result = apply(section, [
      { op: 'set', path: ['a', 'b'], value: 2 },
      { op: 'set', path: ['a', 'c', '1', 'd'], value: 3 },
      { op: 'unset', path: ['list', '0'] },
      { op: 'set', path: ['list', '1'], value: 'z' },
    ])
    expect(section).toEqual(snapshot)
    expect(result).toEqual({ a: { b: 2, c: [1, { d: 3 }] }, list: ['y', 'z'], keep: { deep: { v: 1 } } })
    const inputs = containers(section)
    for (const node of containers(result)) expect(inputs.has(node)).toBe(false)
  })

  it('never modifies the input section when an op is refused', () => {
    const section: JsonObject = { a: { b: 1 }, list: [1] }
    expectInputError(() => apply(section, [
      { op: 'set', path: ['a', 'b'], value: 2 },
      { op: 'set', path: ['list', '5'], value: 1 },
    ]))
    expect(section).toEqual({ a: { b: 1 }, list: [1] })
  })

  it('copies set values so results never share them', () => {
    const ops: CheckedPathOp[] = checkPathOps([
      { op: 'set', path: ['a'], value: { list: [1] } },
      { op: 'set', path: [], value: { root: { x: 1 } } },
      { op: 'set', path: ['root', 'y'], value: [2] },
    ], call)
    const first = applyPathOps({}, ops, call)
    const second = applyPathOps({}, ops, call)
    expect(first).toEqual({ root: { x: 1, y: [2] } })
    expect(first.root).not.toBe(second.root)
    ;(first.root as JsonObject).x = 99
    expect(ops[1]).toEqual({ op: 'set', path: [], value: { root: { x: 1 } } })
    expect(applyPathOps({}, ops, call)).toEqual({ root: { x: 1, y: [2] } })
  })

  it('carries the namespace and scope of the call on its errors', () => {
    const scoped: InputCall = { label: 'settings mutate for "demo"', ns: 'demo', scope: 'preset/coder' }
    const error = expectInputError(() => applyPathOps({}, [{ op: 'set', path: [], value: 1 }], scoped))
    expect(error.ns).toBe('demo')
    expect(error.scope).toBe('preset/coder')
  })
})
