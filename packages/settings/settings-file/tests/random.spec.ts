/**
 * randomHex: random digits for names, drawn from a pooled buffer. Each call must
 * give fresh digits of the asked length, also across refills of the pool.
 */
import { describe, expect, it } from 'vitest'
import { randomHex } from '../src/store/random.ts'

describe('randomHex', () => {
  it('gives hex digits of twice the asked length, never the same twice across many pool refills', () => {
    const seen = new Set<string>()
    for (let round = 0; round < 5000; round++) {
      for (const bytes of [4, 6, 9]) {
        const hex = randomHex(bytes)
        expect(hex).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))
        expect(seen.has(hex)).toBe(false)
        seen.add(hex)
      }
    }
  })
})
