import { describe, expect, it } from 'vitest'
import { frozenCopy } from '../src/data.ts'

/** Every object and array reachable from `value` (including itself). */
function containers(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === 'object' && value !== null && !into.has(value)) {
    into.add(value)
    for (const key of Object.keys(value)) containers((value as Record<string, unknown>)[key], into)
  }
  return into
}

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
