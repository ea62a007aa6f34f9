/**
 * propsDiffer: when a memoized component renders again. What these tests prove:
 * a prop that changed identity, one added or removed, or new children make it
 * render; the same props in a new object do not.
 */
import { describe, expect, it } from 'vitest'
import { propsDiffer } from '../../src/app/memo.ts'

describe('propsDiffer', () => {
  const section = { ns: 'demo' }
  it('differs by identity, by an added or removed prop, or by children', () => {
    expect(propsDiffer({ section, hidden: false }, { section, hidden: false })).toBe(false)
    expect(propsDiffer({ section }, { section: { ns: 'demo' } })).toBe(true)
    expect(propsDiffer({ section }, { section, hidden: true })).toBe(true)
    expect(propsDiffer({ section, hidden: true }, { section })).toBe(true)
    expect(propsDiffer({ children: 'a' }, { children: 'b' })).toBe(true)
  })
})
