import { describe, expect, it } from 'vitest'
import { SettingsInputError, SettingsValidationError } from '../src/errors.ts'
import type { InputCall } from '../src/json.ts'
import type { JsonObject } from '../src/types.ts'
import { checkPayload, deriveSection, type WriteMode, type WritePayload } from '../src/writes.ts'
import { containers, expectInputError, thrown } from './assertions.ts'

const inputCall = (mode: WriteMode, scope?: string): InputCall => ({ label: `settings ${mode} for "demo"`, ns: 'demo', ...(scope === undefined ? {} : { scope }) })

function expectValidationError(fn: () => unknown, ...fragments: string[]): SettingsValidationError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SettingsValidationError)
  expect(error).toBeInstanceOf(TypeError)
  expect(error.name).toBe('SettingsValidationError')
  expect((error as SettingsValidationError).code).toBe('SETTINGS_INVALID')
  expect((error as SettingsValidationError).ns).toBe('demo')
  expect((error as SettingsValidationError).path).toEqual([])
  for (const fragment of fragments) expect(error.message).toContain(fragment)
  return error as SettingsValidationError
}

/** Check `payload` as the write call would, then derive the new section from `stored`. */
function derive(mode: Exclude<WriteMode, 'migrate'>, stored: unknown, payload: unknown, scope?: string): JsonObject {
  return deriveSection(stored, checkPayload(mode, payload, inputCall(mode, scope)), inputCall(mode, scope))
}

/** A stored section holding a nested `__proto__` own key, as a parsed document would. */
const pollutedSection = () => JSON.parse('{"theme":"dark","nested":{"__proto__":{"polluted":true}}}') as unknown

describe('checkPayload', () => {
  it.each(['update', 'replace'] as const)('returns a private JSON copy of a %s payload', (mode) => {
    const payload = { theme: 'dark', nested: { list: [1, 2] }, dropped: undefined }
    const checked = checkPayload(mode, payload, inputCall(mode))
    expect(checked).toEqual({ mode, data: { theme: 'dark', nested: { list: [1, 2] } } })
    const inputs = containers(payload)
    for (const node of containers(checked)) expect(inputs.has(node)).toBe(false)
  })

  it('snapshots the patch at call time so caller mutation cannot leak in', () => {
    const patch = { a: { b: 1 }, list: [1] }
    const checked = checkPayload('update', patch, inputCall('update'))
    patch.a.b = 2
    patch.list.push(2)
    ;(patch as Record<string, unknown>).c = 3
    expect(checked).toEqual({ mode: 'update', data: { a: { b: 1 }, list: [1] } })
  })

  it.each([
    ['update', 'an array', [{ theme: 'dark' }]],
    ['update', 'a Date', new Date()],
    ['update', 'null', null],
    ['update', 'a string', 'dark'],
    ['replace', 'an array', []],
    ['replace', 'a Map', new Map()],
    ['replace', 'undefined', undefined],
  ] as const)('refuses %s payload that is %s with a TypeError naming the verb and namespace', (mode, _name, payload) => {
    const error = expectInputError(() => checkPayload(mode, payload, inputCall(mode)), `settings ${mode} for "demo" must be a plain object`)
    expect(error).toBeInstanceOf(TypeError)
    expect(error.ns).toBe('demo')
    expect(error.reason).toBe('not-object')
  })

  it('accepts a null-prototype patch as a plain object', () => {
    const patch = Object.assign(Object.create(null) as Record<string, unknown>, { theme: 'dark' })
    const checked = checkPayload('update', patch, inputCall('update'))
    expect(checked.mode).toBe('update')
    expect({ ...(checked as { data: JsonObject }).data }).toEqual({ theme: 'dark' })
  })

  it('refuses a function in a patch at its path', () => {
    const error = expectInputError(() => checkPayload('update', { theme: () => 'dark' }, inputCall('update')), 'JSON-compatible', 'function at $.theme')
    expect(error.path).toEqual(['theme'])
    expect(error.reason).toBe('not-json')
  })

  it('refuses a Date in a section at its path', () => {
    const error = expectInputError(() => checkPayload('replace', { value: { at: new Date() } }, inputCall('replace')), 'Date at $.value.at')
    expect(error.path).toEqual(['value', 'at'])
  })

  it('refuses a prototype key in a patch at its path', () => {
    const error = expectInputError(() => checkPayload('update', JSON.parse('{"a":{"constructor":1}}'), inputCall('update')), 'prototype key "constructor"')
    expect(error.path).toEqual(['a', 'constructor'])
    expect(error.reason).toBe('prototype-key')
  })

  it('returns checked ops for mutate', () => {
    const ops = [{ op: 'set', path: ['a'], value: { b: 1 } }, { op: 'unset', path: ['c'] }]
    const checked = checkPayload('mutate', ops, inputCall('mutate'))
    expect(checked).toEqual({ mode: 'mutate', ops: [{ op: 'set', path: ['a'], value: { b: 1 } }, { op: 'unset', path: ['c'] }] })
    ops[0]!.path.push('x')
    expect((checked as { ops: { path: string[] }[] }).ops[0]!.path).toEqual(['a'])
  })

  it('refuses mutate ops that are not an array', () => {
    expectInputError(() => checkPayload('mutate', { op: 'set', path: [], value: {} }, inputCall('mutate')), 'must be an array of path ops')
  })

  it('refuses a mutate set without a value', () => {
    expectInputError(() => checkPayload('mutate', [{ op: 'set', path: ['a'] }], inputCall('mutate')), 'a set op needs a value')
  })

  it('refuses a patch past 1 MiB of JSON', () => {
    expect(expectInputError(() => checkPayload('update', { big: 'x'.repeat(1024 * 1024) }, inputCall('update')), 'exceeds 1048576 bytes').reason).toBe('too-large')
  })

  it('refuses mutate ops whose values together pass 1 MiB of JSON', () => {
    const ops = Array.from({ length: 600 }, (_, i) => ({ op: 'set', path: [`k${i}`], value: 'v'.repeat(2000) }))
    expect(expectInputError(() => checkPayload('mutate', ops, inputCall('mutate')), 'ops exceed 1048576 bytes').reason).toBe('too-large')
  })

  it('accepts mutate ops below 1 MiB in total', () => {
    const ops = Array.from({ length: 400 }, (_, i) => ({ op: 'set', path: [`k${i}`], value: 'v'.repeat(2000) }))
    expect((checkPayload('mutate', ops, inputCall('mutate')) as { ops: unknown[] }).ops).toHaveLength(400)
  })
})

describe('deriveSection', () => {
  describe('update', () => {
    it('deep-merges the patch over the stored section', () => {
      const stored = { theme: 'light', editor: { font: 'mono', size: 12 }, list: [1, 2, 3] }
      expect(derive('update', stored, { editor: { size: 14 }, list: [9], added: true })).toEqual({
        theme: 'light',
        editor: { font: 'mono', size: 14 },
        list: [9],
        added: true,
      })
    })

    it('stores null from the patch as data', () => {
      expect(derive('update', { a: { b: 1 }, c: 1 }, { a: null })).toEqual({ a: null, c: 1 })
    })

    it('cannot erase a key through an undefined entry', () => {
      expect(derive('update', { a: 1, b: 2 }, { a: undefined, b: 3 })).toEqual({ a: 1, b: 3 })
    })

    it('starts from {} when nothing is stored', () => {
      expect(derive('update', undefined, { a: { b: 1 } })).toEqual({ a: { b: 1 } })
    })

    it('returns an equal copy of the stored section for an empty patch', () => {
      const stored = { a: { b: [1] } }
      const result = derive('update', stored, {})
      expect(result).toEqual(stored)
      expect(result).not.toBe(stored)
      expect(derive('update', undefined, {})).toEqual({})
    })

    it('modifies neither input, shares nothing with the payload, and shares with the stored section only what the patch does not reach', () => {
      const stored = { a: { b: 1, keep: [1] }, other: { x: [2] } }
      const payload = checkPayload('update', { a: { c: 2 }, list: [1] }, inputCall('update'))
      const result = deriveSection(stored, payload, inputCall('update')) as Record<string, any>
      expect(stored).toEqual({ a: { b: 1, keep: [1] }, other: { x: [2] } })
      expect(payload).toEqual({ mode: 'update', data: { a: { c: 2 }, list: [1] } })
      expect(result).toEqual({ a: { b: 1, keep: [1], c: 2 }, other: { x: [2] }, list: [1] })
      const fromPayload = containers([payload])
      for (const node of containers(result)) expect(fromPayload.has(node)).toBe(false)
      // Only the objects on the way to a patched key are new: a write copies its path, not the section.
      expect(result.other).toBe(stored.other)
      expect(result.a.keep).toBe(stored.a.keep)
      expect(result.a).not.toBe(stored.a)
      expect(result).not.toBe(stored)
    })

    it.each([
      ['a string', 'dark'],
      ['a number', 3],
      ['an array', [{ theme: 'dark' }]],
    ])('refuses with SettingsValidationError when the stored section is %s', (_name, stored) => {
      expectValidationError(() => derive('update', stored, { theme: 'dark' }), '"demo"', 'must be an object of keys', 'replace')
    })

    it('derives from an empty section over a stored null (a section whose fields were all commented out)', () => {
      expect(derive('update', null, { theme: 'dark', nested: { a: 1 } })).toEqual({ theme: 'dark', nested: { a: 1 } })
      expect(derive('update', null, {})).toEqual({})
      expect(derive('mutate', null, [{ op: 'set', path: ['nested', 'a'], value: 1 }, { op: 'unset', path: ['theme'] }])).toEqual({ nested: { a: 1 } })
      expect(derive('replace', null, { theme: 'light' })).toEqual({ theme: 'light' })
    })

    it('refuses with SettingsValidationError when the stored section holds a nested __proto__ own key', () => {
      expectValidationError(() => derive('update', pollutedSection(), { theme: 'light' }), 'prototype key "__proto__"', '$.nested.__proto__')
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    })

    it('names the scope of a malformed scoped section', () => {
      const error = expectValidationError(() => derive('update', 'dark', {}, 'preset/coder'), 'in scope preset/coder')
      expect(error.scope).toBe('preset/coder')
    })
  })

  describe('replace', () => {
    it('takes the section exactly, dropping stored keys it lacks', () => {
      expect(derive('replace', { a: 1, b: { c: 2, d: 3 } }, { b: { c: 5 } })).toEqual({ b: { c: 5 } })
    })

    it('stores {} for an empty section', () => {
      expect(derive('replace', { a: 1 }, {})).toEqual({})
    })

    it('returns a copy that shares nothing with the payload', () => {
      const payload = checkPayload('replace', { a: { b: [1] } }, inputCall('replace'))
      const result = deriveSection({ x: 1 }, payload, inputCall('replace'))
      expect(result).toEqual({ a: { b: [1] } })
      const inputs = containers(payload)
      for (const node of containers(result)) expect(inputs.has(node)).toBe(false)
    })

    it.each([
      ['a string', 'dark'],
      ['an array', [1]],
      ['null', null],
      ['a section with a nested __proto__ own key', pollutedSection()],
    ])('repairs a stored section that is %s', (_name, stored) => {
      expect(derive('replace', stored, { theme: 'dark' })).toEqual({ theme: 'dark' })
    })
  })

  describe('mutate', () => {
    it('applies its ops in order over the stored section', () => {
      const stored = { a: { b: 1, secret: 's' }, list: ['x', 'y'] }
      expect(derive('mutate', stored, [
        { op: 'set', path: ['a', 'b'], value: 2 },
        { op: 'set', path: ['a', 'c'], value: 3 },
        { op: 'unset', path: ['a', 'c'] },
        { op: 'set', path: ['list', '2'], value: 'z' },
        { op: 'unset', path: ['list', '0'] },
      ])).toEqual({ a: { b: 2, secret: 's' }, list: ['y', 'z'] })
    })

    it('starts from {} when nothing is stored', () => {
      expect(derive('mutate', undefined, [{ op: 'set', path: ['a', 'b'], value: 1 }])).toEqual({ a: { b: 1 } })
    })

    it('returns an equal copy of the stored section for an empty ops list', () => {
      const stored = { a: { b: 1 } }
      const result = derive('mutate', stored, [])
      expect(result).toEqual(stored)
      expect(result).not.toBe(stored)
    })

    it('never modifies the stored section', () => {
      const stored = { a: { b: 1 }, list: [1, 2] }
      derive('mutate', stored, [
        { op: 'set', path: ['a', 'b'], value: 2 },
        { op: 'unset', path: ['list', '0'] },
      ])
      expect(stored).toEqual({ a: { b: 1 }, list: [1, 2] })
    })

    it('passes on a refusal from applying an op', () => {
      expectInputError(() => derive('mutate', { list: [] }, [{ op: 'set', path: ['list', '3'], value: 1 }]), 'is not an element index')
    })

    it.each([
      ['a string', 'dark'],
      ['an array', [1]],
      ['a section with a nested __proto__ own key', pollutedSection()],
    ])('repairs a stored section that is %s when its first op sets the root', (_name, stored) => {
      expect(derive('mutate', stored, [
        { op: 'set', path: [], value: { theme: 'dark' } },
        { op: 'set', path: ['size'], value: 2 },
      ])).toEqual({ theme: 'dark', size: 2 })
    })

    it('repairs a malformed stored section when its first op unsets the root', () => {
      expect(derive('mutate', 'dark', [{ op: 'unset', path: [] }])).toEqual({})
      expect(derive('mutate', pollutedSection(), [{ op: 'unset', path: [] }, { op: 'set', path: ['a'], value: 1 }])).toEqual({ a: 1 })
    })

    it('refuses with SettingsValidationError when a malformed stored section is not repaired by the first op', () => {
      expectValidationError(() => derive('mutate', 'dark', [{ op: 'set', path: ['theme'], value: 'light' }]), 'must be an object of keys')
      expectValidationError(() => derive('mutate', pollutedSection(), [{ op: 'unset', path: ['theme'] }]), 'prototype key "__proto__"')
    })

    it('refuses a malformed stored section when the root op is not the first', () => {
      expectValidationError(() => derive('mutate', 'dark', [
        { op: 'set', path: ['a'], value: 1 },
        { op: 'set', path: [], value: {} },
      ]), 'must be an object of keys')
    })

    it('refuses a malformed stored section for an empty ops list', () => {
      expectValidationError(() => derive('mutate', 'dark', []), 'must be an object of keys')
    })

    it('refuses a non-object root set even while repairing', () => {
      expectInputError(() => derive('mutate', 'dark', [{ op: 'set', path: [], value: 'light' }]), 'setting the section root requires a plain object')
    })
  })

  it('accepts a payload built by hand in the checked shape', () => {
    const payload: WritePayload = { mode: 'mutate', ops: [{ op: 'set', path: ['a'], value: 1 }] }
    expect(deriveSection({ b: 2 }, payload, inputCall('mutate'))).toEqual({ a: 1, b: 2 })
  })
})
