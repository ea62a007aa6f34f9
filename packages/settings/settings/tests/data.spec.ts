import { describe, expect, it } from 'vitest'
import { copyData, frozenCopy, isPlainObject, setOwn, valueAt, withoutPaths } from '../src/data.ts'
import { containers, Point, sharesNothing } from './assertions.ts'

function sample() {
  return { theme: 'dark', editor: { font: { size: 12 }, rulers: [80, 120] }, groups: [{ name: 'a', tags: ['x'] }, [1, [2]]], none: null }
}

describe('frozenCopy', () => {
  it('returns a deep-equal copy', () => {
    const input = sample()
    expect(frozenCopy(input)).toEqual(sample())
  })

  it('freezes every nested object and array', () => {
    const result = frozenCopy(sample())
    const nodes = containers(result)
    expect(nodes.size).toBe(9)
    for (const node of nodes) expect(Object.isFrozen(node)).toBe(true)
  })

  it('never freezes or aliases its input', () => {
    const input = sample()
    const result = frozenCopy(input)
    const inputs = containers(input)
    for (const node of inputs) expect(Object.isFrozen(node)).toBe(false)
    for (const node of containers(result)) expect(inputs.has(node)).toBe(false)
    input.editor.font.size = 20
    input.groups.push([3])
    expect(result.editor.font.size).toBe(12)
    expect(result.groups).toHaveLength(2)
  })

  it('throws a TypeError on assignment in strict mode', () => {
    const result = frozenCopy(sample()) as ReturnType<typeof sample> & Record<string, unknown>
    expect(() => {
      result.theme = 'light'
    }).toThrow(TypeError)
    expect(() => {
      result.editor.font.size = 1
    }).toThrow(TypeError)
    expect(() => {
      result.added = 1
    }).toThrow(TypeError)
    expect(() => {
      delete (result as Partial<ReturnType<typeof sample>>).none
    }).toThrow(TypeError)
    expect(() => {
      result.editor.rulers[0] = 1
    }).toThrow(TypeError)
    expect(() => result.editor.rulers.push(1)).toThrow(TypeError)
    expect(result).toEqual(sample())
  })

  it('freezes a top-level array', () => {
    const result = frozenCopy([{ a: 1 }, [2]])
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result[0])).toBe(true)
    expect(Object.isFrozen(result[1])).toBe(true)
  })

  it('freezes a copy of a null-prototype object', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: 1 } })
    const result = frozenCopy(input)
    expect(result).not.toBe(input)
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.a)).toBe(true)
    expect(Object.isFrozen(input)).toBe(false)
  })

  it('returns primitives as they are', () => {
    expect(frozenCopy(1)).toBe(1)
    expect(frozenCopy('x')).toBe('x')
    expect(frozenCopy(null)).toBeNull()
    expect(frozenCopy(undefined)).toBeUndefined()
  })

  it('keeps non-plain objects as they are, without freezing them', () => {
    const date = new Date(0)
    const result = frozenCopy({ when: date })
    expect(result.when).toBe(date)
    expect(Object.isFrozen(date)).toBe(false)
  })
})

describe('copyData', () => {
  it('deep-copies plain objects and arrays', () => {
    const input = { a: { b: [1, { c: 2 }, [3]] }, s: 's', n: null, t: true }
    const result = copyData(input)
    expect(result).toEqual(input)
    expect(sharesNothing(result, input)).toBe(true)
  })

  it('returns primitives as they are', () => {
    expect(copyData(1)).toBe(1)
    expect(copyData('x')).toBe('x')
    expect(copyData(null)).toBeNull()
    expect(copyData(undefined)).toBeUndefined()
    expect(copyData(false)).toBe(false)
  })

  it('returns non-plain objects as they are', () => {
    const date = new Date(0)
    const map = new Map()
    expect(copyData(date)).toBe(date)
    const result = copyData({ when: date, list: [map] })
    expect(result.when).toBe(date)
    expect(result.list[0]).toBe(map)
  })

  it('copies a null-prototype object', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: { b: 1 } })
    const result = copyData(input)
    expect(result).not.toBe(input)
    expect(result.a).not.toBe(input.a)
    expect(JSON.parse(JSON.stringify(result))).toEqual({ a: { b: 1 } })
  })
})

describe('isPlainObject', () => {
  it('accepts object literals and null-prototype objects', () => {
    expect(isPlainObject({})).toBe(true)
    expect(isPlainObject({ a: 1 })).toBe(true)
    expect(isPlainObject(Object.create(null))).toBe(true)
    expect(isPlainObject(JSON.parse('{"__proto__":{"x":1}}'))).toBe(true)
  })

  it('refuses arrays, null, primitives, functions and class instances', () => {
    for (const value of [[], null, undefined, 0, 'a', true, 1n, Symbol('s'), () => 1, new Date(), new Map(), new Point(1, 2), /re/, Object.create({})]) {
      expect(isPlainObject(value)).toBe(false)
    }
  })
})

describe('setOwn', () => {
  it('sets __proto__ as an own data property, never as the prototype', () => {
    const target: Record<string, unknown> = {}
    setOwn(target, '__proto__', { polluted: true })
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype)
    expect(Object.keys(target)).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('copyData with freeze', () => {
  it('is the same copy as frozenCopy, deep-frozen', () => {
    const input = { a: { b: [1, { c: 2 }] } }
    const copy = copyData(input, { freeze: true })
    expect(copy).toEqual(input)
    expect(Object.isFrozen(copy.a.b[1])).toBe(true)
    expect(Object.isFrozen(input.a)).toBe(false)
  })
})

describe('valueAt', () => {
  const root = { list: [{ name: 'x' }, null], map: { 'odd key': 1, zero: 0 }, nothing: null }

  it('descends objects by own key and arrays by index, given as number or decimal text', () => {
    expect(valueAt(root, ['list', '0', 'name'])).toBe('x')
    expect(valueAt(root, ['list', 0, 'name'])).toBe('x')
    expect(valueAt(root, ['map', 'odd key'])).toBe(1)
    expect(valueAt(root, ['map', 'zero'])).toBe(0)
    expect(valueAt(root, ['nothing'])).toBeNull()
    expect(valueAt(root, [])).toBe(root)
  })

  it('answers undefined for what is absent, out of range, inherited or not an index', () => {
    expect(valueAt(root, ['missing', 'deeper'])).toBeUndefined()
    expect(valueAt(root, ['list', '2'])).toBeUndefined()
    expect(valueAt(root, ['list', '01'])).toBeUndefined()
    expect(valueAt(root, ['list', 'length'])).toBeUndefined()
    expect(valueAt(root, ['list', -1])).toBeUndefined()
    expect(valueAt(root, ['map', 'toString'])).toBeUndefined()
    expect(valueAt(root, ['nothing', 'x'])).toBeUndefined()
    expect(valueAt('text', ['length'])).toBeUndefined()
  })
})

describe('copyData on data read from storage', () => {
  it('deep-copies plain objects and arrays', () => {
    const input = { a: { b: [1, { c: 2 }] }, s: 'x', n: null }
    const result = copyData(input)
    expect(result).toEqual(input)
    const before = containers(input)
    for (const node of containers(result)) expect(before.has(node)).toBe(false)
  })

  it('keeps a __proto__ own key as data without changing the prototype', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"a":{"__proto__":[1,2]}}') as Record<string, unknown>
    const result = copyData(input) as Record<string, unknown>
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
    expect(Object.hasOwn(result, '__proto__')).toBe(true)
    expect(Object.keys(result)).toEqual(['__proto__', 'a'])
    expect(result.polluted).toBeUndefined()
    const own = Object.getOwnPropertyDescriptor(result, '__proto__')!
    expect(own.value).toEqual({ polluted: true })
    expect(own.value).not.toBe(Object.getOwnPropertyDescriptor(input, '__proto__')!.value)
    expect(own.enumerable).toBe(true)
    expect(own.writable).toBe(true)

    const nested = result.a as Record<string, unknown>
    expect(Object.getPrototypeOf(nested)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(nested, '__proto__')!.value).toEqual([1, 2])
    expect(Array.isArray(nested)).toBe(false)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('keeps constructor and prototype keys as data', () => {
    const input = JSON.parse('{"constructor":{"x":1},"prototype":2}') as Record<string, unknown>
    const result = copyData(input) as Record<string, unknown>
    expect(Object.getOwnPropertyDescriptor(result, 'constructor')!.value).toEqual({ x: 1 })
    expect(result.prototype).toBe(2)
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype)
  })

  it('copies a null-prototype object into a writable plain object', () => {
    const input = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: [2] })
    const result = copyData(input) as Record<string, unknown>
    expect(Object.keys(result)).toEqual(['a', 'b'])
    expect(result.b).toEqual([2])
    expect(result.b).not.toBe(input.b)
    result.a = 5
    expect(result.a).toBe(5)
    expect(input.a).toBe(1)
  })

  it('keeps non-plain values as they are', () => {
    const date = new Date(0)
    const map = new Map()
    expect(copyData(date)).toBe(date)
    expect(copyData(map)).toBe(map)
    expect(copyData(42)).toBe(42)
    expect(copyData('x')).toBe('x')
    expect(copyData(null)).toBeNull()
    expect(copyData(undefined)).toBeUndefined()
    const result = copyData({ when: date, list: [map] }) as { when: unknown; list: unknown[] }
    expect(result.when).toBe(date)
    expect(result.list[0]).toBe(map)
  })
})

describe('withoutPaths', () => {
  it('takes out object keys and array items at any depth, later items moving down', () => {
    const input = sample()
    expect(withoutPaths(input, [['theme'], ['editor', 'font', 'size'], ['groups', '0', 'tags'], ['editor', 'rulers', '0']])).toEqual({
      editor: { font: {}, rulers: [120] },
      groups: [{ name: 'a' }, [1, [2]]],
      none: null,
    })
    expect(withoutPaths([0, 1, 2, 3], [['1'], ['3']])).toEqual([0, 2])
    expect(input).toEqual(sample())
  })

  it('copies only what lies on the way to a removed place, and reads a frozen value without changing it', () => {
    const input = frozenCopy(sample())
    const result = withoutPaths(input, [['editor', 'font', 'size']])
    expect(result.groups).toBe(input.groups)
    expect(result.editor.rulers).toBe(input.editor.rulers)
    expect(result.editor).not.toBe(input.editor)
    expect(input.editor.font.size).toBe(12)
  })

  it('skips a path that leads nowhere, an empty path, and what lies below a removed place', () => {
    const input = sample()
    expect(withoutPaths(input, [])).toBe(input)
    expect(withoutPaths(input, [[], ['missing', 'deep'], ['theme', 'x'], ['groups', '7'], ['groups', 'name'], ['none', 'a']])).toEqual(sample())
    expect(withoutPaths(input, [['editor'], ['editor', 'font']])).toEqual({ theme: 'dark', groups: sample().groups, none: null })
  })

  it('keeps a __proto__ key as data and never reaches a prototype', () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a": {"b": 1, "c": 2}}') as Record<string, unknown>
    const result = withoutPaths(input, [['a', 'b']]) as Record<string, unknown>
    expect(Object.hasOwn(result, '__proto__')).toBe(true)
    expect(result.a).toEqual({ c: 2 })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
