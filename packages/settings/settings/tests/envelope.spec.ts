import { describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { canonicalEnvelope, envelopeOf, sanitizeEnvelope, type SchemaEnvelope } from '../src/envelope.ts'
import { createRedactor } from '../src/redact.ts'
import type { SettingsSchema } from '../src/types.ts'
import { boot } from './harness.ts'

const secret = () => Schema.string().role('secret')

function sanitized(schema: SettingsSchema<any>): SchemaEnvelope {
  return sanitizeEnvelope(envelopeOf(schema), schema, createRedactor(schema))
}

/** The node reached from the root of an envelope by following object property names. */
function nodeAt(envelope: SchemaEnvelope, ...keys: string[]): Record<string, unknown> {
  let node = envelope.refs[envelope.uid]!
  for (const key of keys) node = envelope.refs[(node.dict as Record<string, number>)[key]!]!
  return node
}

function buildProfile() {
  return Schema.object({
    name: Schema.string().default('anon'),
    token: secret(),
    limits: Schema.dict(Schema.number()),
    mode: Schema.union(['fast', 'slow']).default('fast'),
    tags: Schema.array(Schema.string()),
  })
}

describe('envelopeOf', () => {
  it('returns the schema as a plain JSON envelope whose root node is refs[uid]', () => {
    const schema = buildProfile()
    const envelope = envelopeOf(schema)
    expect(envelope.uid).toBe(schema.uid)
    expect(envelope.refs[envelope.uid]).toMatchObject({ type: 'object' })
    expect(JSON.parse(JSON.stringify(envelope))).toEqual(envelope)
  })

  it('holds every node a reference names', () => {
    const envelope = envelopeOf(buildProfile())
    const root = envelope.refs[envelope.uid]!
    for (const uid of Object.values(root.dict as Record<string, number>)) expect(envelope.refs[uid]).toBeDefined()
    expect(nodeAt(envelope, 'token')).toMatchObject({ type: 'string', meta: { role: 'secret' } })
    expect(nodeAt(envelope, 'name')).toMatchObject({ type: 'string', meta: { default: 'anon' } })
  })

  it('returns a fresh object on every call', () => {
    const schema = buildProfile()
    const first = envelopeOf(schema)
    first.refs[first.uid]!.type = 'changed'
    expect(envelopeOf(schema).refs[schema.uid]!.type).toBe('object')
  })
})

describe('canonicalEnvelope', () => {
  it('gives two separately built identical schemas the same text although their uids differ', () => {
    const first = envelopeOf(buildProfile())
    const second = envelopeOf(buildProfile())
    expect(first.uid).not.toBe(second.uid)
    expect(Object.keys(first.refs)).not.toEqual(Object.keys(second.refs))
    expect(canonicalEnvelope(first)).toBe(canonicalEnvelope(second))
  })

  it('gives structurally different schemas different texts', () => {
    const base = canonicalEnvelope(envelopeOf(Schema.object({ a: Schema.string(), b: Schema.number() })))
    const variants = [
      Schema.object({ a: Schema.string(), b: Schema.string() }),
      Schema.object({ a: Schema.string(), c: Schema.number() }),
      Schema.object({ a: Schema.string(), b: Schema.number(), c: Schema.number() }),
      Schema.object({ a: Schema.string().role('secret'), b: Schema.number() }),
      Schema.object({ a: Schema.string().default('x'), b: Schema.number() }),
      Schema.object({ a: Schema.string(), b: Schema.number().required() }),
      Schema.object({ a: Schema.array(Schema.string()), b: Schema.number() }),
    ]
    const texts = variants.map((schema) => canonicalEnvelope(envelopeOf(schema)))
    for (const text of texts) expect(text).not.toBe(base)
    expect(new Set(texts).size).toBe(texts.length)
  })

  it('terminates on a recursive lazy schema and is stable across builds', () => {
    const build = () => {
      const node: Schema<any> = Schema.lazy(() => Schema.object({ name: Schema.string(), children: Schema.array(node) }))
      return node
    }
    const first = canonicalEnvelope(envelopeOf(build()))
    const second = canonicalEnvelope(envelopeOf(build()))
    expect(typeof first).toBe('string')
    expect(first).toBe(second)
    const flat = canonicalEnvelope(envelopeOf(Schema.object({ name: Schema.string(), children: Schema.array(Schema.any()) })))
    expect(first).not.toBe(flat)
  })

  it('terminates on an envelope whose references form a cycle', () => {
    const cyclic: SchemaEnvelope = {
      uid: 10,
      refs: {
        10: { type: 'object', meta: {}, dict: { self: 11 } },
        11: { type: 'array', meta: {}, inner: 10 },
      },
    }
    const renumbered: SchemaEnvelope = {
      uid: 3,
      refs: {
        3: { type: 'object', meta: {}, dict: { self: 7 } },
        7: { type: 'array', meta: {}, inner: 3 },
      },
    }
    expect(canonicalEnvelope(cyclic)).toBe(canonicalEnvelope(renumbered))
  })

  it('does not depend on the key order inside a node', () => {
    const envelope = envelopeOf(Schema.object({ a: Schema.string().default('x') }))
    const reordered: SchemaEnvelope = {
      uid: envelope.uid,
      refs: Object.fromEntries(
        Object.entries(envelope.refs).map(([uid, node]) => [uid, Object.fromEntries(Object.entries(node).reverse())]),
      ),
    }
    expect(canonicalEnvelope(reordered)).toBe(canonicalEnvelope(envelope))
  })
})

describe('sanitizeEnvelope', () => {
  it('removes the default of a secret node', () => {
    const schema = Schema.object({ token: secret().default('sk-DEFAULT-1') })
    const envelope = sanitized(schema)
    expect(nodeAt(envelope, 'token').meta).toEqual({ role: 'secret' })
    expect(JSON.stringify(envelope)).not.toContain('sk-DEFAULT-1')
  })

  it('removes the constant of a secret const node', () => {
    const schema = Schema.object({ pin: Schema.const('sk-CONST-1').role('secret') })
    expect(JSON.stringify(envelopeOf(schema))).toContain('sk-CONST-1')
    expect(JSON.stringify(sanitized(schema))).not.toContain('sk-CONST-1')
  })

  it('redacts a parent object default that contains a secret and keeps its other fields', () => {
    const schema = Schema.object({
      conn: Schema.object({ host: Schema.string(), password: secret() }).default({ host: 'db.local', password: 'sk-PARENT-1' }),
    })
    const envelope = sanitized(schema)
    expect(nodeAt(envelope, 'conn').meta).toMatchObject({ default: { host: 'db.local' } })
    expect(JSON.stringify(envelope)).not.toContain('sk-PARENT-1')
  })

  it('redacts secrets inside defaults of dicts, arrays, unions and transforms', () => {
    const schema = Schema.object({
      keys: Schema.dict(secret()).default({ a: 'sk-DICT-1' }),
      list: Schema.array(secret()).default(['sk-ARRAY-1']),
      auth: Schema.union([
        Schema.object({ kind: Schema.const('key').required(), key: secret() }),
        Schema.object({ kind: Schema.const('none').required() }),
      ]).default({ kind: 'key', key: 'sk-UNION-1' }),
      wrapped: Schema.transform(Schema.object({ key: secret() }), (value) => value).default({ key: 'sk-TRANSFORM-1' }),
    })
    const text = JSON.stringify(sanitized(schema))
    for (const leak of ['sk-DICT-1', 'sk-ARRAY-1', 'sk-UNION-1', 'sk-TRANSFORM-1']) expect(text).not.toContain(leak)
    expect(nodeAt(sanitized(schema), 'auth').meta).toMatchObject({ default: { kind: 'key' } })
  })

  it('redacts the secrets in the default of a recursive lazy schema', () => {
    const node: Schema<any> = Schema.lazy(() =>
      Schema.object({ children: Schema.array(node), token: secret() }).default({
        children: [{ children: [], token: 'sk-LAZY-CHILD' }],
        token: 'sk-LAZY-ROOT',
      }),
    )
    const text = JSON.stringify(sanitized(node))
    expect(text).not.toContain('sk-LAZY-ROOT')
    expect(text).not.toContain('sk-LAZY-CHILD')
  })

  it('never carries transform callback source text', () => {
    const schema = Schema.object({
      shout: Schema.transform(Schema.string(), (value) => value.toUpperCase() + 'CALLBACK_MARKER_TEXT'),
    })
    expect(JSON.stringify(envelopeOf(schema))).toContain('CALLBACK_MARKER_TEXT')
    const envelope = sanitized(schema)
    expect(JSON.stringify(envelope)).not.toContain('CALLBACK_MARKER_TEXT')
    expect(nodeAt(envelope, 'shout')).not.toHaveProperty('callback')
    expect(nodeAt(envelope, 'shout')).toMatchObject({ type: 'transform' })
  })

  it('keeps non-secret defaults and the shape of every node', () => {
    const schema = Schema.object({
      name: Schema.string().default('anon'),
      size: Schema.number().default(12).min(1),
      mode: Schema.union(['fast', 'slow']).default('slow'),
      flags: Schema.array(Schema.string()).default(['a', 'b']),
      token: secret(),
    })
    const raw = envelopeOf(schema)
    const envelope = sanitized(schema)
    expect(nodeAt(envelope, 'name').meta).toEqual({ default: 'anon' })
    expect(nodeAt(envelope, 'size').meta).toEqual({ default: 12, min: 1 })
    expect(nodeAt(envelope, 'mode').meta).toEqual({ default: 'slow' })
    expect(nodeAt(envelope, 'flags').meta).toEqual({ default: ['a', 'b'] })
    expect(envelope.uid).toBe(raw.uid)
    expect(Object.keys(envelope.refs).sort()).toEqual(Object.keys(raw.refs).sort())
    expect(canonicalEnvelope(envelope)).toBe(canonicalEnvelope(raw))
  })

  it('leaves the envelope it was given untouched', () => {
    const schema = Schema.object({ token: secret().default('sk-KEEP-1'), shout: Schema.transform(Schema.string(), (value) => value + 'CALLBACK_KEEP') })
    const raw = envelopeOf(schema)
    const before = JSON.stringify(raw)
    sanitizeEnvelope(raw, schema, createRedactor(schema))
    expect(JSON.stringify(raw)).toBe(before)
  })

  it('produces an envelope that schemastery revives without callbacks', () => {
    const schema = Schema.object({ token: secret().default('sk-REVIVE-1'), name: Schema.string().default('n') })
    const revived = Schema(sanitized(schema) as never) as Schema<any>
    expect(revived({})).toEqual({ name: 'n' })
  })
})

describe('a schema schemastery cannot serialize', () => {
  it('refuses that registration with a clear TypeError and leaves later registrations working', async () => {
    const h = await boot()
    try {
      const Tree: Schema<any> = Schema.object({ name: Schema.string(), children: Schema.array(Schema.lazy(() => Tree)).default([]) })
      await expect(h.mount((ctx) => ctx.settings.register('menu', Schema.object({ tree: Tree })))).rejects.toThrow(/cannot be serialized/)
      expect((globalThis as { __schemastery_refs__?: unknown }).__schemastery_refs__).toBeUndefined()
      const { value } = await h.mount((ctx) => ctx.settings.register('after', Schema.object({ n: Schema.natural().default(1) })))
      expect(value.get()).toEqual({ n: 1 })
    } finally {
      await h.dispose()
    }
  })
})
