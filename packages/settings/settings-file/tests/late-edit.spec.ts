import { describe, expect, it } from 'vitest'
import { mergeLateEdit } from '../src/provider/late-edit.ts'

describe('mergeLateEdit', () => {
  const base = { a: { n: 1 }, b: { n: 1 }, scopes: { 'preset/x': { a: { n: 1 } } } }

  it('takes the sections the editor changed and keeps every other section as the document has it now', () => {
    const late = { a: { n: 1 }, b: { n: 2 }, scopes: { 'preset/x': { a: { n: 1 } } } }
    const current = { a: { n: 5 }, b: { n: 1 }, c: { n: 3 }, scopes: { 'preset/x': { a: { n: 1 } } } }
    expect(mergeLateEdit(base, late, current)).toEqual({ a: { n: 5 }, b: { n: 2 }, c: { n: 3 }, scopes: { 'preset/x': { a: { n: 1 } } } })
  })

  it('takes sections the editor added, also inside a scope', () => {
    const late = { ...base, d: { n: 4 }, scopes: { 'preset/x': { a: { n: 1 }, e: { n: 5 } }, 'preset/y': { a: { n: 6 } } } }
    const current = { ...base, a: { n: 9 } }
    expect(mergeLateEdit(base, late, current)).toEqual({
      a: { n: 9 },
      b: { n: 1 },
      d: { n: 4 },
      scopes: { 'preset/x': { a: { n: 1 }, e: { n: 5 } }, 'preset/y': { a: { n: 6 } } },
    })
  })

  it('never removes a section the late file lacks (a save cut short)', () => {
    const late = { a: { n: 1 } }
    const current = { a: { n: 1 }, b: { n: 1 }, scopes: { 'preset/x': { a: { n: 1 } } } }
    expect(mergeLateEdit(base, late, current)).toBe(current)
  })

  it('answers the current document itself when the editor changed nothing', () => {
    const current = { a: { n: 3 } }
    expect(mergeLateEdit(base, structuredClone(base), current)).toBe(current)
  })

  it('keeps prototype keys as plain data', () => {
    const late = JSON.parse('{"__proto__": {"polluted": true}, "a": {"n": 1}}') as Record<string, unknown>
    const merged = mergeLateEdit({}, late, {})
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype)
    expect(Object.prototype.hasOwnProperty.call(merged, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
