import { describe, expect, it } from 'vitest'
import { mergeLayers } from '../src/merge.ts'
import { sharesNothing } from './assertions.ts'

describe('mergeLayers', () => {
  it('returns undefined for no layers', () => {
    expect(mergeLayers([])).toBeUndefined()
    expect(mergeLayers([undefined, undefined])).toBeUndefined()
  })

  it('returns a copy of a single layer', () => {
    const layer = { a: { b: [1, { c: 2 }] } }
    const result = mergeLayers([layer])
    expect(result).toEqual(layer)
    expect(sharesNothing(result, layer)).toBe(true)
  })

  it('resolves defaults < base < user key by key', () => {
    const defaults = { theme: 'light', fontSize: 12, tabs: 2 }
    const base = { fontSize: 14 }
    const user = { theme: 'dark' }
    expect(mergeLayers([defaults, base, user])).toEqual({ theme: 'dark', fontSize: 14, tabs: 2 })
  })

  it('merges nested plain objects recursively, keeping siblings from lower layers', () => {
    const lower = { editor: { font: { family: 'mono', size: 12 }, wrap: true }, other: 1 }
    const upper = { editor: { font: { size: 14 } } }
    expect(mergeLayers([lower, upper])).toEqual({ editor: { font: { family: 'mono', size: 14 }, wrap: true }, other: 1 })
  })

  it('replaces arrays wholesale instead of merging them by index', () => {
    expect(mergeLayers([{ list: [1, 2, 3] }, { list: [9] }])).toEqual({ list: [9] })
    expect(mergeLayers([{ list: [{ a: 1, b: 2 }] }, { list: [{ a: 5 }] }])).toEqual({ list: [{ a: 5 }] })
  })

  it('lets an object replace an array and an array replace an object', () => {
    expect(mergeLayers([{ a: [1] }, { a: { b: 1 } }])).toEqual({ a: { b: 1 } })
    expect(mergeLayers([{ a: { b: 1 } }, { a: [1] }])).toEqual({ a: [1] })
  })

  it('lets scalars and objects replace each other', () => {
    expect(mergeLayers([{ a: { b: 1 } }, { a: 5 }])).toEqual({ a: 5 })
    expect(mergeLayers([{ a: 'text' }, { a: { b: 1 } }])).toEqual({ a: { b: 1 } })
  })

  it('lets null replace a lower value wholesale and be replaced in turn', () => {
    expect(mergeLayers([{ a: { b: 1 } }, { a: null }])).toEqual({ a: null })
    expect(mergeLayers([{ a: { b: 1 } }, { a: null }, { a: { c: 2 } }])).toEqual({ a: { c: 2 } })
  })

  it('lets a non-object layer replace everything below it at the root', () => {
    expect(mergeLayers([{ a: 1 }, 'x'])).toBe('x')
    expect(mergeLayers([{ a: 1 }, null])).toBeNull()
    expect(mergeLayers([{ a: 1 }, [1, 2]])).toEqual([1, 2])
    expect(mergeLayers([5, { a: 1 }])).toEqual({ a: 1 })
    expect(mergeLayers([[1], { a: 1 }])).toEqual({ a: 1 })
  })

  it('skips undefined layers wherever they are', () => {
    expect(mergeLayers([undefined, { a: 1 }, undefined, { b: 2 }, undefined])).toEqual({ a: 1, b: 2 })
  })

  it('skips undefined entries so they cannot erase lower values', () => {
    const result = mergeLayers([{ a: 1, nested: { b: 2 } }, { a: undefined, nested: { b: undefined, c: 3 }, fresh: undefined }]) as Record<string, unknown>
    expect(result).toEqual({ a: 1, nested: { b: 2, c: 3 } })
    expect(Object.hasOwn(result, 'fresh')).toBe(false)
  })

  it('merges null-prototype layers', () => {
    const lower = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, n: { x: 1 } })
    const upper = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, n: Object.assign(Object.create(null) as object, { y: 2 }) })
    expect(JSON.parse(JSON.stringify(mergeLayers([lower, upper])))).toEqual({ a: 1, b: 2, n: { x: 1, y: 2 } })
  })

  it('shares no object or array with any of its inputs', () => {
    const lower = { onlyLower: { x: [1] }, both: { l: { deep: 1 }, list: [1] } }
    const upper = { onlyUpper: { y: [{ z: 1 }] }, both: { u: { deep: 2 }, list: [2] } }
    const result = mergeLayers([lower, upper])
    expect(result).toEqual({ onlyLower: { x: [1] }, onlyUpper: { y: [{ z: 1 }] }, both: { l: { deep: 1 }, u: { deep: 2 }, list: [2] } })
    expect(sharesNothing(result, lower, upper)).toBe(true)
  })

  it('never modifies its inputs', () => {
    const lower = { a: { b: 1, list: [1, 2] } }
    const upper = { a: { c: 2, list: [3] }, d: null }
    mergeLayers([lower, upper])
    expect(lower).toEqual({ a: { b: 1, list: [1, 2] } })
    expect(upper).toEqual({ a: { c: 2, list: [3] }, d: null })
  })

  it('returns a result that can be mutated without touching the layers', () => {
    const lower = { a: { b: 1 }, list: [1] }
    const result = mergeLayers([lower, { c: 1 }]) as { a: { b: number }; list: number[] }
    result.a.b = 99
    result.list.push(2)
    expect(lower).toEqual({ a: { b: 1 }, list: [1] })
  })
})
