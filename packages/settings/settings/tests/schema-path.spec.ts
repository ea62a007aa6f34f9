/**
 * What a schema declares at one place: the schema a value there is judged by
 * (through objects, merged intersections, dicts, lists, tuples and the union
 * branch the data means), whether the place is or holds a secret, where a path
 * leaves the schema and the names declared there, and whether a value alone is
 * refused there, never quoting it.
 */
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { reviveEnvelope } from '../src/revive.ts'
import { refusalAt, schemaAt, type DeclaredPlace, type SchemaPlace } from '../src/schema-path.ts'

/** An adapter's shape: a token beside protocols told apart by a constant. */
const Bridge = Schema.intersect([
  Schema.object({ token: Schema.string().role('secret').required() }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required() }),
    Schema.object({ protocol: Schema.const('ws').required(), heartbeat: Schema.natural().default(30) }),
  ]),
])

const Search = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  limit: Schema.natural().max(50).default(10),
  safeSearch: Schema.object({ enabled: Schema.boolean().default(true) }),
  apiKey: Schema.string().role('secret'),
  mirrors: Schema.array(Schema.object({ url: Schema.string().required(), token: Schema.string().role('secret') })).default([]),
  providers: Schema.dict(Schema.object({ baseUrl: Schema.string() })),
  pair: Schema.tuple([Schema.string(), Schema.number()]),
  extra: Schema.any(),
  options: Schema.union([Schema.const(false), Schema.object({ depth: Schema.number() })]),
})

/** The types of the schemas a declared place is judged by. */
function types(place: SchemaPlace): string[] {
  expect(place.declared).toBe(true)
  return (place as DeclaredPlace).schemas.map((schema) => schema.type)
}

describe('schemaAt', () => {
  it('walks objects, dicts (any key), lists and tuples (by item number)', () => {
    expect(types(schemaAt(Search, ['limit'], {}))).toEqual(['number'])
    expect(types(schemaAt(Search, ['safeSearch', 'enabled'], {}))).toEqual(['boolean'])
    expect(types(schemaAt(Search, ['providers', 'any-name', 'baseUrl'], {}))).toEqual(['string'])
    expect(types(schemaAt(Search, ['mirrors', '3', 'url'], {}))).toEqual(['string'])
    expect(types(schemaAt(Search, ['pair', '1'], {}))).toEqual(['number'])
    expect(types(schemaAt(Search, ['extra', 'deep', 'er'], {}))).toEqual(['any'])
    expect(types(schemaAt(Search, [], {}))).toEqual(['object'])
  })

  it('refuses a path the schema does not declare, with the names declared at that level', () => {
    expect(schemaAt(Search, ['limt'], {})).toEqual({ declared: false, depth: 0, reason: 'no-key', names: ['engine', 'limit', 'safeSearch', 'apiKey', 'mirrors', 'providers', 'pair', 'extra', 'options'] })
    expect(schemaAt(Search, ['safeSearch', 'level'], {})).toEqual({ declared: false, depth: 1, reason: 'no-key', names: ['enabled'] })
    expect(schemaAt(Search, ['mirrors', 'first'], {})).toMatchObject({ declared: false, depth: 1, reason: 'not-an-item' })
    expect(schemaAt(Search, ['mirrors', '01'], {})).toMatchObject({ declared: false, depth: 1, reason: 'not-an-item' })
    expect(schemaAt(Search, ['pair', '2'], {})).toMatchObject({ declared: false, depth: 1, reason: 'not-an-item' })
    expect(schemaAt(Search, ['limit', 'x'], {})).toMatchObject({ declared: false, depth: 1, reason: 'no-children', names: [] })
  })

  it('merges an intersection and follows the union branch the data means by its constant', () => {
    expect(types(schemaAt(Bridge, ['token'], {}))).toEqual(['string'])
    expect(types(schemaAt(Bridge, ['heartbeat'], { protocol: 'ws' }))).toEqual(['number'])
    // Under protocol ws, the http branch's field is not declared: the names are the ws branch's and the token.
    const endpoint = schemaAt(Bridge, ['endpoint'], { protocol: 'ws', token: 'x' })
    expect(endpoint).toMatchObject({ declared: false, depth: 0, reason: 'no-key' })
    expect((endpoint as { names: string[] }).names.sort()).toEqual(['heartbeat', 'protocol', 'token'])
    expect(types(schemaAt(Bridge, ['endpoint'], { protocol: 'http' }))).toEqual(['string'])
  })

  it('does not let the value a write replaces choose the branch: setting the discriminator sees every branch', () => {
    const place = schemaAt(Bridge, ['protocol'], { protocol: 'ws', heartbeat: 5 })
    expect(types(place)).toEqual(['const', 'const'])
    expect((place as DeclaredPlace).schemas.map((schema) => schema.value)).toEqual(['http', 'ws'])
  })

  it('with the branch open, a key only one branch declares is that branch\'s', () => {
    expect(types(schemaAt(Bridge, ['endpoint'], {}))).toEqual(['string'])
    expect(types(schemaAt(Bridge, ['heartbeat'], undefined))).toEqual(['number'])
    // `false` or an object: a key inside is the object branch's only.
    expect(types(schemaAt(Search, ['options', 'depth'], { options: false }))).toEqual(['number'])
  })

  it('says whether the place is a secret, lies inside one, or holds one below', () => {
    expect(schemaAt(Search, ['apiKey'], {})).toMatchObject({ secret: true, holdsSecret: true })
    expect(schemaAt(Search, ['mirrors', '0', 'token'], {})).toMatchObject({ secret: true, holdsSecret: true })
    expect(schemaAt(Search, ['mirrors'], {})).toMatchObject({ secret: false, holdsSecret: true })
    expect(schemaAt(Search, ['limit'], {})).toMatchObject({ secret: false, holdsSecret: false })
    const Vault = Schema.object({ keys: Schema.dict(Schema.string()).role('secret') })
    expect(schemaAt(Vault, ['keys', 'a'], {})).toMatchObject({ secret: true })
  })

  it('reads a revived envelope as the live schema (what the command has)', () => {
    const revived = reviveEnvelope(JSON.parse(JSON.stringify(Bridge.toJSON())))
    expect(types(schemaAt(revived, ['heartbeat'], { protocol: 'ws' }))).toEqual(['number'])
    expect(schemaAt(revived, ['token'], {})).toMatchObject({ declared: true, secret: true })
    expect(schemaAt(revived, ['hearbeat'], { protocol: 'ws' })).toMatchObject({ declared: false, depth: 0 })
  })
})

describe('refusalAt', () => {
  const place = (path: string[], data: unknown = {}) => schemaAt(Search, path, data) as DeclaredPlace

  it('accepts a value the place takes, and names what it expects for one it refuses, never the value', () => {
    expect(refusalAt(place(['limit']), 20)).toBeUndefined()
    expect(refusalAt(place(['limit']), 987654)).toEqual({ path: [], expected: 'expected number <= 50' })
    expect(refusalAt(place(['engine']), 'bingo-secret')).toEqual({ path: [], expected: 'expected "bing" | "google"' })
    const deep = refusalAt(place(['mirrors']), [{ url: 'https://a' }, { url: 7 }])
    expect(deep).toEqual({ path: ['1', 'url'], expected: 'expected string' })
    expect(JSON.stringify(refusalAt(place(['safeSearch', 'enabled']), 'sk-live-DDDD'))).not.toContain('sk-live')
  })

  it('does not refuse a value that only lacks a required value inside it (a later write may give it)', () => {
    expect(refusalAt(place(['mirrors']), [{}])).toBeUndefined()
    expect(refusalAt(place(['mirrors']), [{ token: 5 }])).toEqual({ path: ['0', 'token'], expected: 'expected string' })
  })

  it('accepts a value any of the open branches takes', () => {
    const open = schemaAt(Bridge, ['protocol'], {}) as DeclaredPlace
    expect(refusalAt(open, 'ws')).toBeUndefined()
    expect(refusalAt(open, 'htp')).toEqual({ path: [], expected: 'expected http' })
  })
})
