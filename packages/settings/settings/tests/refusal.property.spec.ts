/**
 * Property: for random schemas of objects, lists and unions told apart by a
 * constant (alone or intersected with a base, nested at any depth), a value
 * taking random branches with one field made wrong is refused at exactly
 * that field; the refused path is always one the data or the schema has, and
 * no message holds the wrong value's text.
 */
import fc from 'fast-check'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { SettingsValidationError } from 'dsh-settings'
import { applySchema } from '../src/resolve.ts'

type Fields = [string, Spec][]
type Spec =
  | { t: 'string' | 'natural' | 'boolean' }
  | { t: 'object'; fields: Fields }
  | { t: 'array'; inner: Spec }
  /** Objects told apart by a required `kind` constant (`k0`, `k1`, …), intersected with a base of other keys when `base` is given. */
  | { t: 'tagged'; branches: Fields[]; base?: Fields }

const keyArb = fc.string({ unit: fc.constantFrom(...'abcdefgh'), minLength: 1, maxLength: 3 })
const fieldsArb = (spec: fc.Arbitrary<Spec>, prefix: string) =>
  fc.uniqueArray(fc.tuple(keyArb.map((key) => prefix + key), spec), { minLength: 1, maxLength: 3, selector: ([key]) => key })

const { spec: specArb } = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'spec' },
    fc.constantFrom<Spec>({ t: 'string' }, { t: 'natural' }, { t: 'boolean' }),
    fieldsArb(tie('spec'), '').map((fields): Spec => ({ t: 'object', fields })),
    tie('spec').map((inner): Spec => ({ t: 'array', inner })),
    fc
      .record({ branches: fc.array(fieldsArb(tie('spec'), 'f'), { minLength: 2, maxLength: 3 }), base: fc.option(fieldsArb(tie('spec'), 'b'), { nil: undefined }) })
      .map((tagged): Spec => ({ t: 'tagged', ...tagged })),
  ),
}))

function schemaOf(spec: Spec): Schema {
  switch (spec.t) {
    case 'string':
      return Schema.string()
    case 'natural':
      return Schema.natural()
    case 'boolean':
      return Schema.boolean()
    case 'object':
      return objectOf(spec.fields)
    case 'array':
      return Schema.array(schemaOf(spec.inner))
    case 'tagged': {
      const union = Schema.union(spec.branches.map((fields, index) => Schema.intersect([Schema.object({ kind: Schema.const(`k${index}`).required() }), objectOf(fields)])))
      return spec.base ? Schema.intersect([objectOf(spec.base), union]) : union
    }
  }
}

const objectOf = (fields: Fields) => Schema.object(Object.fromEntries(fields.map(([key, child]) => [key, schemaOf(child)])))

// Built once: an arbitrary per leaf of every sample would make generation, not the property, the cost.
const stringArb = fc.string({ unit: fc.constantFrom(...'abcdefghij'), maxLength: 5 })
const naturalArb = fc.nat(1000)
const booleanArb = fc.boolean()
const markerArb = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), minLength: 6, maxLength: 6 }).map((tail) => `MK-${tail}`)
const bigNumberArb = fc.integer({ min: 100_000, max: 999_999 }).map((n) => n + 0.25)
const wrongFor: Record<Place['wants'], fc.Arbitrary<unknown>> = {
  number: markerArb,
  boolean: markerArb,
  kind: markerArb,
  string: fc.oneof(bigNumberArb, markerArb.map((text) => ({ note: text }))),
  object: fc.oneof(markerArb, bigNumberArb),
}

/** A value `spec` accepts, taking a random branch at every union. */
function valueArb(spec: Spec): fc.Arbitrary<unknown> {
  switch (spec.t) {
    case 'string':
      return stringArb
    case 'natural':
      return naturalArb
    case 'boolean':
      return booleanArb
    case 'object':
      return recordOf(spec.fields)
    case 'array':
      return fc.array(valueArb(spec.inner), { maxLength: 3 })
    case 'tagged':
      return fc.oneof(
        ...spec.branches.map((fields, index) =>
          fc.tuple(recordOf(fields), spec.base ? recordOf(spec.base) : fc.constant({})).map(([own, base]) => ({ ...base, kind: `k${index}`, ...own })),
        ),
      )
  }
}

const recordOf = (fields: Fields) => fc.tuple(...fields.map(([, child]) => valueArb(child))).map((values) => Object.fromEntries(fields.map(([key], index) => [key, values[index]])))

/** A place a wrong value can go: a scalar field (its type), a `kind` constant, or a whole object. */
interface Place {
  path: (string | number)[]
  wants: 'string' | 'number' | 'boolean' | 'kind' | 'object'
}

/** The places of `value` (read against `spec`), in document order. */
function places(spec: Spec, value: unknown, path: (string | number)[] = []): Place[] {
  switch (spec.t) {
    case 'string':
    case 'boolean':
      return [{ path, wants: spec.t }]
    case 'natural':
      return [{ path, wants: 'number' }]
    case 'array':
      return (value as unknown[]).flatMap((item, index) => places(spec.inner, item, [...path, index]))
    case 'object':
      return [{ path, wants: 'object' }, ...fieldPlaces(spec.fields, value, path)]
    case 'tagged': {
      const record = value as Record<string, unknown>
      const branch = spec.branches[Number(String(record.kind).slice(1))]!
      return [{ path, wants: 'object' }, { path: [...path, 'kind'], wants: 'kind' }, ...fieldPlaces(spec.base ?? [], value, path), ...fieldPlaces(branch, value, path)]
    }
  }
}

const fieldPlaces = (fields: Fields, value: unknown, path: (string | number)[]) => fields.flatMap(([key, child]) => places(child, (value as Record<string, unknown>)[key], [...path, key]))

function withValue(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (!path.length) return value
  const copy = structuredClone(root) as Record<string | number, unknown>
  let node = copy
  for (const segment of path.slice(0, -1)) node = node[segment] as Record<string | number, unknown>
  node[path.at(-1)!] = value
  return copy
}

/** Whether the schema declares `path`: object keys, list items, through unions and intersections. */
function declares(schema: Schema, path: readonly string[]): boolean {
  if (!path.length) return true
  const [head, ...rest] = path
  if (schema.type === 'object') return schema.dict?.[head!] !== undefined && declares(schema.dict[head!]!, rest)
  if (schema.type === 'array') return /^\d+$/.test(head!) && declares(schema.inner!, rest)
  if (schema.type === 'union' || schema.type === 'intersect') return (schema.list ?? []).some((part) => declares(part, path))
  return false
}

function holds(data: unknown, path: readonly string[]): boolean {
  let node = data
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return false
    node = (node as Record<string, unknown>)[segment]
  }
  return true
}

const caseArb = specArb
  .chain((spec) => fc.tuple(fc.constant(spec), valueArb(spec)))
  .chain(([spec, value]) => {
    const found = places(spec, value).filter((place) => place.path.length > 0)
    if (!found.length) return fc.constant(undefined)
    return fc.constantFrom(...found).chain((place) => wrongFor[place.wants].map((wrong) => ({ spec, data: withValue(value, place.path, wrong), place, wrong })))
  })

describe('refusals over random schemas', () => {
  it('name the one wrong field, a path the data or schema has, and never the wrong value', () => {
    fc.assert(
      fc.property(caseArb, (sample) => {
        if (!sample) return
        const { spec, data, place, wrong } = sample
        const schema = schemaOf(spec)
        let refused: unknown
        try {
          applySchema(schema, data, { ns: 'probe' })
        } catch (error) {
          refused = error
        }
        expect(refused).toBeInstanceOf(SettingsValidationError)
        const error = refused as SettingsValidationError
        expect(holds(data, error.path) || declares(schema, error.path)).toBe(true)
        expect(error.path).toEqual(place.path.map(String))
        const text = typeof wrong === 'object' ? (wrong as { note: string }).note : String(wrong)
        expect(error.message).not.toContain(text)
      }),
      { numRuns: 400 },
    )
  })
})
