import { describe, expect, it } from 'vitest'
import { diffDocuments, type DocumentEdit } from '../src/codec/diff.ts'

describe('diffDocuments', () => {
  it('finds no edits between deep-equal documents', () => {
    expect(diffDocuments({ a: { b: [1, { c: 'x' }] } }, { a: { b: [1, { c: 'x' }] } })).toStrictEqual([])
  })

  it('treats a change of key order alone as no change', () => {
    expect(diffDocuments({ a: 1, b: 2 }, { b: 2, a: 1 })).toStrictEqual([])
  })

  it('sets a changed leaf at its deepest path', () => {
    expect(diffDocuments({ web: { engine: 'bing', safe: true } }, { web: { engine: 'google', safe: true } })).toStrictEqual([
      { op: 'set', path: ['web', 'engine'], value: 'google' },
    ])
  })

  it('lists removed keys first, then changed and added keys in the next document\'s order', () => {
    const prev = { a: 1, b: 2, c: 3 }
    const next = { d: 4, c: 30, a: 1 }
    expect(diffDocuments(prev, next)).toStrictEqual([
      { op: 'delete', path: ['b'] },
      { op: 'set', path: ['d'], value: 4 },
      { op: 'set', path: ['c'], value: 30 },
    ])
  })

  it('compares arrays of equal length element by element, with numeric indexes', () => {
    expect(diffDocuments({ list: ['a', { n: 1 }, 'c'] }, { list: ['a', { n: 2 }, 'z'] })).toStrictEqual([
      { op: 'set', path: ['list', 1, 'n'], value: 2 },
      { op: 'set', path: ['list', 2], value: 'z' },
    ])
  })

  it('appends the new tail items of a longer array one by one', () => {
    expect(diffDocuments({ list: [1, 2] }, { list: [1, 2, 3] })).toStrictEqual([{ op: 'set', path: ['list', 2], value: 3 }])
  })

  it('removes the tail items of a shorter array, last first', () => {
    expect(diffDocuments({ list: [1, 2, 3] }, { list: [9] })).toStrictEqual([
      { op: 'set', path: ['list', 0], value: 9 },
      { op: 'delete', path: ['list', 2] },
      { op: 'delete', path: ['list', 1] },
    ])
  })

  it('sets an emptied array whole', () => {
    expect(diffDocuments({ list: [1, 2] }, { list: [] })).toStrictEqual([{ op: 'set', path: ['list'], value: [] }])
  })

  it('sets an object that becomes empty to {} rather than deleting its keys', () => {
    expect(diffDocuments({ chat: { model: 'o3', temperature: 0 } }, { chat: {} })).toStrictEqual([{ op: 'set', path: ['chat'], value: {} }])
  })

  it('sets the root to {} when every section is removed', () => {
    expect(diffDocuments({ a: 1, b: 2 }, {})).toStrictEqual([{ op: 'set', path: [], value: {} }])
  })

  it('adds a whole new section as one edit', () => {
    expect(diffDocuments({}, { chat: { model: 'o3' } })).toStrictEqual([{ op: 'set', path: ['chat'], value: { model: 'o3' } }])
  })

  it('sets a value whole when its kind changes', () => {
    expect(diffDocuments({ a: { b: 1 } }, { a: [1] })).toStrictEqual([{ op: 'set', path: ['a'], value: [1] }])
    expect(diffDocuments({ a: [1] }, { a: { 0: 1 } })).toStrictEqual([{ op: 'set', path: ['a'], value: { 0: 1 } }])
    expect(diffDocuments({ a: null }, { a: { b: 1 } })).toStrictEqual([{ op: 'set', path: ['a'], value: { b: 1 } }])
    expect(diffDocuments({ a: 'x' }, { a: { b: 1 } })).toStrictEqual([{ op: 'set', path: ['a'], value: { b: 1 } }])
  })

  it('deletes a removed key whose value was null', () => {
    expect(diffDocuments({ a: null, b: 1 }, { b: 1 })).toStrictEqual([{ op: 'delete', path: ['a'] }])
  })

  it('recurses into scopes like any other map', () => {
    const prev = { scopes: { 'preset/coder': { web: { engine: 'google' } } } }
    const next = { scopes: { 'preset/coder': { web: { engine: 'bing' } }, 'preset/writer': { web: {} } } }
    expect(diffDocuments(prev, next)).toStrictEqual([
      { op: 'set', path: ['scopes', 'preset/coder', 'web', 'engine'], value: 'bing' },
      { op: 'set', path: ['scopes', 'preset/writer'], value: { web: {} } },
    ])
  })

  it('appends to the edit list and path it is given', () => {
    const edits: DocumentEdit[] = [{ op: 'delete', path: ['old'] }]
    const result = diffDocuments({ x: 1 }, { x: 2 }, ['section'], edits)
    expect(result).toBe(edits)
    expect(edits).toStrictEqual([
      { op: 'delete', path: ['old'] },
      { op: 'set', path: ['section', 'x'], value: 2 },
    ])
  })

  it('does not modify either document', () => {
    const prev = { a: { b: [1, 2] }, c: 1 }
    const next = { a: { b: [1, 2, 3] } }
    const before = JSON.stringify([prev, next])
    diffDocuments(prev, next)
    expect(JSON.stringify([prev, next])).toBe(before)
  })
})
