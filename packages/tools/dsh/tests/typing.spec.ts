/**
 * A value given as text, typed by the schema at its place: verbatim for a
 * string (whatever YAML would make of it), a decimal number, `true`/`false`,
 * the text of a constant, the string of a union that has one, and a
 * structured value only as JSON. No refusal quotes the text.
 */
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { decimalNumber, typeValue } from '../src/values/typing.ts'
import { ValueError } from '../src/values/value-error.ts'
import { editDistance, nearestName } from '../src/values/nearest.ts'

const typed = (schema: Schema, text: string, json = false) => typeValue([schema as never], text, 'ns.field', json)

/** The refusal `typeValue` throws, as code, exit and message. */
function refusal(schema: Schema, text: string, json = false): { code: string; exit: number; message: string } {
  try {
    typed(schema, text, json)
  } catch (error) {
    expect(error).toBeInstanceOf(ValueError)
    const { code, exit, message } = error as ValueError
    return { code, exit, message }
  }
  throw new Error('not refused')
}

/** Texts YAML would read as something else, or cut, or refuse. */
const YAML_LOOKING = ['*sk-live-AAAA', '!sk-live-BBBB', '&sk-live-CCCC', 'sk-live-DDDD #4444', '  sk-live-EEEE  ', 'null', '~', 'true', '12', '[a, b]', '{ a: 1 }', "'q'", '--sk-live-FFFF', '%TAG', '']

describe('typeValue', () => {
  it('gives a string field the text exactly as given, secret or not', () => {
    for (const text of YAML_LOOKING) {
      expect(typed(Schema.string(), text)).toBe(text)
      expect(typed(Schema.string().role('secret'), text)).toBe(text)
    }
  })

  it('gives a union of a string and something else the text as the string', () => {
    expect(typed(Schema.union([Schema.string(), Schema.const(null)]), 'null')).toBe('null')
    expect(typed(Schema.union([Schema.number(), Schema.string()]), '12')).toBe('12')
  })

  it('parses a finite decimal number for a number field, else refuses naming the field and "expects a number"', () => {
    expect(typed(Schema.number(), '20')).toBe(20)
    expect(typed(Schema.natural(), '-0.5e2')).toBe(-50)
    expect(typed(Schema.percent(), '.25')).toBe(0.25)
    for (const text of ['abc-secret', '0x10', 'Infinity', 'NaN', ' 1', '1_000', '1e400', '']) {
      expect(refusal(Schema.number(), text)).toEqual({ code: 'not-a-number', exit: 1, message: 'ns.field expects a number' })
    }
  })

  it('takes true or false for a boolean, and the text naming a constant', () => {
    expect(typed(Schema.boolean(), 'false')).toBe(false)
    expect(refusal(Schema.boolean(), 'yes-secret')).toEqual({ code: 'not-a-boolean', exit: 1, message: 'ns.field expects true or false' })
    const engine = Schema.union(['bing', 'google'])
    expect(typed(engine, 'google')).toBe('google')
    expect(refusal(engine, 'bingo-secret')).toEqual({ code: 'no-constant', exit: 1, message: 'ns.field expects one of "bing", "google"' })
    expect(typed(Schema.union([Schema.const(1), Schema.const(2)]), '2')).toBe(2)
    expect(typed(Schema.union([Schema.number(), Schema.const('auto')]), 'auto')).toBe('auto')
    expect(typed(Schema.union([Schema.number(), Schema.const('auto')]), '7')).toBe(7)
  })

  it('takes a structured value only with --json, and --json parses strict JSON for any field', () => {
    for (const schema of [Schema.object({ a: Schema.number() }), Schema.array(Schema.string()), Schema.dict(Schema.number()), Schema.tuple([Schema.number()]), Schema.any()]) {
      const refused = refusal(schema, '{"a": 1}')
      expect(refused).toMatchObject({ code: 'needs-json', exit: 1 })
      expect(refused.message).toContain('--json')
    }
    expect(refusal(Schema.union([Schema.const(false), Schema.object({})]), 'yes')).toMatchObject({ code: 'needs-json' })
    expect(typed(Schema.union([Schema.const(false), Schema.object({})]), 'false')).toBe(false)
    expect(typed(Schema.object({ a: Schema.number() }), '{"a": 1}', true)).toEqual({ a: 1 })
    expect(typed(Schema.string(), '"12"', true)).toBe('12')
    expect(typed(Schema.number(), '12', true)).toBe(12)
  })

  it('refuses text that is not strict JSON under --json without quoting it (YAML is not JSON)', () => {
    for (const text of ['{ a: 1 }', "'sk-live-GGGG'", 'sk-live-HHHH', '[1,]']) {
      const refused = refusal(Schema.any(), text, true)
      expect(refused).toMatchObject({ code: 'not-json', exit: 2 })
      expect(refused.message).not.toContain('sk-live')
      expect(refused.message).not.toContain(text)
    }
  })
})

describe('decimalNumber', () => {
  it('reads decimal notation only', () => {
    expect([decimalNumber('10'), decimalNumber('+1.5'), decimalNumber('1.'), decimalNumber('2E3')]).toEqual([10, 1.5, 1, 2000])
    expect([decimalNumber('0b1'), decimalNumber('1 '), decimalNumber('.'), decimalNumber('-')]).toEqual([undefined, undefined, undefined, undefined])
  })
})

describe('nearestName', () => {
  it('suggests the declared name a typo is nearest to, and nothing when none is near', () => {
    expect(editDistance('limt', 'limit')).toBe(1)
    expect(nearestName('limt', ['engine', 'limit', 'apiKey'])).toBe('limit')
    expect(nearestName('apikey', ['engine', 'limit', 'apiKey'])).toBe('apiKey')
    expect(nearestName('zzzzzzzz', ['engine', 'limit'])).toBeUndefined()
    expect(nearestName('x', [])).toBeUndefined()
  })
})
