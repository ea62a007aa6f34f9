/**
 * lastAtOrAbove: which section the namespace list marks as in view. What these
 * tests prove: the last section whose top is at or above the line, the first
 * while none has reached it, -1 for none, and that it reads about log2(n)
 * positions, not all of them.
 */
import { describe, expect, it } from 'vitest'
import { lastAtOrAbove } from '../../src/app/in-view.ts'

describe('lastAtOrAbove', () => {
  const tops = [-900, -300, 5, 400, 1200]
  const topOf = (index: number) => tops[index]!

  it('answers the last section whose top is at or above the line', () => {
    expect(lastAtOrAbove(tops.length, topOf, 8)).toBe(2)
    expect(lastAtOrAbove(tops.length, topOf, 0)).toBe(1)
    expect(lastAtOrAbove(tops.length, topOf, 5000)).toBe(4)
  })

  it('answers the first section before any reaches the line, and -1 for none', () => {
    expect(lastAtOrAbove(tops.length, (index) => topOf(index) + 2000, 8)).toBe(0)
    expect(lastAtOrAbove(0, topOf, 8)).toBe(-1)
    expect(lastAtOrAbove(1, () => -10, 8)).toBe(0)
  })

  it('reads about log2(n) positions among a thousand sections', () => {
    let reads = 0
    const found = lastAtOrAbove(1000, (index) => {
      reads++
      return index * 100 - 61_234
    }, 8)
    expect(found).toBe(612)
    expect(reads).toBeLessThanOrEqual(11)
  })
})
