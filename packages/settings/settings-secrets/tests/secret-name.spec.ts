import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseSecretName, secretName, SecretNameError } from '../src/index.ts'

describe('secretName', () => {
  it('joins namespace and path with dots, after the scope and a slash', () => {
    expect(secretName('web-search', ['apiKey'])).toBe('web-search.apiKey')
    expect(secretName('web-search', ['apiKey'], 'preset/coder')).toBe('preset/coder/web-search.apiKey')
    expect(secretName('web-search', ['auth', 'token'])).toBe('web-search.auth.token')
  })

  it('brackets and JSON-quotes a segment holding a dot, a slash, brackets, quotes or white space, or an empty one', () => {
    expect(secretName('web-search', ['a.b'])).toBe('web-search["a.b"]')
    expect(secretName('web-search', ['a/b', 'c'])).toBe('web-search["a/b"].c')
    expect(secretName('web-search', [''])).toBe('web-search[""]')
    expect(secretName('web-search', ['say "hi"'])).toBe('web-search["say \\"hi\\""]')
    expect(secretName('web-search', ['x]', '[y'])).toBe('web-search["x]"]["[y"]')
    expect(secretName('web-search', ['line\nbreak'])).toBe('web-search["line\\nbreak"]')
  })

  it('writes array indices as [n] and keeps unicode and __proto__ plain', () => {
    expect(secretName('web-search', ['servers', 0, 'token'])).toBe('web-search.servers[0].token')
    expect(secretName('web-search', ['ключ', '密钥'])).toBe('web-search.ключ.密钥')
    expect(secretName('web-search', ['__proto__', 'constructor'])).toBe('web-search.__proto__.constructor')
  })

  it('refuses a namespace, scope or path the name could not carry unambiguously', () => {
    for (const call of [
      () => secretName('', ['a']),
      () => secretName('a.b', ['a']),
      () => secretName('a/b', ['a']),
      () => secretName('a[', ['a']),
      () => secretName('web', []),
      () => secretName('web', ['a'], ''),
      () => secretName('web', ['a'], 'preset//coder'),
      () => secretName('web', ['a'], 'preset/'),
      () => secretName('web', ['a'], 'pre.set/coder'),
      () => secretName('web', [-1]),
      () => secretName('web', [1.5]),
    ]) {
      expect(call).toThrow(SecretNameError)
    }
  })
})

describe('parseSecretName', () => {
  it('reads back the namespace, scope and path of hostile names', () => {
    const cases: [string, (string | number)[], string?][] = [
      ['web-search', ['apiKey']],
      ['web-search', ['apiKey'], 'preset/coder'],
      ['web-search', ['a.b', 'a/b', '', '__proto__', 'ключ', '0', 0, 'x"]y', '\\', ' ', '\u0000', '\ud800']],
      ['ns', ['[0]', '.', '..', '["x"]']],
    ]
    for (const [ns, path, scope] of cases) {
      const name = secretName(ns, path, scope)
      expect(parseSecretName(name)).toEqual(scope === undefined ? { ns, path } : { ns, path, scope })
    }
    // A path of "__proto__" is data in an array, never a prototype change.
    expect(Object.getPrototypeOf(parseSecretName('web.__proto__')!)).toBe(Object.prototype)
  })

  it('answers undefined for a name secretName would not write', () => {
    for (const name of [
      '',
      'web-search',
      '.apiKey',
      'web-search.',
      'web-search..a',
      'web-search["apiKey"]',
      'web-search[01]',
      'web-search[-1]',
      'web-search["a.b"',
      'web-search["a.b"]x',
      'web-search[x]',
      '/web.a',
      'a//web.a',
      'web-search.a b',
    ]) {
      expect(parseSecretName(name)).toBeUndefined()
    }
  })

  it('round-trips every namespace, scope and path (property)', () => {
    const head = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/)
    const segment = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ maxLength: 6 }), fc.nat({ max: 1000 }))
    fc.assert(
      fc.property(head, fc.array(segment, { minLength: 1, maxLength: 5 }), fc.option(fc.tuple(head, head), { nil: undefined }), (ns, path, scope) => {
        const scopeId = scope && scope.join('/')
        const name = secretName(ns, path, scopeId)
        expect(parseSecretName(name)).toEqual(scopeId === undefined ? { ns, path } : { ns, path, scope: scopeId })
      }),
      { numRuns: 2000 },
    )
  })

  it('parses to exactly one name: whatever it accepts, secretName writes back unchanged (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '.', '/', '[', ']', '"', '\\', '0', '1', ' '), maxLength: 14 }), (name) => {
        const parts = parseSecretName(name)
        if (parts) expect(secretName(parts.ns, parts.path, parts.scope)).toBe(name)
      }),
      { numRuns: 3000 },
    )
  })
})
