import { describe, expect, it } from 'vitest'
import { InterpolationError, interpolate } from '../src/interpolate.ts'

const env = { HOST: 'example.org', PORT: '8080', EMPTY: '', HOME_DIR: '/home/dsh' }

describe('interpolate', () => {
  it('replaces ${VAR} with the variable’s value', () => {
    expect(interpolate('https://${HOST}:${PORT}/api', env)).toBe('https://example.org:8080/api')
  })

  it('replaces every reference in a string, including repeated ones', () => {
    expect(interpolate('${HOST}/${HOST}/${PORT}', env)).toBe('example.org/example.org/8080')
  })

  it('uses the fallback of ${VAR:-default} only when the variable is unset', () => {
    expect(interpolate('${HOST:-localhost}', env)).toBe('example.org')
    expect(interpolate('${NOPE:-localhost}', env)).toBe('localhost')
  })

  it('takes the fallback for an empty variable, like a shell’s :-', () => {
    expect(interpolate('${EMPTY:-fallback}', env)).toBe('fallback')
  })

  it('accepts an empty fallback', () => {
    expect(interpolate('[${NOPE:-}]', env)).toBe('[]')
    expect(interpolate('[${EMPTY:-}]', env)).toBe('[]')
  })

  it('keeps fallbacks with spaces, slashes, colons and dashes verbatim', () => {
    expect(interpolate('${NOPE:-~/.dsh/my home:1-2}', env)).toBe('~/.dsh/my home:1-2')
  })

  it('does not interpolate the value of a variable again', () => {
    expect(interpolate('${RAW}', { RAW: '${HOST}' })).toBe('${HOST}')
  })

  it('does not interpolate a fallback', () => {
    expect(interpolate('${NOPE:-$HOST}', env)).toBe('$HOST')
  })

  it('reads $${ as a literal ${ and does not interpolate after it', () => {
    expect(interpolate('$${HOST}', env)).toBe('${HOST}')
    expect(interpolate('cost: $${NOPE} and ${HOST}', env)).toBe('cost: ${NOPE} and example.org')
  })

  it('leaves a lone $ and text that is not a reference alone', () => {
    expect(interpolate('$HOST costs $5 {x} ${ not a ref', env)).toBe('$HOST costs $5 {x} ${ not a ref')
  })

  it('throws InterpolationError naming an unset variable without a fallback', () => {
    let caught: unknown
    try {
      interpolate('${HOST}/${DSH_NOT_SET}', env)
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(InterpolationError)
    const error = caught as InterpolationError
    expect(error.variable).toBe('DSH_NOT_SET')
    expect(error.code).toBe('DEPLOYMENT_UNSET_VARIABLE')
    expect(error.message).toContain('DSH_NOT_SET')
    expect(error.message).toContain('${DSH_NOT_SET:-fallback}')
  })

  it('throws for an empty variable without a fallback', () => {
    expect(() => interpolate('${EMPTY}', env)).toThrow(InterpolationError)
  })

  it('reads process.env when no env is given', () => {
    const name = 'DSH_INTERPOLATE_SPEC_VAR'
    process.env[name] = 'present'
    try {
      expect(interpolate(`\${${name}}`)).toBe('present')
    } finally {
      delete process.env[name]
    }
  })

  it('replaces strings throughout nested objects and arrays', () => {
    const value = {
      home: '${HOME_DIR}',
      server: { url: 'http://${HOST}:${PORT}', tags: ['a', '${HOST}', ['${PORT}']] },
      mirrors: [{ url: 'https://${HOST}/m', token: '${TOKEN:-none}' }],
    }
    expect(interpolate(value, env)).toEqual({
      home: '/home/dsh',
      server: { url: 'http://example.org:8080', tags: ['a', 'example.org', ['8080']] },
      mirrors: [{ url: 'https://example.org/m', token: 'none' }],
    })
  })

  it('does not modify the value it is given', () => {
    const value = { a: '${HOST}', list: ['${PORT}'] }
    const copy = structuredClone(value)
    interpolate(value, env)
    expect(value).toEqual(copy)
  })

  it('leaves keys untouched', () => {
    expect(interpolate({ '${HOST}': '${HOST}', nested: { '${NOPE}': 1 } }, env)).toEqual({ '${HOST}': 'example.org', nested: { '${NOPE}': 1 } })
  })

  it('leaves non-string values untouched', () => {
    expect(interpolate(42, env)).toBe(42)
    expect(interpolate(true, env)).toBe(true)
    expect(interpolate(null, env)).toBe(null)
    expect(interpolate(undefined, env)).toBe(undefined)
    expect(interpolate({ n: 1.5, b: false, z: null, list: [0, true, null] }, env)).toEqual({ n: 1.5, b: false, z: null, list: [0, true, null] })
  })

  it('fails on the first unset variable anywhere in a nested value', () => {
    expect(() => interpolate({ a: ['ok', { deep: '${DEEP_UNSET}' }] }, env)).toThrow(/DEEP_UNSET/)
  })
})
