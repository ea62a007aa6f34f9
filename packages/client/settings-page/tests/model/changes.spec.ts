import type { SettingsNamespaceView } from 'dsh-settings'
import { describe, expect, it } from 'vitest'
import { blankValue, buildForm, changedFields, type Field } from '../../src/model/index.ts'

function view(value: unknown, secrets: SettingsNamespaceView['secrets'] = [], revision = 1): SettingsNamespaceView {
  return { ns: 'demo', registered: true, schema: {}, value, revision, applies: 'live', secrets } as SettingsNamespaceView
}

describe('changedFields', () => {
  it('answers nothing for equal reads, whatever the key order', () => {
    expect(changedFields(view({ a: 1, b: { c: [1, 2] } }), view({ b: { c: [1, 2] }, a: 1 }))).toEqual([])
  })

  it('names each changed leaf, added and removed keys included', () => {
    const changes = changedFields(view({ a: 1, b: { c: 'x', d: true }, gone: 1 }), view({ a: 1, b: { c: 'y', d: true }, added: 2 }))
    expect(changes).toEqual([
      { path: ['b', 'c'], kind: 'value' },
      { path: ['gone'], kind: 'value' },
      { path: ['added'], kind: 'value' },
    ])
  })

  it('compares lists of one length item by item, and reports a length change on the list', () => {
    expect(changedFields(view({ l: [{ u: 'a' }, { u: 'b' }] }), view({ l: [{ u: 'a' }, { u: 'c' }] }))).toEqual([{ path: ['l', '1', 'u'], kind: 'value' }])
    expect(changedFields(view({ l: [1] }), view({ l: [1, 2] }))).toEqual([{ path: ['l'], kind: 'value' }])
  })

  it('reports a secret whose state moved, never comparing values it does not have', () => {
    const before = view({}, [{ path: ['key'], set: false }, { path: ['other'], set: true, layer: 'global' }, { path: ['gone'], set: true, layer: 'global' }])
    const after = view({}, [{ path: ['key'], set: true, layer: 'global' }, { path: ['other'], set: true, layer: 'global' }, { path: ['new'], set: false }])
    expect(changedFields(before, after)).toEqual([
      { path: ['key'], kind: 'secret' },
      { path: ['new'], kind: 'secret' },
      { path: ['gone'], kind: 'secret' },
    ])
  })

  it('reports a change of shape at the level where it happens', () => {
    expect(changedFields(view({ a: { b: 1 } }), view({ a: [1] }))).toEqual([{ path: ['a'], kind: 'value' }])
    expect(changedFields(view(undefined), view({ a: 1 }))).toEqual([{ path: [], kind: 'value' }])
  })
})

describe('blankValue', () => {
  const field = (kind: Field['kind'], extra: Partial<Field> = {}): Field => ({ path: ['x'], uid: '1', kind, label: 'x', required: false, hidden: false, value: undefined, overridden: false, ...extra })

  it('starts from the schema default, copied', () => {
    const fallback = { a: [1] }
    const value = blankValue(field('object', { default: fallback })) as typeof fallback
    expect(value).toEqual(fallback)
    value.a.push(2)
    expect(fallback.a).toEqual([1])
  })

  it('uses the emptiest value of each kind otherwise', () => {
    expect(blankValue(field('string'))).toBe('')
    expect(blankValue(field('number', { min: 3 }))).toBe(3)
    expect(blankValue(field('slider'))).toBe(0)
    expect(blankValue(field('boolean'))).toBe(false)
    expect(blankValue(field('const', { constant: 'k' }))).toBe('k')
    expect(blankValue(field('select', { options: [{ value: 'b', label: 'b' }, { value: 'c', label: 'c' }] }))).toBe('b')
    expect(blankValue(field('dict'))).toEqual({})
    expect(blankValue(field('array'))).toEqual([])
    expect(blankValue(field('tuple', { children: [field('string'), field('number')] }))).toEqual(['', 0])
    expect(blankValue(field('unsupported'))).toBeNull()
  })

  it('gives the item of a real array of objects an empty object', () => {
    const model = buildForm({ ...view({ list: [] }), schema: { uid: 0, refs: { 0: { uid: 0, type: 'object', dict: { list: 1 } }, 1: { uid: 1, type: 'array', inner: 2 }, 2: { uid: 2, type: 'object', dict: {} } } } } as SettingsNamespaceView)
    const list = model.root.children?.find((child) => child.label === 'list')
    expect(list?.item && blankValue(list.item)).toEqual({})
  })
})
