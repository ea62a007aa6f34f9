import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { SettingsValidationError } from 'dsh-settings'
import { applySchema, expectationOf, resolveValue } from '../src/resolve.ts'
import type { SettingsSchema } from '../src/types.ts'

const LEAK = 'sk-LEAK-123'

/** Run `fn`, expect it to throw, and return what it threw. */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

function validationError(fn: () => unknown): SettingsValidationError {
  const error = thrown(fn)
  expect(error).toBeInstanceOf(SettingsValidationError)
  return error as SettingsValidationError
}

describe('expectationOf', () => {
  it('keeps what was expected and drops what was received', () => {
    expect(expectationOf(`expected number but got ${LEAK}`)).toBe('expected number')
    expect(expectationOf(`expected "a" | "b" but got "${LEAK}"`)).toBe('expected "a" | "b"')
    expect(expectationOf(`expected number <= 10 but got 123`)).toBe('expected number <= 10')
  })

  it('keeps messages that only describe the schema', () => {
    expect(expectationOf('missing required value')).toBe('missing required value')
    expect(expectationOf('expect string to match regexp /^[a-z]+$/')).toBe('expect string to match regexp /^[a-z]+$/')
    expect(expectationOf('unsupported type "weird"')).toBe('unsupported type "weird"')
  })

  it('reduces any other message to a generic one', () => {
    expect(expectationOf(`invalid date "${LEAK}"`)).toBe('is invalid')
    expect(expectationOf(`expected ${LEAK} to be a url`)).toBe('is invalid')
    expect(expectationOf(LEAK)).toBe('is invalid')
    expect(expectationOf('')).toBe('is invalid')
  })
})

describe('applySchema', () => {
  const key = { ns: 'demo', scope: 'preset/x' }

  it('returns the resolved value with schema defaults applied', () => {
    const schema = Schema.object({ a: Schema.number().default(1), b: Schema.string() })
    expect(applySchema(schema, { b: 'x' }, key)).toEqual({ a: 1, b: 'x' })
  })

  it('rethrows a schemastery failure as a SettingsValidationError naming the section and the path', () => {
    const error = validationError(() => applySchema(Schema.object({ nested: Schema.object({ port: Schema.number() }) }), { nested: { port: LEAK } }, key))
    expect(error).toBeInstanceOf(TypeError)
    expect(error).not.toBeInstanceOf(Schema.ValidationError)
    expect(error.name).toBe('SettingsValidationError')
    expect(error.code).toBe('SETTINGS_INVALID')
    expect(error.ns).toBe('demo')
    expect(error.scope).toBe('preset/x')
    expect(error.path).toEqual(['nested', 'port'])
    expect(error.message).toContain('"demo"')
    expect(error.message).toContain('preset/x')
    expect(error.message).toContain('$.nested.port')
    expect(error.message).toContain('expected number')
    expect(error.message).not.toContain(LEAK)
  })

  it('leaves scope unset for a global section', () => {
    const error = validationError(() => applySchema(Schema.object({ n: Schema.number() }), { n: LEAK }, { ns: 'demo' }))
    expect(error.ns).toBe('demo')
    expect(error.scope).toBeUndefined()
    expect(error.message).not.toContain('scope')
  })

  it('names array items and dict entries in the path', () => {
    const arrayError = validationError(() => applySchema(Schema.object({ list: Schema.array(Schema.number()) }), { list: [1, LEAK] }, key))
    expect(arrayError.path).toEqual(['list', '1'])
    expect(arrayError.message).toContain('$.list[1]')
    const dictError = validationError(() => applySchema(Schema.object({ limits: Schema.dict(Schema.number()) }), { limits: { daily: LEAK } }, key))
    expect(dictError.path).toEqual(['limits', 'daily'])
    expect(dictError.message).toContain('$.limits.daily')
  })

  it('reports a refused root value with an empty path', () => {
    const error = validationError(() => applySchema(Schema.number(), LEAK, key))
    expect(error.path).toEqual([])
    expect(error.message).toContain('expected number')
    expect(error.message).not.toContain(LEAK)
  })

  const cases: { name: string; schema: SettingsSchema<any>; data: unknown; path: string[]; expected?: string }[] = [
    { name: 'a number field', schema: Schema.object({ n: Schema.number() }), data: { n: LEAK }, path: ['n'], expected: 'expected number' },
    { name: 'a boolean field', schema: Schema.object({ b: Schema.boolean() }), data: { b: LEAK }, path: ['b'], expected: 'expected boolean' },
    { name: 'an object field', schema: Schema.object({ o: Schema.object({ a: Schema.number() }) }), data: { o: LEAK }, path: ['o'], expected: 'expected object' },
    { name: 'an array field', schema: Schema.object({ list: Schema.array(Schema.string()) }), data: { list: LEAK }, path: ['list'], expected: 'expected array' },
    { name: 'a union of constants', schema: Schema.object({ mode: Schema.union(['fast', 'slow']) }), data: { mode: LEAK }, path: ['mode'], expected: 'expected "fast" | "slow"' },
    { name: 'a union of objects', schema: Schema.object({ auth: Schema.union([Schema.object({ kind: Schema.const('a').required() }), Schema.number()]) }), data: { auth: { kind: LEAK } }, path: ['auth'] },
    { name: 'a constant', schema: Schema.object({ c: Schema.const('fixed') }), data: { c: LEAK }, path: ['c'], expected: 'expected fixed' },
    { name: 'an intersection', schema: Schema.object({ i: Schema.intersect([Schema.const('x'), Schema.string()]) }), data: { i: LEAK }, path: ['i'] },
    { name: 'a string pattern', schema: Schema.object({ p: Schema.string().pattern(/^[a-z]+$/) }), data: { p: LEAK }, path: ['p'], expected: 'expect string to match regexp /^[a-z]+$/' },
    { name: 'a string max length', schema: Schema.object({ s: Schema.string().max(3) }), data: { s: LEAK }, path: ['s'], expected: 'expected string length <= 3' },
    { name: 'a string min length', schema: Schema.object({ s: Schema.string().min(40) }), data: { s: LEAK }, path: ['s'], expected: 'expected string length >= 40' },
    { name: 'a number max', schema: Schema.object({ m: Schema.number().max(10) }), data: { m: 987654321 }, path: ['m'], expected: 'expected number <= 10' },
    { name: 'a number min', schema: Schema.object({ m: Schema.number().min(1e12) }), data: { m: 987654321 }, path: ['m'], expected: 'expected number >= 1000000000000' },
    { name: 'a number step', schema: Schema.object({ m: Schema.number().step(2) }), data: { m: 987654321 }, path: ['m'], expected: 'expected number multiple of 2' },
    { name: 'a regExp field', schema: Schema.object({ r: Schema.regExp() }), data: { r: `${LEAK}(` }, path: ['r'] },
    { name: 'a dict key schema', schema: Schema.object({ d: Schema.dict(Schema.number(), Schema.union(['a', 'b'])) }), data: { d: { [LEAK]: 1 } }, path: ['d'] },
  ]

  it.each(cases)('never quotes the received value when refusing $name', ({ schema, data, path, expected }) => {
    const error = validationError(() => applySchema(schema, data, key))
    expect(error.path).toEqual(path)
    if (expected) expect(error.message).toContain(expected)
    expect(error.message).not.toContain(LEAK)
    expect(error.message).not.toContain('987654321')
    expect(error.stack ?? '').not.toContain(LEAK)
    expect(JSON.stringify({ ...error })).not.toContain(LEAK)
  })

  it('never quotes the value a transform puts in a ValidationError message', () => {
    const schema = Schema.object({
      url: Schema.transform(Schema.string(), (value) => {
        throw new Schema.ValidationError(`invalid url ${value}`, { path: ['url'] })
      }),
    })
    const error = validationError(() => applySchema(schema, { url: LEAK }, key))
    expect(error.code).toBe('SETTINGS_INVALID')
    expect(error.path).toEqual(['url'])
    expect(error.message).not.toContain(LEAK)
  })

  it('keeps only the expectation of a transform ValidationError phrased like schemastery', () => {
    const schema = Schema.object({
      url: Schema.transform(Schema.string(), (value) => {
        throw new Schema.ValidationError(`expected a url but got ${value}`, { path: ['url'] })
      }),
    })
    const error = validationError(() => applySchema(schema, { url: LEAK }, key))
    expect(error.message).toContain('expected a url')
    expect(error.message).not.toContain(LEAK)
  })

  it('never quotes the value a transform puts in a plain error message', () => {
    const schema = Schema.object({
      url: Schema.transform(Schema.string(), (value) => {
        throw new Error(`cannot parse ${value}`)
      }),
    })
    const error = validationError(() => applySchema(schema, { url: LEAK }, key))
    expect(error.code).toBe('SETTINGS_INVALID')
    expect(error.path).toEqual([])
    expect(error.message).not.toContain(LEAK)
    expect(JSON.stringify({ ...error })).not.toContain(LEAK)
    expect(String((error.cause as Error | undefined)?.message ?? '')).not.toContain(LEAK)
  })

  it('says a missing required value is missing', () => {
    const error = validationError(() => applySchema(Schema.object({ key: Schema.string().required() }), {}, key))
    expect(error.path).toEqual(['key'])
    expect(error.message).toContain('$.key')
    expect(error.message).toContain('missing required value')
  })

  it('does not attach the schemastery error, which quotes the value, as the cause', () => {
    const error = validationError(() => applySchema(Schema.object({ n: Schema.number() }), { n: LEAK }, key))
    expect(String((error.cause as Error | undefined)?.message ?? '')).not.toContain(LEAK)
  })
})

describe('resolveValue', () => {
  const key = { ns: 'demo' }

  it('layers defaults < base < global < scope', () => {
    const schema = Schema.object({
      a: Schema.string().default('default'),
      b: Schema.string().default('default'),
      c: Schema.string().default('default'),
      d: Schema.string().default('default'),
    })
    const value = resolveValue(schema, [{ b: 'base', c: 'base', d: 'base' }, { c: 'global', d: 'global' }, { d: 'scope' }], undefined, key)
    expect(value).toEqual({ a: 'default', b: 'base', c: 'global', d: 'scope' })
  })

  it('merges nested objects key by key and replaces arrays wholesale', () => {
    const schema = Schema.object({
      nested: Schema.object({ x: Schema.number().default(0), y: Schema.number().default(0), z: Schema.number().default(0) }),
      list: Schema.array(Schema.number()).default([9]),
    })
    const value = resolveValue(schema, [{ nested: { x: 1 }, list: [1, 2, 3] }, { nested: { y: 2 }, list: [4] }, undefined], undefined, key)
    expect(value).toEqual({ nested: { x: 1, y: 2, z: 0 }, list: [4] })
  })

  it('resolves to the defaults when every layer is absent', () => {
    const schema = Schema.object({ a: Schema.number().default(1), nested: Schema.object({ b: Schema.string().default('b') }) })
    expect(resolveValue(schema, [undefined, undefined, undefined], undefined, key)).toEqual({ a: 1, nested: { b: 'b' } })
  })

  it('returns a deep-frozen value', () => {
    const schema = Schema.object({ nested: Schema.object({ list: Schema.array(Schema.object({ n: Schema.number() })) }) })
    const value = resolveValue(schema, [{ nested: { list: [{ n: 1 }] } }], undefined, key) as any
    expect(Object.isFrozen(value)).toBe(true)
    expect(Object.isFrozen(value.nested)).toBe(true)
    expect(Object.isFrozen(value.nested.list)).toBe(true)
    expect(Object.isFrozen(value.nested.list[0])).toBe(true)
    expect(() => {
      value.nested.list[0].n = 2
    }).toThrow(TypeError)
    expect(() => value.nested.list.push({ n: 3 })).toThrow(TypeError)
  })

  it('neither freezes nor aliases any layer or schema default', () => {
    const fallback = { tags: ['t'] }
    const schema = Schema.object({
      nested: Schema.object({ tags: Schema.array(Schema.string()) }).default(fallback),
      base: Schema.object({ list: Schema.array(Schema.number()) }),
      global: Schema.object({ deep: Schema.object({ n: Schema.number() }) }),
      scope: Schema.dict(Schema.string()),
    })
    const base = { base: { list: [1, 2] } }
    const global = { global: { deep: { n: 1 } } }
    const scope = { scope: { k: 'v' } }
    const value = resolveValue(schema, [base, global, scope], undefined, key) as any
    expect(value.base).not.toBe(base.base)
    expect(value.base.list).not.toBe(base.base.list)
    expect(value.global.deep).not.toBe(global.global.deep)
    expect(value.scope).not.toBe(scope.scope)
    expect(value.nested).not.toBe(fallback)
    expect(value.nested.tags).not.toBe(fallback.tags)
    for (const object of [base, base.base, base.base.list, global, global.global.deep, scope, scope.scope, fallback, fallback.tags]) {
      expect(Object.isFrozen(object)).toBe(false)
    }
    base.base.list.push(3)
    global.global.deep.n = 99
    scope.scope.k = 'changed'
    fallback.tags.push('u')
    expect(value).toEqual({ nested: { tags: ['t'] }, base: { list: [1, 2] }, global: { deep: { n: 1 } }, scope: { k: 'v' } })
  })

  it('does not write adapted values back into the layers', () => {
    const schema = Schema.object({ nested: Schema.object({ n: Schema.number().default(5) }) })
    const base = { nested: {} }
    resolveValue(schema, [base], undefined, key)
    expect(base).toEqual({ nested: {} })
  })

  it('hands the validate callback the frozen resolved value it returns', () => {
    const seen: unknown[] = []
    const schema = Schema.object({ nested: Schema.object({ n: Schema.number().default(1) }) })
    const value = resolveValue(schema, [{ nested: { n: 2 } }], (resolved) => {
      expect(Object.isFrozen(resolved)).toBe(true)
      expect(Object.isFrozen((resolved as any).nested)).toBe(true)
      seen.push(resolved)
    }, key)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBe(value)
    expect(value).toEqual({ nested: { n: 2 } })
  })

  it('turns a validate throw into a SettingsValidationError whose cause is a copy of the original error (name, message, code)', () => {
    const original = new RangeError('min must not exceed max')
    const schema = Schema.object({ min: Schema.number(), max: Schema.number() })
    const error = validationError(() => resolveValue(schema, [{ min: 5, max: 1 }], () => {
      throw original
    }, { ns: 'demo', scope: 'preset/x' }))
    expect(error.name).toBe('SettingsValidationError')
    expect(error.code).toBe('SETTINGS_INVALID')
    expect(error.ns).toBe('demo')
    expect(error.scope).toBe('preset/x')
    expect(error.path).toEqual([])
    // A copy, so a scrubbed message can never be undone through the original object.
    expect(error.cause).not.toBe(original)
    expect(error.cause).toMatchObject({ name: 'RangeError', message: 'min must not exceed max' })
    expect(error.message).toContain('"demo"')
  })

  it('wraps a thrown non-error value from validate as an error cause holding its text', () => {
    const error = validationError(() => resolveValue(Schema.object({}), [{}], () => {
      throw 'refused'
    }, key))
    expect(error.cause).toBeInstanceOf(Error)
    expect((error.cause as Error).message).toBe('refused')
    expect(error.code).toBe('SETTINGS_INVALID')
  })

  it('does not run validate when the schema already refused the value', () => {
    let calls = 0
    const error = validationError(() => resolveValue(Schema.object({ n: Schema.number() }), [{ n: 1 }, { n: LEAK }], () => {
      calls++
    }, key))
    expect(calls).toBe(0)
    expect(error.path).toEqual(['n'])
    expect(error.message).not.toContain(LEAK)
  })
})
