import { describe, expect, it } from 'vitest'
import { Revisions } from '../src/revisions.ts'

describe('Revisions', () => {
  it('reports the epoch for sections never touched', () => {
    const revisions = new Revisions()
    expect(revisions.get('ui-theme')).toBe(revisions.epoch)
    expect(revisions.get('preset/coder\u0000ui-theme')).toBe(revisions.epoch)
  })

  it('moves a section up by one per bump and returns the new value', () => {
    const revisions = new Revisions()
    expect(revisions.bump('a')).toBe(revisions.epoch + 1)
    expect(revisions.bump('a')).toBe(revisions.epoch + 2)
    expect(revisions.get('a')).toBe(revisions.epoch + 2)
  })

  it('counts each section independently', () => {
    const revisions = new Revisions()
    revisions.bump('a')
    revisions.bump('a')
    revisions.bump('b')
    expect(revisions.get('a')).toBe(revisions.epoch + 2)
    expect(revisions.get('b')).toBe(revisions.epoch + 1)
    expect(revisions.get('c')).toBe(revisions.epoch)
  })

  it('records a revision given with set, and bumps continue from it', () => {
    const revisions = new Revisions()
    revisions.set('a', revisions.epoch + 40)
    expect(revisions.get('a')).toBe(revisions.epoch + 40)
    expect(revisions.bump('a')).toBe(revisions.epoch + 41)
    expect(revisions.get('b')).toBe(revisions.epoch)
  })

  it('keeps an earlier process below the epoch of a process started at least a second later', () => {
    const start = Date.UTC(2025, 5, 1, 12, 0, 0)
    for (const [randomA, randomB] of [
      [0.999999, 0],
      [0, 0.999999],
      [0.5, 0.5],
    ]) {
      const earlier = new Revisions(start, randomA)
      for (let i = 0; i < 1000; i++) earlier.bump('ui-theme')
      const later = new Revisions(start + 1000, randomB)
      expect(earlier.get('ui-theme')).toBeLessThan(later.epoch)
      expect(earlier.get('untouched')).toBeLessThan(later.epoch)
    }
  })

  it('gives processes started at different times different epochs', () => {
    const start = Date.UTC(2025, 0, 1)
    const a = new Revisions(start, 0.3)
    const b = new Revisions(start + 1000, 0.3)
    expect(a.epoch).not.toBe(b.epoch)
  })

  it('starts from a safe integer, now and decades ahead', () => {
    for (const now of [Date.now(), Date.UTC(2024, 0, 1), Date.UTC(2100, 0, 1)]) {
      const revisions = new Revisions(now, 0.999999)
      expect(Number.isSafeInteger(revisions.epoch)).toBe(true)
      expect(revisions.epoch).toBeGreaterThanOrEqual(0)
      expect(Number.isSafeInteger(revisions.bump('a'))).toBe(true)
    }
  })

  it('uses the current time and randomness by default', () => {
    const revisions = new Revisions()
    expect(Number.isSafeInteger(revisions.epoch)).toBe(true)
    expect(revisions.epoch).toBeGreaterThan(0)
  })
})
