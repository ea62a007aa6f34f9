/**
 * The JSON Schema agrees with the seam, checked with a real validator (ajv, draft 2020-12):
 * (a) a document whose every section resolves through its schemastery schema passes;
 * (b) a document with a type error the seam refuses (a string for a number, a number
 *     above its maximum, an unknown choice, a text off its pattern) fails.
 * Both directions run over hand-written documents and over generated ones (fast-check).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020'
import fc from 'fast-check'
import Schema from 'schemastery'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { describe, expect, it } from 'vitest'
import { adoptDocument, getSection, SCOPES_KEY } from '../src/document.ts'
import { JSON_SCHEMA_EXTRA_KEYWORDS, sectionJsonSchema, settingsJsonSchema } from '../src/json-schema.ts'
import { layersAt } from '../src/layers.ts'
import { unlazy } from '../src/redact.ts'
import { resolveValue } from '../src/resolve.ts'

type AnySchema = Schema<any, any>

// ---------------------------------------------------------------------------------------------
// Fixtures: the two example plugins' settings (packages/examples/*/src), and three more that
// between them use every schemastery kind.
// ---------------------------------------------------------------------------------------------

const webSearch = Schema.object({
  engine: Schema.union(['bing', 'google', 'duckduckgo']).default('duckduckgo').description('Search engine.'),
  limit: Schema.natural().max(50).default(10).description('Results per query.'),
  safeSearch: Schema.object({
    enabled: Schema.boolean().default(true),
    level: Schema.union(['moderate', 'strict']).default('moderate'),
  }),
  apiKey: Schema.string().role('secret').description('API key of the engine.'),
  mirrors: Schema.array(
    Schema.object({
      url: Schema.string().required(),
      token: Schema.string().role('secret'),
    }),
  ).default([]),
})

const assistant = Schema.object({
  model: Schema.string().default('small').description('Model id.'),
  temperature: Schema.number().min(0).max(2).default(0.7),
  providers: Schema.dict(
    Schema.object({
      baseUrl: Schema.string().required(),
      apiKey: Schema.string().role('secret'),
    }),
  ),
})

const channel = Schema.union([
  Schema.object({
    kind: Schema.const('email').required(),
    to: Schema.string().pattern(/^[^@\s]+@[^@\s]+$/).required(),
  }).description('Mail to one address.'),
  Schema.object({
    kind: Schema.const('webhook').required(),
    url: Schema.string().role('link').required(),
    secret: Schema.string().role('secret'),
  }).description('POST to a URL.'),
])

const notifier = Schema.object({
  enabled: Schema.boolean().default(true),
  level: Schema.union(['debug', 'info', 'warn', 'error']).default('info').description('Lowest level sent.'),
  volume: Schema.percent().default(0.5),
  retries: Schema.natural().max(10).default(3),
  backoff: Schema.number().step(5).min(0).max(600).default(30).description('Seconds between retries.'),
  quietHours: Schema.tuple([Schema.natural().max(23).required(), Schema.natural().max(23).required()]),
  channels: Schema.array(channel).max(5),
  tags: Schema.dict(Schema.string().max(40), Schema.string().pattern(/^[a-z][a-z0-9-]*$/)),
  signature: Schema.string().role('textarea').max(200).description('Signature').i18n({ 'zh-CN': '签名', en: 'Text under each message.' }),
  legacyFormat: Schema.boolean().deprecated(),
  debugToken: Schema.string().hidden(),
  template: Schema.transform(Schema.string().pattern(/^\{.*\}$/).min(2), (text) => text.slice(1, -1)),
  limits: Schema.intersect([
    Schema.object({ perMinute: Schema.natural().max(100).default(10) }),
    Schema.object({ perHour: Schema.natural().max(1000) }),
  ]),
})

const menuItem: Schema = Schema.object({
  label: Schema.string().min(1).max(20).required(),
  shortcut: Schema.string().pattern(/^(ctrl|alt|shift)\+[a-z]$/),
  children: Schema.array(Schema.lazy(() => menuItem)),
})
const menus = Schema.object({ items: Schema.array(menuItem).max(8) })

const misc = Schema.object({
  extra: Schema.any(),
  since: Schema.date(),
  filter: Schema.regExp(),
  mode: Schema.const('fixed'),
  flags: Schema.bitset({ read: 1, write: 2 }),
  removed: Schema.never(),
  fuzzy: Schema.number().max(3).loose().default(1),
  ratio: Schema.union([Schema.number().min(0).max(1), Schema.union(['auto', 'off'])]).default('auto'),
  aliases: Schema.dict(Schema.union(['b', 'g']), Schema.union(['bing', 'google'])),
})

const kinds = [
  { ns: 'web-search', schema: webSearch, title: 'Web search' },
  { ns: 'assistant', schema: assistant },
  { ns: 'notifier', schema: notifier },
  { ns: 'menus', schema: menus },
  { ns: 'misc', schema: misc },
] as const

// ---------------------------------------------------------------------------------------------
// The two judges
// ---------------------------------------------------------------------------------------------

function newAjv(): Ajv2020 {
  // Strict, so a keyword ajv does not know or a schema error fails the test. Union types are how a field
  // says "or null"; tuples deliberately leave extra items open, which strictTuples would flag.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, strictTuples: false, allErrors: true })
  ajv.addVocabulary([...JSON_SCHEMA_EXTRA_KEYWORDS])
  return ajv
}

const documentSchema = settingsJsonSchema(kinds, { $id: 'urn:dsh:settings-test' })
const validateDocument: ValidateFunction = newAjv().compile(documentSchema)

const kindByNs = new Map<string, AnySchema>(kinds.map((kind) => [kind.ns, kind.schema]))

/**
 * What the seam does with a section stored on its own (no base, no other layer): read it as a layer
 * (a `null` section holds nothing; a non-object one is refused) and resolve it through its schema.
 */
function seamAccepts(schema: AnySchema, section: unknown, base?: Record<string, unknown>): boolean {
  try {
    const layers = layersAt({ probe: structuredClone(section) }, { ns: 'probe', base })
    resolveValue(schema, layers.map((layer) => layer.data), undefined, { ns: 'probe' })
    return true
  } catch {
    return false
  }
}

/** The seam takes the document's shape without a warning, and every section resolves on its own. */
function seamAcceptsDocument(doc: Record<string, unknown>): boolean {
  const { doc: adopted, problems } = adoptDocument(doc)
  if (problems.length) return false
  const accepts = (ns: string, scope?: string) => {
    const schema = kindByNs.get(ns)
    return schema !== undefined && seamAccepts(schema, getSection(adopted, ns, scope))
  }
  const scopes = (adopted[SCOPES_KEY] ?? {}) as Record<string, Record<string, unknown> | null>
  return (
    Object.keys(adopted).every((ns) => ns === SCOPES_KEY || accepts(ns)) &&
    Object.entries(scopes).every(([scope, sections]) => Object.keys(sections ?? {}).every((ns) => accepts(ns, scope)))
  )
}

function jsonSchemaAccepts(doc: unknown): boolean {
  return validateDocument(doc) as boolean
}

/** Generated values go through JSON, as a parsed settings file would: plain objects, no -0. */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

// ---------------------------------------------------------------------------------------------
// Generators driven by the schemastery schema: values it should take, and values with one type error
// ---------------------------------------------------------------------------------------------

/** Containers below this depth are generated empty, so a recursive schema's values end. */
const MAX_DEPTH = 4
const text = fc.string({ maxLength: 12 })
const safeKey = (arb: fc.Arbitrary<string>) => arb.filter((key) => key !== '__proto__')

function patternOf(node: AnySchema): RegExp | undefined {
  const pattern = node.meta?.pattern
  return pattern ? new RegExp(pattern.source, pattern.flags) : undefined
}

function keyArbitrary(sKey: AnySchema | undefined): fc.Arbitrary<string> {
  const node = sKey ? unlazy(sKey) : undefined
  if (node?.type === 'union' && node.list!.every((branch) => branch.type === 'const')) {
    return fc.constantFrom(...node.list!.map((branch) => branch.value as string))
  }
  const pattern = node && patternOf(node)
  return safeKey(pattern ? fc.stringMatching(pattern, { maxLength: 10 }) : fc.string({ minLength: 1, maxLength: 8 }))
}

/** A value for `schema` where it is an entry: sometimes null, unless required. */
function entryValue(schema: AnySchema, depth: number): fc.Arbitrary<unknown> {
  const node = unlazy(schema)
  const core = coreValue(node, depth)
  return node.meta?.required ? core : fc.oneof({ arbitrary: core, weight: 6 }, { arbitrary: fc.constant(null), weight: 1 })
}

/** A non-null value the schema should take (most of them do; the caller keeps only those the seam takes). */
function coreValue(node: AnySchema, depth: number): fc.Arbitrary<unknown> {
  const meta = node.meta ?? {}
  switch (node.type) {
    case 'string': {
      // The text behind Schema.date() and Schema.regExp(): their transforms refuse most random strings.
      if (meta.role === 'datetime') return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((date) => date.toISOString())
      if (meta.role === 'regexp') return fc.constantFrom('^a+$', 'x|y', '[0-9]{2}', '')
      const pattern = patternOf(node)
      const base = pattern ? fc.stringMatching(pattern, { maxLength: 24 }) : fc.string({ minLength: meta.min ?? 0, maxLength: meta.max ?? 16 })
      return base.filter((value) => value.length >= (meta.min ?? 0) && value.length <= (meta.max ?? Infinity))
    }
    case 'number': {
      // A bound on one side only (a port from 1024 up, say) sets the other 1000 away.
      const low = meta.min ?? Math.min(-1000, (meta.max ?? 0) - 1000)
      const high = meta.max ?? Math.max(1000, low + 1000)
      if (meta.step) {
        const count = Math.floor((high - low) / meta.step)
        return fc.integer({ min: 0, max: count }).map((k) => Number((low + k * meta.step!).toFixed(10)))
      }
      return fc.oneof(fc.integer({ min: Math.ceil(low), max: Math.floor(high) }), fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true }))
    }
    case 'boolean':
      return fc.boolean()
    case 'const':
      return fc.constant(node.value)
    case 'any':
      return fc.jsonValue({ maxDepth: 2 })
    case 'union':
      return fc.oneof(...node.list!.map((branch) => coreValue(unlazy(branch), depth)))
    case 'intersect':
      return fc.tuple(...node.list!.map((part) => coreValue(unlazy(part), depth))).map((parts) => Object.assign({}, ...parts))
    case 'transform':
      return coreValue(unlazy(node.inner!), depth)
    case 'object': {
      const entries = Object.entries(node.dict ?? {})
      const model = Object.fromEntries(entries.map(([key, field]) => [key, entryValue(field, depth + 1)]))
      const requiredKeys = entries.filter(([, field]) => unlazy(field).meta?.required).map(([key]) => key)
      // Unknown keys: schemastery keeps them, the JSON Schema allows them.
      return fc.tuple(fc.record(model, { requiredKeys }), fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined })).map(([record, extra]) =>
        extra === undefined ? record : { ...record, 'x-extra': extra },
      )
    }
    case 'dict':
      if (depth >= MAX_DEPTH) return fc.constant({})
      return fc.dictionary(keyArbitrary(node.sKey), entryValue(node.inner!, depth + 1), { maxKeys: 3 })
    case 'array': {
      if (depth >= MAX_DEPTH) return fc.constant([])
      const minLength = meta.min ?? 0
      return fc.array(entryValue(node.inner!, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(meta.max ?? 3, 3)) })
    }
    case 'tuple':
      return fc.tuple(...node.list!.map((item) => entryValue(item, depth + 1)))
    case 'bitset':
      return fc.oneof(fc.integer({ min: 0, max: 7 }), fc.array(fc.constantFrom('read', 'write', 'other'), { maxLength: 3 }))
    default:
      return fc.constant(null)
  }
}

/** Non-null JSON values that are not in `values`. */
function otherThan(values: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc.oneof(text, fc.integer(), fc.boolean()).filter((value) => !values.includes(value))
}

/**
 * A value for `schema` with exactly one type error of the kinds the JSON Schema must catch, or
 * `undefined` where the schema has none to offer (a union of non-constants, any, a loose schema…).
 */
function badValue(schema: AnySchema, depth: number): fc.Arbitrary<unknown> | undefined {
  const node = unlazy(schema)
  const meta = node.meta ?? {}
  if (meta.loose || depth > MAX_DEPTH) return undefined
  switch (node.type) {
    case 'number': {
      const wrong: fc.Arbitrary<unknown>[] = [text, fc.boolean()]
      if (meta.max !== undefined) wrong.push(fc.integer({ min: Math.floor(meta.max) + 1, max: Math.floor(meta.max) + 1000 }))
      if (meta.min !== undefined) wrong.push(fc.integer({ min: Math.ceil(meta.min) - 1000, max: Math.ceil(meta.min) - 1 }))
      return fc.oneof(...wrong)
    }
    case 'string': {
      const wrong: fc.Arbitrary<unknown>[] = [fc.integer(), fc.boolean()]
      const pattern = patternOf(node)
      if (pattern) wrong.push(text.filter((value) => !pattern.test(value)))
      if (meta.max !== undefined) wrong.push(fc.string({ minLength: meta.max + 1, maxLength: meta.max + 8, unit: 'binary-ascii' }))
      return fc.oneof(...wrong)
    }
    case 'boolean':
      return fc.oneof(fc.integer(), text)
    case 'const':
      return otherThan([node.value])
    case 'union': {
      const branches = node.list!.map(unlazy)
      if (!branches.every((branch) => branch.type === 'const')) return undefined
      return otherThan(branches.map((branch) => branch.value))
    }
    case 'transform':
      return badValue(node.inner!, depth)
    case 'intersect': {
      const options = node.list!.map((part) => badValue(part, depth)).filter((arb) => arb !== undefined)
      return options.length ? fc.oneof(...options) : undefined
    }
    case 'object': {
      const options = Object.entries(node.dict ?? {}).flatMap(([key, field]) => {
        const bad = badValue(field, depth + 1)
        return bad ? [bad.map((value) => [key, value] as const)] : []
      })
      if (!options.length) return undefined
      return fc.tuple(coreValue(node, depth), fc.oneof(...options)).map(([whole, [key, value]]) => ({ ...(whole as object), [key]: value }))
    }
    case 'dict': {
      const options: fc.Arbitrary<unknown>[] = []
      const bad = badValue(node.inner!, depth + 1)
      if (bad) options.push(fc.tuple(keyArbitrary(node.sKey), bad).map(([key, value]) => ({ [key]: value })))
      const keyPattern = node.sKey && patternOf(unlazy(node.sKey))
      if (keyPattern) options.push(fc.tuple(safeKey(text.filter((key) => !keyPattern.test(key))), coreValue(unlazy(node.inner!), depth + 1)).map(([key, value]) => ({ [key]: value })))
      return options.length ? fc.oneof(...options) : undefined
    }
    case 'array': {
      const bad = badValue(node.inner!, depth + 1)
      if (!bad) return undefined
      return fc.tuple(fc.array(coreValue(unlazy(node.inner!), depth + 1), { maxLength: 1 }), bad).map(([items, value]) => [...items, value])
    }
    case 'tuple': {
      const options = node.list!.flatMap((item, index) => {
        const bad = badValue(item, depth + 1)
        return bad ? [bad.map((value) => [index, value] as const)] : []
      })
      if (!options.length) return undefined
      return fc.tuple(coreValue(node, depth), fc.oneof(...options)).map(([whole, [index, value]]) => {
        const items = [...(whole as unknown[])]
        items[index] = value
        return items
      })
    }
    default:
      return undefined
  }
}

const scopeId = fc.stringMatching(SCOPE_ID_PATTERN, { maxLength: 16 })

/** Some of the kinds' sections, each the seam takes. */
function goodSections(): fc.Arbitrary<Record<string, unknown>> {
  const model = Object.fromEntries(kinds.map(({ ns, schema }) => [ns, entryValue(schema, 0).map(asJson).filter((section) => seamAccepts(schema, section))]))
  return fc.record(model, { requiredKeys: [] })
}

/** The scopes map, sometimes left empty (`null`) as a whole or scope by scope. */
const goodScopes = fc.oneof(
  { arbitrary: fc.dictionary(scopeId, fc.oneof({ arbitrary: goodSections(), weight: 5 }, { arbitrary: fc.constant(null), weight: 1 }), { maxKeys: 2 }), weight: 5 },
  { arbitrary: fc.constant(null), weight: 1 },
)

const goodDocument = fc
  .tuple(goodSections(), fc.option(goodScopes, { nil: undefined }))
  .map(([global, scopes]) => (scopes === undefined ? global : { ...global, scopes }))

/** A document that is good but for one section, global or scoped, holding one type error. */
const badDocument = fc
  .tuple(
    goodDocument,
    fc.constantFrom(...kinds.filter(({ schema }) => badValue(schema, 0))),
    fc.option(scopeId, { nil: undefined }),
  )
  .chain(([doc, kind, scope]) =>
    badValue(kind.schema, 0)!.map((section) => {
      const bad = asJson(section)
      if (scope === undefined) return { doc: { ...doc, [kind.ns]: bad }, kind, section: bad }
      const scopes = { ...((doc as { scopes?: Record<string, unknown> | null }).scopes ?? {}) }
      scopes[scope] = { ...(scopes[scope] as object | null), [kind.ns]: bad }
      return { doc: { ...doc, scopes }, kind, section: bad }
    }),
  )

// ---------------------------------------------------------------------------------------------

describe('JSON Schema and ajv', () => {
  it('every built schema is valid draft 2020-12', () => {
    const ajv = newAjv()
    expect(ajv.validateSchema(documentSchema), JSON.stringify(ajv.errors)).toBe(true)
    for (const { schema } of kinds) {
      const section = sectionJsonSchema(schema)
      expect(ajv.validateSchema(section), JSON.stringify(ajv.errors)).toBe(true)
      expect(() => newAjv().compile(section)).not.toThrow()
    }
  })

  describe('(a) what the seam accepts passes', () => {
    const accepted: [string, Record<string, unknown>][] = [
      ['an empty document', {}],
      ['a section left empty (YAML `web-search:`)', { 'web-search': null }],
      // notifier's required tuple items need a base: without one even an absent section does not resolve.
      ['every section left empty', Object.fromEntries(kinds.filter(({ ns }) => ns !== 'notifier').map(({ ns }) => [ns, null]))],
      ['a scoped section left empty', { scopes: { 'preset/coder': { 'web-search': null, assistant: null } } }],
      ['a scope left empty (YAML `preset/coder:`)', { assistant: { model: 'x' }, scopes: { 'preset/coder': null } }],
      ['the scopes map left empty (YAML `scopes:`)', { assistant: null, scopes: null }],
      [
        'the web-search example with mirrors, nulls for defaults and an unknown field',
        {
          'web-search': {
            engine: 'bing',
            limit: 0,
            safeSearch: { enabled: false, level: null },
            apiKey: 'sk-123',
            mirrors: [{ url: 'https://a.example' }, { url: 'https://b.example', token: 't' }],
            later: { anything: true },
          },
        },
      ],
      ['the assistant example with providers', { assistant: { model: 'large', temperature: 2, providers: { openai: { baseUrl: 'https://api', apiKey: 'k' }, local: { baseUrl: 'http://localhost' } } } }],
      [
        'every notifier field',
        {
          notifier: {
            enabled: true,
            level: 'warn',
            volume: 0.07,
            retries: 10,
            backoff: 45,
            quietHours: [22, 7, 'extra items are kept'],
            channels: [{ kind: 'email', to: 'me@example.com' }, { kind: 'webhook', url: 'https://hook', secret: 's' }, null],
            tags: { team: 'core', 'on-call': 'yes' },
            signature: 'Bye',
            legacyFormat: false,
            debugToken: 'x',
            template: '{body}',
            limits: { perMinute: 100, perHour: 1000 },
          },
        },
      ],
      ['a recursive menu', { menus: { items: [{ label: 'File', shortcut: 'ctrl+f', children: [{ label: 'Open', children: [{ label: 'Recent' }] }] }] } }],
      [
        'misc kinds',
        {
          misc: {
            extra: { any: ['thing', 1, null] },
            since: '2024-01-01',
            filter: '^a+$',
            mode: 'fixed',
            flags: ['read', 'unknown'],
            removed: null,
            fuzzy: 'not a number at all',
            ratio: 0.5,
            aliases: { bing: 'b' },
          },
        },
      ],
      ['scoped sections', { scopes: { 'preset/coder': { assistant: { model: 'code' } }, 'team/a-1': {} } }],
    ]
    it.each(accepted)('%s', (_, doc) => {
      expect(seamAcceptsDocument(doc)).toBe(true)
      expect(jsonSchemaAccepts(doc), JSON.stringify(validateDocument.errors)).toBe(true)
    })

    it('generated documents the seam accepts (fast-check)', () => {
      fc.assert(
        fc.property(goodDocument, (doc) => {
          expect(seamAcceptsDocument(doc)).toBe(true)
          expect(jsonSchemaAccepts(doc), `${JSON.stringify(doc)}\n${JSON.stringify(validateDocument.errors)}`).toBe(true)
        }),
        // Shrinking a whole document through the seam's filter takes minutes: the section-level property below shrinks well.
        { numRuns: 200, endOnFailure: true },
      )
    })

    it('generated values of each section on their own, against its section schema (fast-check)', () => {
      for (const { schema } of kinds) {
        const validate = newAjv().compile(sectionJsonSchema(schema))
        fc.assert(
          fc.property(entryValue(schema, 0).map(asJson), (section) => {
            fc.pre(seamAccepts(schema, section))
            expect(validate(section), `${JSON.stringify(section)}\n${JSON.stringify(validate.errors)}`).toBe(true)
          }),
          { numRuns: 200 },
        )
      }
    })
  })

  describe('(b) a type error the seam refuses fails', () => {
    const refused: [string, string, unknown][] = [
      ['a string where a number is', 'web-search', { limit: 'ten' }],
      ['a number above its maximum', 'web-search', { limit: 51 }],
      ['a fraction where an integer is (natural)', 'web-search', { limit: 1.5 }],
      ['an unknown choice', 'web-search', { engine: 'altavista' }],
      ['an unknown choice, nested', 'web-search', { safeSearch: { level: 'off' } }],
      ['a list item missing its required field', 'web-search', { mirrors: [{ token: 't' }] }],
      ['a number where a string is, in a list item', 'web-search', { mirrors: [{ url: 42 }] }],
      ['a number above its maximum (temperature)', 'assistant', { temperature: 2.5 }],
      ['a string where an object is, in a dict', 'assistant', { providers: { openai: 'https://api' } }],
      ['a text off its pattern', 'notifier', { channels: [{ kind: 'email', to: 'not an address' }] }],
      ['an unknown union branch', 'notifier', { channels: [{ kind: 'sms', to: '123' }] }],
      ['a dict key off its pattern', 'notifier', { tags: { Team: 'core' } }],
      ['a tuple too short', 'notifier', { quietHours: [22] }],
      ['a percent above 1', 'notifier', { volume: 1.5 }],
      ['a step miss (integer step)', 'notifier', { backoff: 7 }],
      ['a transform input off its pattern', 'notifier', { template: 'body' }],
      ['an intersection part refusing', 'notifier', { limits: { perHour: 5000 } }],
      ['a recursive item with a bad shortcut', 'menus', { items: [{ label: 'File', children: [{ label: 'Open', shortcut: 'meta+o' }] }] }],
      ['a recursive item label too long', 'menus', { items: [{ label: 'x'.repeat(21) }] }],
      ['a constant mismatch', 'misc', { mode: 'dynamic' }],
      ['a value for a removed (never) field', 'misc', { removed: 1 }],
      ['a dict key outside its key choices', 'misc', { aliases: { yahoo: 'b' } }],
      ['a section that is a list', 'assistant', ['model']],
    ]
    it.each(refused)('%s', (_, ns, section) => {
      expect(seamAccepts(kindByNs.get(ns)!, section)).toBe(false)
      expect(jsonSchemaAccepts({ [ns]: section })).toBe(false)
      expect(jsonSchemaAccepts({ scopes: { 'preset/x': { [ns]: section } } })).toBe(false)
    })

    it('generated documents with one type error (fast-check)', () => {
      fc.assert(
        fc.property(badDocument, ({ doc, kind, section }) => {
          expect(seamAccepts(kind.schema, section), JSON.stringify(section)).toBe(false)
          expect(jsonSchemaAccepts(doc), JSON.stringify(doc)).toBe(false)
        }),
        { numRuns: 200, endOnFailure: true },
      )
    })
  })

  describe('(b) at section level', () => {
    it('generated values of each section with one type error, against its section schema (fast-check)', () => {
      for (const { schema } of kinds) {
        const bad = badValue(schema, 0)
        if (!bad) continue
        const validate = newAjv().compile(sectionJsonSchema(schema))
        fc.assert(
          fc.property(bad.map(asJson), (section) => {
            expect(seamAccepts(schema, section), JSON.stringify(section)).toBe(false)
            expect(validate(section), JSON.stringify(section)).toBe(false)
          }),
          { numRuns: 150 },
        )
      }
    })
  })

  describe('(c) a reference in place of a value (`$secret`, `$env`, `$file`), which the provider resolves', () => {
    const secret = { $secret: 'web-search.apiKey' }
    const env = { $env: 'SEARCH_LIMIT' }
    const file = { $file: '/run/secrets/token' }
    const referenced: [string, Record<string, unknown>][] = [
      ['a secret, a number and a whole object', { 'web-search': { apiKey: secret, limit: env, safeSearch: file } }],
      ['in a list item, and a whole list item', { 'web-search': { mirrors: [{ url: 'https://a.example', token: secret }, env] } }],
      ['a dict value, and a field of one', { assistant: { providers: { openai: { baseUrl: env, apiKey: file }, local: secret } } }],
      ['a tuple item, a union item’s field, a transform’s input, an intersection part’s field', {
        notifier: { quietHours: [env, 7], channels: [{ kind: 'webhook', url: env, secret: file }], template: secret, limits: { perHour: env } },
      }],
      ['deep in a recursive schema', { menus: { items: [{ label: 'File', children: [{ label: env }] }] } }],
      ['under a scope', { scopes: { 'preset/coder': { 'web-search': { apiKey: { $secret: 'preset/coder/web-search.apiKey' } } } } }],
    ]
    it.each(referenced)('%s passes', (_, doc) => {
      expect(jsonSchemaAccepts(doc), JSON.stringify(validateDocument.errors)).toBe(true)
    })

    const malformed: [string, unknown][] = [
      ['an empty name', { $secret: '' }],
      ['two reference keys', { $secret: 'a', $env: 'A' }],
      ['a reference key beside another key', { $env: 'A', note: 'x' }],
      ['a name that is not a string', { $file: 1 }],
      ['a reference inside a reference', { $secret: { $env: 'A' } }],
      ['a key no reference has', { $vault: 'a' }],
    ]
    it.each(malformed)('%s fails where a value is expected', (_, reference) => {
      expect(jsonSchemaAccepts({ 'web-search': { apiKey: reference } })).toBe(false)
      expect(jsonSchemaAccepts({ 'web-search': { limit: reference } })).toBe(false)
    })

    it('a field that takes no value takes no reference either', () => {
      expect(jsonSchemaAccepts({ misc: { removed: env } })).toBe(false)
    })

    it('a section schema on its own takes references too, with its own definition', () => {
      const validate = newAjv().compile(sectionJsonSchema(webSearch))
      expect(validate({ apiKey: secret, mirrors: [{ url: file }] }), JSON.stringify(validate.errors)).toBe(true)
      expect(validate({ apiKey: { $secret: '' } })).toBe(false)
    })
  })

  describe('the document shape: what the seam ignores with a warning is flagged', () => {
    it.each([
      ['a key that is no namespace', { web_search: {} }],
      ['a namespace not among the kinds', { 'not-registered': {} }],
      ['a scope id that is not <kind>/<id>', { scopes: { coder: { assistant: {} } } }],
      ['a key in a scope that is no namespace', { scopes: { 'preset/x': { Assistant: {} } } }],
      ['a scopes value that is not a map', { scopes: ['preset/x'] }],
      ['a scope that is not a map', { scopes: { 'preset/x': 'assistant' } }],
      ['a document that is not a map', ['web-search']],
    ])('%s', (_, doc) => {
      expect(jsonSchemaAccepts(doc)).toBe(false)
    })
  })

  describe('a section left empty (null)', () => {
    it('every kind: the seam reads it as an absent section, and the section schema takes it (fast-check over scope placement)', () => {
      for (const { ns, schema } of kinds) {
        expect(seamAccepts(schema, null), ns).toBe(seamAccepts(schema, undefined))
        expect(seamAccepts(schema, null, { quietHours: [22, 7] }), ns).toBe(true)
        expect(newAjv().compile(sectionJsonSchema(schema))(null), ns).toBe(true)
      }
      const resolvable = kinds.filter(({ schema }) => seamAccepts(schema, undefined)).map(({ ns }) => ns)
      expect(resolvable).toEqual(['web-search', 'assistant', 'menus', 'misc'])
      fc.assert(
        fc.property(fc.constantFrom(...resolvable), fc.option(scopeId, { nil: undefined }), (ns, scope) => {
          const doc = scope === undefined ? { [ns]: null } : { scopes: { [scope]: { [ns]: null } } }
          expect(seamAcceptsDocument(doc)).toBe(true)
          expect(jsonSchemaAccepts(doc), JSON.stringify(validateDocument.errors)).toBe(true)
        }),
        { numRuns: 50 },
      )
    })

    it('a schema with a required field: null passes as an absent section does, and the base supplies the field', () => {
      const endpoint = Schema.object({ host: Schema.string().required(), port: Schema.natural().default(80) })
      const validate = newAjv().compile(sectionJsonSchema(endpoint))
      expect(seamAccepts(endpoint, null, { host: 'example.org' })).toBe(true)
      expect(validate(null)).toBe(true)
      expect(validate({})).toBe(true)
      // Without a base neither an absent nor an empty section resolves: the seam refuses it at registration.
      expect(seamAccepts(endpoint, null)).toBe(false)
      expect(seamAccepts(endpoint, undefined)).toBe(false)
    })
  })

  describe('known gaps: rules the JSON Schema does not express, so it is looser than the seam', () => {
    it('a required field missing from a section passes: a lower layer may supply it', () => {
      const doc = { assistant: { providers: { openai: { apiKey: 'k' } } } }
      expect(seamAcceptsDocument(doc)).toBe(false)
      expect(jsonSchemaAccepts(doc)).toBe(true)
    })

    it('a fractional step is not checked; a transform’s own failure is not seen', () => {
      expect(seamAccepts(notifier, { volume: 0.123 })).toBe(false)
      expect(jsonSchemaAccepts({ notifier: { volume: 0.123 } })).toBe(true)
      expect(seamAccepts(misc, { filter: '(' })).toBe(false)
      expect(jsonSchemaAccepts({ misc: { filter: '(' } })).toBe(true)
    })
  })
})

// ---------------------------------------------------------------------------------------------
// The corpus: every published Config (dsh-testing/corpus), both directions on generated values.
// ---------------------------------------------------------------------------------------------

describe('JSON Schema and ajv over the corpus of published Configs', () => {
  const entries = corpusEntries()
  const counts = { accepted: 0, refused: 0 }

  it.each(entries.map((entry) => [entry.ns, entry] as const))('%s: valid draft 2020-12; what the seam takes passes, a type error it refuses fails', (_, entry) => {
    const schema = corpusSchema(entry)
    const section = sectionJsonSchema(schema)
    const ajv = newAjv()
    expect(ajv.validateSchema(section), JSON.stringify(ajv.errors)).toBe(true)
    const validate = newAjv().compile(section)
    for (const optional of [false, true]) {
      const sample = asJson(sampleSection(schema, { optional }).section)
      expect(seamAccepts(schema, sample)).toBe(true)
      expect(validate(sample), JSON.stringify(validate.errors)).toBe(true)
    }
    fc.assert(
      fc.property(entryValue(schema, 0).map(asJson), (value) => {
        if (!seamAccepts(schema, value)) return
        counts.accepted++
        expect(validate(value), JSON.stringify(validate.errors)).toBe(true)
      }),
      { numRuns: 40 },
    )
    const bad = badValue(schema, 0)
    if (!bad) return
    fc.assert(
      fc.property(bad.map(asJson), (value) => {
        if (seamAccepts(schema, value)) return
        counts.refused++
        expect(validate(value)).toBe(false)
      }),
      { numRuns: 40 },
    )
  })

  it('checked values in both directions across the corpus', () => {
    expect(counts.accepted).toBeGreaterThan(entries.length * 5)
    expect(counts.refused).toBeGreaterThan(entries.length)
  })
})
