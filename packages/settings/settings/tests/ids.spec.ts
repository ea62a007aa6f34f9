import { describe, expect, it } from 'vitest'
import { SettingsInputError } from '../src/errors.ts'
import { NAMESPACE_PATTERN, optionalScopeId, sectionLabel, settingsNamespace, settingsRevision, settingsScopeId } from '../src/ids.ts'

function thrown(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('settingsNamespace', () => {
  it.each(['ui-theme', 'a1', 'web-search2', 'a', 'x-1-y'])('accepts %j unchanged', (ns) => {
    expect(settingsNamespace(ns)).toBe(ns)
  })

  it.each(['', 'UI', 'Ui-theme', '9lives', 'a_b', '-lead', 'a-', 'a--b', 'a.b', 'a b', 'a/b', 'ümlaut'])('rejects %j with TypeError', (ns) => {
    expect(() => settingsNamespace(ns)).toThrow(TypeError)
  })

  it.each(['UI', 'a--b', ''])('quotes the rejected value %j and the required pattern', (ns) => {
    const error = thrown(() => settingsNamespace(ns)) as TypeError
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toContain(JSON.stringify(ns))
    expect(error.message).toContain(String(NAMESPACE_PATTERN))
  })

  it('requires words of lowercase letters and digits joined by single hyphens', () => {
    expect(String(NAMESPACE_PATTERN)).toBe(String(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/))
  })

  it.each([
    ['a number', 42],
    ['undefined', undefined],
    ['null', null],
    ['an object', { ns: 'ui' }],
    ['a boxed string', new String('ui')],
  ])('rejects %s with TypeError', (_label, value) => {
    const error = thrown(() => settingsNamespace(value)) as TypeError
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toContain(String(NAMESPACE_PATTERN))
  })

  it.each(['scopes', 'constructor', 'prototype'])('rejects the reserved name %j with TypeError mentioning reserved', (ns) => {
    const error = thrown(() => settingsNamespace(ns)) as TypeError
    expect(error).toBeInstanceOf(TypeError)
    expect(error.message).toMatch(/reserved/)
    expect(error.message).toContain(JSON.stringify(ns))
  })

  it.each([['UI'], [42], ['scopes']])('refuses %j as a SettingsInputError with reason bad-namespace', (ns) => {
    const error = thrown(() => settingsNamespace(ns))
    expect(error).toBeInstanceOf(SettingsInputError)
    expect(error).toMatchObject({ code: 'SETTINGS_BAD_INPUT', reason: 'bad-namespace' })
    expect((error as SettingsInputError).path).toBeUndefined()
  })

  it('does not treat names that merely contain a reserved word as reserved', () => {
    expect(settingsNamespace('scopes-extra')).toBe('scopes-extra')
    expect(settingsNamespace('my-prototype')).toBe('my-prototype')
  })
})

describe('settingsScopeId', () => {
  it.each(['preset/coder', 'preset/a-1', 'agent/0', '1kind/x-'])('accepts %j unchanged', (id) => {
    expect(settingsScopeId(id)).toBe(id)
  })

  it.each(['', 'preset', 'preset/', '/coder', 'Preset/x', 'preset/X', 'a/b/c', 'preset/-x', '-kind/x', 'preset/a_b', 'preset/a b', ' preset/a'])(
    'rejects %j with TypeError',
    (id) => {
      expect(() => settingsScopeId(id)).toThrow(TypeError)
    },
  )

  it.each([42, null, undefined, {}, ['preset/coder']])('rejects the non-string %j with TypeError', (id) => {
    expect(() => settingsScopeId(id)).toThrow(TypeError)
  })

  it('quotes the rejected scope id', () => {
    const error = thrown(() => settingsScopeId('Preset/x')) as TypeError
    expect(error.message).toContain('"Preset/x"')
  })
})

describe('settingsScopeId refusals', () => {
  it('refuses as a SettingsInputError with reason bad-scope', () => {
    expect(thrown(() => settingsScopeId('Preset/x'))).toMatchObject({ name: 'SettingsInputError', reason: 'bad-scope' })
  })
})

describe('settingsRevision', () => {
  it.each([0, 1, 41, Number.MAX_SAFE_INTEGER])('accepts the revision %j', (revision) => {
    expect(settingsRevision(revision)).toBe(revision)
  })

  it('reads undefined as an unconditional write', () => {
    expect(settingsRevision(undefined)).toBeUndefined()
  })

  it.each([['-1', -1], ['1.5', 1.5], ['NaN', Number.NaN], ['Infinity', Infinity], ['past safe integers', 2 ** 53], ['a digit string', '3'], ['null', null], ['an object', {}], ['true', true]])(
    'refuses %s with reason bad-revision, naming expectedRevision',
    (_name, revision) => {
      const error = thrown(() => settingsRevision(revision)) as SettingsInputError
      expect(error).toBeInstanceOf(SettingsInputError)
      expect(error.reason).toBe('bad-revision')
      expect(error.message).toContain('expectedRevision')
    },
  )
})

describe('optionalScopeId', () => {
  it('reads undefined as the global scope', () => {
    expect(optionalScopeId(undefined)).toBeUndefined()
  })

  it('passes a well-formed scope id through', () => {
    expect(optionalScopeId('preset/coder')).toBe('preset/coder')
  })

  it.each([null, '', 'preset', 'a/b/c', 7])('rejects %j with TypeError rather than treating it as global', (id) => {
    expect(() => optionalScopeId(id)).toThrow(TypeError)
  })
})

describe('sectionLabel', () => {
  it('names a global section by its quoted namespace', () => {
    expect(sectionLabel('web-search')).toBe('"web-search"')
  })

  it('names a scoped section by namespace and scope', () => {
    expect(sectionLabel('web-search', 'preset/coder')).toBe('"web-search" in scope preset/coder')
  })
})
