import { describe, expect, it } from 'vitest'
import { formatReference, REFERENCE_TAGS, referenceOfJson, referenceToJson, SecretNameError, type SecretReference } from '../src/index.ts'

describe('references in JSON', () => {
  it('reads each kind back from the form it writes', () => {
    for (const reference of [
      { kind: 'secret', name: 'web-search.apiKey' },
      { kind: 'env', name: 'SEARCH_API_KEY' },
      { kind: 'file', name: '/run/secrets/search-api-key' },
    ] satisfies SecretReference[]) {
      const json = referenceToJson(reference)
      expect(referenceOfJson(JSON.parse(JSON.stringify(json)))).toEqual(reference)
    }
    expect(referenceToJson({ kind: 'env', name: 'X' })).toEqual({ $env: 'X' })
    expect(REFERENCE_TAGS).toEqual({ secret: '!secret', env: '!env', file: '!file' })
  })

  it('takes only a plain object with exactly one reference key holding a non-empty string', () => {
    for (const value of [
      null,
      'web-search.apiKey',
      ['$env', 'X'],
      {},
      { $env: '' },
      { $env: 1 },
      { $env: 'X', other: 1 },
      { $env: 'X', $file: '/y' },
      { $secrets: 'x' },
      { env: 'X' },
      JSON.parse('{"__proto__": {"$env": "X"}}'),
      Object.assign(Object.create({ inherited: true }), { $env: 'X' }),
      new (class Holder {
        $env = 'X'
      })(),
      { [Symbol('s')]: 1, $env: 'X' },
    ]) {
      expect(referenceOfJson(value)).toBeUndefined()
    }
    expect(referenceOfJson(Object.assign(Object.create(null), { $file: '/p' }))).toEqual({ kind: 'file', name: '/p' })
  })

  it('refuses to write a reference without a name or of an unknown kind', () => {
    expect(() => referenceToJson({ kind: 'env', name: '' })).toThrow(SecretNameError)
    expect(() => referenceToJson({ kind: 'vault', name: 'x' } as unknown as SecretReference)).toThrow(
      expect.objectContaining({ name: 'SecretNameError', code: 'SECRET_NAME_INVALID' }),
    )
  })

  it('names a reference by its tag, quoting a name that would not read as one token', () => {
    expect(formatReference({ kind: 'env', name: 'SEARCH_API_KEY' })).toBe('!env SEARCH_API_KEY')
    expect(formatReference({ kind: 'file', name: '/run/secrets/key' })).toBe('!file /run/secrets/key')
    expect(formatReference({ kind: 'secret', name: 'web-search["a b"]' })).toBe('!secret "web-search[\\"a b\\"]"')
    expect(formatReference({ kind: 'file', name: '/a\nb' })).toBe('!file "/a\\nb"')
  })
})
