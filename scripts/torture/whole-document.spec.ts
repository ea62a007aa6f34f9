/**
 * The external readers' judge: every version the writers and the editor can
 * write is whole, and every read cut short of one is not.
 */
import { describe, expect, it } from 'vitest'
import { dump, load } from 'js-yaml'
import { partialReason, sectionNames, seedDocument, TRAILER } from './whole-document.ts'

const names = [...sectionNames(3), 'end']
const seed = seedDocument(3, 2)

describe('whole documents of the external readers scenario', () => {
  it('judges the seed whole, and the seed with values changed inside its sections', () => {
    expect(partialReason(seed, names)).toBeUndefined()
    expect(partialReason(seed.replace('k1: 0', 'k1: 12').replace('seq: 0', 'seq: 3'), names)).toBeUndefined()
  })

  it('judges every proper prefix of a whole document partial (a read cut short anywhere)', () => {
    const cutShort = Array.from({ length: seed.length }, (_, end) => seed.slice(0, end)).filter((prefix) => partialReason(prefix, names) === undefined)
    expect(cutShort).toEqual([])
  })

  it('judges a document that lost a section, or its trailer, partial', () => {
    expect(partialReason(seed.replace(/^w-1:\n(?: {2,}.*\n)+/m, ''), names)).toBe('lacks w-1')
    expect(partialReason(seed.replace(TRAILER, ''), names)).toMatch(/lacks/)
    expect(partialReason('', names)).toBe('empty')
    expect(partialReason('- a list\n', names)).toBe('root is not a map')
  })

  it('holds every section the writers of the scenario own, each counter at 0', () => {
    const data = load(seed) as Record<string, any>
    expect(Object.keys(data)).toEqual(names)
    expect(data.shared.k).toEqual({ w0: 0, w1: 0, w2: 0 })
    expect(data['w-2'].k).toEqual({ k0: 0, k1: 0 })
    // The trailer stays last whatever renders the document again (the editor re-renders with yaml).
    expect(partialReason(dump(data), names)).toBeUndefined()
  })
})
