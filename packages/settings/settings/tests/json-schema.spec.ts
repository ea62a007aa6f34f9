import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import * as entry from 'dsh-settings/json-schema'
import { JSON_SCHEMA_DIALECT, sectionJsonSchema, settingsJsonSchema, type JsonSchema } from '../src/json-schema.ts'

/** How values convert is checked without the reference branch every value position gets (json-schema-references.spec.ts). */
const PLAIN = { references: false } as const

/** The JSON Schema of a field: the object property `x` of a section holding only it. */
function field(schema: Schema): JsonSchema {
  return sectionJsonSchema(Schema.object({ x: schema }), PLAIN).properties!.x!
}

/** The JSON Schema of a list item: there a value is whole, so `required` holds. */
function item(schema: Schema): JsonSchema {
  return field(Schema.array(schema)).items!
}

describe('sectionJsonSchema: scalars', () => {
  it('string: pattern, length bounds; null passes where the field is not required', () => {
    expect(field(Schema.string())).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.string().pattern(/^[a-z]+$/).min(2).max(8))).toEqual({
      type: ['string', 'null'],
      pattern: '^[a-z]+$',
      minLength: 2,
      maxLength: 8,
    })
    expect(field(Schema.string().required())).toEqual({ type: 'string' })
  })

  it('string: a pattern that needs a flag JSON Schema lacks, or that is not valid in unicode mode, is left out', () => {
    expect(field(Schema.string().pattern(/^abc$/i))).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.string().pattern(/^a.c$/s))).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.string().pattern(/^\-$/))).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.string().pattern(/^a$/gu))).toEqual({ type: ['string', 'null'], pattern: '^a$' })
  })

  it('number: bounds, natural, percent', () => {
    expect(field(Schema.number())).toEqual({ type: ['number', 'null'] })
    expect(field(Schema.number().min(-1.5).max(2))).toEqual({ type: ['number', 'null'], minimum: -1.5, maximum: 2 })
    expect(field(Schema.natural())).toEqual({ type: ['integer', 'null'], minimum: 0 })
    expect(field(Schema.percent())).toEqual({ type: ['number', 'null'], minimum: 0, maximum: 1 })
  })

  it('number: a step becomes multipleOf only where that is exact', () => {
    expect(field(Schema.number().step(5))).toEqual({ type: ['integer', 'null'], multipleOf: 5 })
    expect(field(Schema.number().step(5).min(10))).toEqual({ type: ['integer', 'null'], minimum: 10, multipleOf: 5 })
    // counted from 1: 1, 3, 5… is no multiple of anything; the value is still an integer
    expect(field(Schema.number().step(2).min(1))).toEqual({ type: ['integer', 'null'], minimum: 1 })
    expect(field(Schema.number().step(0.5))).toEqual({ type: ['number', 'null'] })
    expect(field(Schema.number().step(1).min(0.5))).toEqual({ type: ['number', 'null'], minimum: 0.5 })
  })

  it('boolean', () => {
    expect(field(Schema.boolean().default(false))).toEqual({ type: ['boolean', 'null'], default: false })
  })

  it('const: the value; null joins it as an enum', () => {
    expect(field(Schema.const('on'))).toEqual({ enum: ['on', null] })
    expect(field(Schema.const({ a: [1] }).required())).toEqual({ const: { a: [1] } })
    // schemastery reads null as "missing" before it compares: a required constant null admits nothing
    expect(field(Schema.const(null).required())).toEqual({ not: {} })
  })

  it('any and never', () => {
    expect(field(Schema.any())).toEqual({})
    expect(field(Schema.any().required())).toEqual({ not: { type: 'null' } })
    // never admits only a missing value
    expect(field(Schema.never())).toEqual({ type: 'null' })
    expect(field(Schema.never().required())).toEqual({ not: {} })
  })

  it('is, function and bitset: what JSON data can satisfy', () => {
    expect(field(Schema.is(Date))).toEqual({ type: 'null' })
    expect(field(Schema.is(Object))).toEqual({ type: ['object', 'array', 'null'] })
    expect(field(Schema.is('Array'))).toEqual({ type: ['array', 'null'] })
    expect(field(Schema.function())).toEqual({ type: 'null' })
    expect(field(Schema.bitset({ a: 1, b: 2 }))).toEqual({
      anyOf: [{ type: 'number' }, { type: 'array', items: { type: 'string' } }, { type: 'null' }],
      default: 0,
    })
  })
})

describe('sectionJsonSchema: unions and intersections', () => {
  it('a union of constants is an enum', () => {
    expect(field(Schema.union(['light', 'dark']).default('light'))).toEqual({ enum: ['light', 'dark', null], default: 'light' })
    expect(field(Schema.union(['light', 'dark', 'light']).required())).toEqual({ enum: ['light', 'dark'] })
    expect(field(Schema.union([1, 2, 3]).required())).toEqual({ enum: [1, 2, 3] })
  })

  it('constants with their own description stay separate branches', () => {
    expect(field(Schema.union([Schema.const('a').description('Alpha'), Schema.const('b')]).required())).toEqual({
      anyOf: [{ const: 'a', description: 'Alpha' }, { const: 'b' }],
    })
  })

  it('a union of bare types is a type list; a mixed union is anyOf', () => {
    expect(field(Schema.union([Schema.string(), Schema.number()]))).toEqual({ type: ['string', 'number', 'null'] })
    expect(field(Schema.union([Schema.string(), Schema.object({ a: Schema.number() })]).required())).toEqual({
      anyOf: [{ type: 'string' }, { type: 'object', properties: { a: { type: ['number', 'null'] } } }],
    })
  })

  it('branches that take no JSON value are dropped (date, regExp)', () => {
    expect(field(Schema.date())).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.regExp())).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.union([Schema.is(Date)]))).toEqual({ type: 'null' })
    expect(field(Schema.union([]).required())).toEqual({ not: {} })
  })

  it('a union holding null as a constant: null once; a required one refuses it and offers no null to complete', () => {
    const nullable = Schema.union([Schema.object({ a: Schema.number() }), Schema.const(null)])
    expect(field(nullable)).toEqual({
      anyOf: [{ type: 'object', properties: { a: { type: ['number', 'null'] } } }, { const: null }],
    })
    // Editors complete a union's values branch by branch: the null branch goes, not only a `not` beside it.
    expect(field(nullable.required())).toEqual({ anyOf: [{ type: 'object', properties: { a: { type: ['number', 'null'] } } }] })
    expect(field(Schema.union([Schema.const(null), Schema.const('auto'), Schema.natural()]).required())).toEqual({ anyOf: [{ const: 'auto' }, { type: 'integer', minimum: 0 }] })
    expect(field(Schema.union([Schema.any(), Schema.string()]).required())).toEqual({ anyOf: [{ not: { type: 'null' } }, { type: 'string' }] })
    expect(field(Schema.union([Schema.const(null)]).required())).toEqual({ not: {} })
  })

  it('an intersection is allOf; its parts are checked strictly (a dict there drops bad keys rather than failing)', () => {
    const schema = Schema.intersect([
      Schema.object({ a: Schema.number() }),
      Schema.object({ b: Schema.dict(Schema.number(), Schema.string().pattern(/^k/)) }),
    ])
    expect(field(schema)).toEqual({
      anyOf: [
        {
          allOf: [
            { type: 'object', properties: { a: { type: ['number', 'null'] } } },
            { type: 'object', properties: { b: { type: ['object', 'null'], additionalProperties: { type: ['number', 'null'] }, propertyNames: { type: 'string', pattern: '^k' } } } },
          ],
        },
        { type: 'null' },
      ],
    })
    expect(field(Schema.intersect([]))).toEqual({})
    expect(field(Schema.intersect([Schema.string()]).required())).toEqual({ type: 'string' })
  })

  it('an intersection without a default shows its first part’s', () => {
    const schema = Schema.intersect([Schema.union(['a', 'b']).default('a'), Schema.string()])
    expect(field(schema)).toEqual({ anyOf: [{ allOf: [{ enum: ['a', 'b'] }, { type: 'string' }] }, { type: 'null' }], default: 'a' })
  })
})

describe('sectionJsonSchema: containers', () => {
  it('object: properties, unknown keys allowed, no required field in a section', () => {
    expect(sectionJsonSchema(Schema.object({ port: Schema.natural().default(80) }), PLAIN)).toEqual({
      type: ['object', 'null'],
      properties: { port: { type: ['integer', 'null'], minimum: 0, default: 80 } },
    })
    // a null section reads as no section, as an absent one does (a lower layer may supply the required host):
    // null passes, and the field is not required
    const schema = Schema.object({ host: Schema.string().required(), port: Schema.natural().default(80) })
    expect(sectionJsonSchema(schema, PLAIN)).toEqual({
      type: ['object', 'null'],
      properties: {
        host: { type: 'string' },
        port: { type: ['integer', 'null'], minimum: 0, default: 80 },
      },
    })
  })

  it('object inside a list: a whole value, so required holds, and null does not (its default {} lacks the field)', () => {
    expect(item(Schema.object({ url: Schema.string().required(), note: Schema.string() }))).toEqual({
      type: 'object',
      properties: { url: { type: 'string' }, note: { type: ['string', 'null'] } },
      required: ['url'],
    })
    // with a default that supplies the field, null resolves
    expect(item(Schema.object({ url: Schema.string().required() }).default({ url: 'x' }))).toEqual({
      type: ['object', 'null'],
      properties: { url: { type: 'string' } },
      required: ['url'],
      default: { url: 'x' },
    })
  })

  it('dict: values and key rules', () => {
    expect(field(Schema.dict(Schema.number()))).toEqual({ type: ['object', 'null'], additionalProperties: { type: ['number', 'null'] } })
    expect(field(Schema.dict(Schema.boolean(), Schema.string().pattern(/^[a-z]+$/)))).toEqual({
      type: ['object', 'null'],
      additionalProperties: { type: ['boolean', 'null'] },
      propertyNames: { type: 'string', pattern: '^[a-z]+$' },
    })
    expect(field(Schema.dict(Schema.boolean(), Schema.union(['a', 'b'])))).toEqual({
      type: ['object', 'null'],
      additionalProperties: { type: ['boolean', 'null'] },
      propertyNames: { enum: ['a', 'b'] },
    })
  })

  it('array: items and count bounds (no lower bound when items have a default, as schemastery skips it)', () => {
    expect(field(Schema.array(Schema.string()).min(1).max(3))).toEqual({
      type: ['array', 'null'],
      items: { type: ['string', 'null'] },
      minItems: 1,
      maxItems: 3,
    })
    expect(field(Schema.array(Schema.string().default('x')).min(1))).toEqual({
      type: ['array', 'null'],
      items: { type: ['string', 'null'], default: 'x' },
    })
  })

  it('tuple: prefixItems, extra items allowed, minItems up to the last required item', () => {
    expect(field(Schema.tuple([Schema.string().required(), Schema.number().required(), Schema.boolean()]))).toEqual({
      type: ['array', 'null'],
      prefixItems: [{ type: 'string' }, { type: 'number' }, { type: ['boolean', 'null'] }],
      minItems: 2,
    })
    expect(field(Schema.tuple([Schema.string(), Schema.number()]).default(['a', 1]))).toEqual({
      type: ['array', 'null'],
      prefixItems: [{ type: ['string', 'null'] }, { type: ['number', 'null'] }],
      default: ['a', 1],
    })
  })

  it('transform: its inner schema; its own description wins', () => {
    const schema = Schema.transform(Schema.string().pattern(/^\d+$/).description('digits'), (text) => Number(text))
    expect(field(schema)).toEqual({ type: ['string', 'null'], pattern: '^\\d+$', description: 'digits' })
    // schemastery resolves a default like any input, so a transform's default is in its input's form
    expect(field(schema.description('a count, as text').default('1' as unknown as number))).toEqual({
      type: ['string', 'null'],
      pattern: '^\\d+$',
      description: 'a count, as text',
      default: '1',
    })
  })

  it('loose: any value passes (a failure reads as the default)', () => {
    expect(field(Schema.number().loose().default(1))).toEqual({ default: 1 })
  })
})

describe('sectionJsonSchema: recursion', () => {
  it('a lazy self-reference becomes a $defs entry and a $ref', () => {
    interface Tree {
      name?: string
      children?: Tree[]
    }
    const tree: Schema<Tree> = Schema.object({ name: Schema.string(), children: Schema.array(Schema.lazy(() => tree)) })
    const node: JsonSchema = {
      type: ['object', 'null'],
      properties: { name: { type: ['string', 'null'] }, children: { type: ['array', 'null'], items: { $ref: '#/$defs/recursive.1' } } },
    }
    expect(sectionJsonSchema(tree, PLAIN)).toEqual({ ...node, $defs: { 'recursive.1': node } })
  })

  it('mutual recursion through dicts ends too', () => {
    const a: Schema = Schema.object({ b: Schema.lazy(() => b) })
    const b: Schema = Schema.dict(Schema.lazy(() => a))
    // the section root is converted on its own (a null section passes whatever the schema says); below it `b`
    // recurs through `a` under the same flags, so `b` is the reference
    const recursive: JsonSchema = { type: ['object', 'null'], additionalProperties: { type: ['object', 'null'], properties: { b: { $ref: '#/$defs/recursive.1' } } } }
    expect(sectionJsonSchema(a, PLAIN)).toEqual({
      type: ['object', 'null'],
      properties: { b: { $ref: '#/$defs/recursive.1' } },
      $defs: { 'recursive.1': recursive },
    })
  })

  it('a schema used twice but not recursive is written out in place', () => {
    const shared = Schema.string().max(3)
    const result = sectionJsonSchema(Schema.object({ a: shared, b: shared }), PLAIN)
    expect(result.$defs).toBeUndefined()
    expect(result.properties).toEqual({ a: { type: ['string', 'null'], maxLength: 3 }, b: { type: ['string', 'null'], maxLength: 3 } })
  })
})

describe('sectionJsonSchema: annotations', () => {
  it('description: a string, or from an i18n dict the English, the untranslated, or the first text', () => {
    expect(field(Schema.string().description('plain'))).toMatchObject({ description: 'plain' })
    expect(field(Schema.string().description('orig').i18n({ 'zh-CN': '中文', en: 'English' }))).toMatchObject({ description: 'English' })
    expect(field(Schema.string().description('orig').i18n({ 'zh-CN': '中文' }))).toMatchObject({ description: 'orig' })
    expect(field(Schema.string().i18n({ 'zh-CN': '中文', 'ja-JP': '日本語' }))).toMatchObject({ description: '中文' })
  })

  it('deprecated, hidden; link and textarea roles add nothing', () => {
    expect(field(Schema.string().deprecated())).toEqual({ type: ['string', 'null'], deprecated: true })
    expect(field(Schema.string().hidden())).toEqual({ type: ['string', 'null'], doNotSuggest: true })
    expect(field(Schema.string().role('link'))).toEqual({ type: ['string', 'null'] })
    expect(field(Schema.string().role('textarea'))).toEqual({ type: ['string', 'null'] })
  })

  it('defaults: JSON data only; the empty {} or [] a container fills in by itself is left out', () => {
    expect(field(Schema.string().default('x'))).toEqual({ type: ['string', 'null'], default: 'x' })
    expect(field(Schema.array(Schema.string()).default([]))).toEqual({ type: ['array', 'null'], items: { type: ['string', 'null'] } })
    expect(field(Schema.array(Schema.string()).default(['a']))).toEqual({ type: ['array', 'null'], items: { type: ['string', 'null'] }, default: ['a'] })
    expect(field(Schema.any().default(new Date(0)))).toEqual({})
    expect(field(Schema.number().default(Number.POSITIVE_INFINITY))).toEqual({ type: ['number', 'null'] })
  })

  it('secrets: the field stays with its type, marked writeOnly, with no default', () => {
    expect(field(Schema.string().role('secret').default('sk-1').description('API key'))).toEqual({
      type: ['string', 'null'],
      description: 'API key',
      writeOnly: true,
    })
    // a secret constant or choice shows its type, not its values
    expect(field(Schema.union(['alpha', 'beta']).role('secret').required())).toEqual({ type: 'string', writeOnly: true })
    expect(field(Schema.const(42).role('secret'))).toEqual({ type: ['number', 'null'], writeOnly: true })
  })

  it('secrets: a container default loses its secret parts', () => {
    const schema = Schema.object({ user: Schema.string(), token: Schema.string().role('secret') }).default({ user: 'me', token: 'sk-1' })
    expect(field(schema)).toEqual({
      type: ['object', 'null'],
      properties: { user: { type: ['string', 'null'] }, token: { type: ['string', 'null'], writeOnly: true } },
      default: { user: 'me' },
    })
    expect(JSON.stringify(sectionJsonSchema(Schema.object({ x: schema })))).not.toContain('sk-1')
  })
})

describe('settingsJsonSchema', () => {
  const theme = Schema.object({ theme: Schema.union(['light', 'dark']).default('light') })
  const tree: Schema = Schema.object({ children: Schema.array(Schema.lazy(() => tree)) })

  it('one property per namespace, a scopes map of the same, unknown keys refused at both levels', () => {
    const doc = settingsJsonSchema([{ ns: 'ui-theme', schema: theme, title: 'Theme' }], { $id: 'urn:dsh:settings', ...PLAIN })
    const section: JsonSchema = {
      title: 'Theme',
      type: ['object', 'null'],
      properties: { theme: { enum: ['light', 'dark', null], default: 'light' } },
    }
    expect(doc).toEqual({
      $schema: JSON_SCHEMA_DIALECT,
      $id: 'urn:dsh:settings',
      type: 'object',
      properties: {
        'ui-theme': { $ref: '#/$defs/ui-theme' },
        scopes: {
          description: 'Sections that apply under one named scope only, keyed by scope id (<kind>/<id>).',
          type: ['object', 'null'],
          propertyNames: { pattern: '^[a-z0-9][a-z0-9-]*\\/[a-z0-9][a-z0-9-]*$' },
          additionalProperties: { type: ['object', 'null'], properties: { 'ui-theme': { $ref: '#/$defs/ui-theme' } }, additionalProperties: false },
        },
      },
      additionalProperties: false,
      $defs: { 'ui-theme': section },
    })
  })

  it('no $id unless asked; recursive parts of every section share the document $defs', () => {
    const doc = settingsJsonSchema(
      [
        { ns: 'a', schema: tree },
        { ns: 'b', schema: Schema.object({ t: tree }) },
      ],
      PLAIN,
    )
    expect(doc).not.toHaveProperty('$id')
    expect(Object.keys(doc.$defs)).toEqual(['a', 'b', 'recursive.1'])
    expect(doc.$defs.a!.properties!.children!.items).toEqual({ $ref: '#/$defs/recursive.1' })
    expect(doc.$defs.b!.properties!.t!.properties!.children!.items).toEqual({ $ref: '#/$defs/recursive.1' })
  })

  it('refuses malformed, reserved and repeated namespaces', () => {
    expect(() => settingsJsonSchema([{ ns: 'Web_Search', schema: theme }])).toThrow(TypeError)
    expect(() => settingsJsonSchema([{ ns: 'scopes', schema: theme }])).toThrow(/reserved/)
    expect(() => settingsJsonSchema([{ ns: 'a', schema: theme }, { ns: 'a', schema: theme }])).toThrow(/twice/)
  })

  it('an empty kind list still describes the document shape', () => {
    const doc = settingsJsonSchema([])
    expect(doc.properties).toEqual({ scopes: expect.objectContaining({ type: ['object', 'null'] }) })
    expect(doc.$defs).toEqual({})
  })

  it('returns fresh objects: changing one result leaves the next alone', () => {
    const first = settingsJsonSchema([{ ns: 'ui-theme', schema: theme }], PLAIN)
    first.$defs['ui-theme']!.properties!.theme!.default = 'dark'
    ;(first.properties['ui-theme'] as JsonSchema).$ref = 'changed'
    const second = settingsJsonSchema([{ ns: 'ui-theme', schema: theme }], PLAIN)
    expect(second.$defs['ui-theme']!.properties!.theme!.default).toBe('light')
    expect(second.properties['ui-theme']).toEqual({ $ref: '#/$defs/ui-theme' })
  })
})

describe('package entry', () => {
  it('dsh-settings/json-schema exports the module', () => {
    expect(entry.settingsJsonSchema).toBe(settingsJsonSchema)
    expect(entry.sectionJsonSchema).toBe(sectionJsonSchema)
  })
})
