/**
 * The editor schema's reference branch: every value position of a section
 * (not the section itself, not inside the reference) also takes
 * `{ "$secret" | "$env" | "$file": name }`, defined once under `$defs`.
 * That ajv takes the result is checked in json-schema.ajv.spec.ts.
 */
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { REFERENCE_DEF, sectionJsonSchema, settingsJsonSchema } from '../src/json-schema.ts'

const ref = { $ref: `#/$defs/${REFERENCE_DEF}` }

const search = Schema.object({
  apiKey: Schema.string().role('secret').description('API key.'),
  limit: Schema.natural().default(10),
  engine: Schema.union([Schema.const('bing'), Schema.object({ url: Schema.string() })]),
  extra: Schema.any(),
  mirrors: Schema.array(Schema.string()),
})

describe('the reference branch of the editor schema', () => {
  const doc = settingsJsonSchema([{ ns: 'web-search', schema: search }])
  const section = doc.$defs['web-search']!

  it('is added to every value position, with the field’s annotations kept on the whole', () => {
    expect(section.properties!.apiKey).toEqual({ anyOf: [{ type: ['string', 'null'] }, ref], description: 'API key.', writeOnly: true })
    expect(section.properties!.limit).toEqual({ anyOf: [{ type: ['integer', 'null'], minimum: 0 }, ref], default: 10 })
    expect(section.properties!.mirrors!.anyOf![0]!.items).toEqual({ anyOf: [{ type: ['string', 'null'] }, ref] })
  })

  it('joins a union’s own branches rather than nesting it', () => {
    expect(section.properties!.engine!.anyOf!.at(-1)).toEqual(ref)
    expect(section.properties!.engine!.anyOf!.filter((branch) => branch.$ref).length).toBe(1)
  })

  it('leaves a field that takes any value, or none, as it is, and the section itself an object of fields', () => {
    expect(section.properties!.extra).toEqual({})
    expect(sectionJsonSchema(Schema.object({ removed: Schema.never() })).properties!.removed).toEqual({ type: 'null' })
    expect(section.type).toEqual(['object', 'null'])
  })

  it('is defined once: exactly one key, a non-empty name, no other key', () => {
    expect(doc.$defs[REFERENCE_DEF]!.anyOf).toEqual(
      ['$secret', '$env', '$file'].map((key) => ({
        type: 'object',
        properties: { [key]: { description: expect.any(String), type: 'string', minLength: 1 } },
        required: [key],
        additionalProperties: false,
      })),
    )
  })

  it('is left out when asked, and its definition with it', () => {
    const plain = settingsJsonSchema([{ ns: 'web-search', schema: search }], { references: false })
    expect(plain.$defs).not.toHaveProperty(REFERENCE_DEF)
    expect(JSON.stringify(plain)).not.toContain('$secret')
    expect(sectionJsonSchema(search, { references: false }).$defs).toBeUndefined()
  })

  it('a section schema on its own carries the definition it refers to', () => {
    expect(sectionJsonSchema(search).$defs).toEqual({ [REFERENCE_DEF]: doc.$defs[REFERENCE_DEF] })
  })

  it('a kind without any value position needs no definition', () => {
    expect(settingsJsonSchema([{ ns: 'open', schema: Schema.dict(Schema.any()) }]).$defs).not.toHaveProperty(REFERENCE_DEF)
  })
})
