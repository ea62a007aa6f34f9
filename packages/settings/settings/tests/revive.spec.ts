/**
 * Rebuilding a schema from a sanitized envelope, as a tool with no plugin
 * running does: nothing the envelope names is ever run (a planted callback
 * or builder stays text), and the rebuilt schema judges the corpus's sections
 * as the plugins' own schemas do.
 */
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { EnvelopeReviveError, reviveEnvelope } from '../src/revive.ts'
import { boot } from './harness.ts'

const accepts = (schema: (value: unknown) => unknown, value: unknown) => {
  try {
    schema(value)
    return true
  } catch {
    return false
  }
}

describe('reviveEnvelope', () => {
  it('never runs a callback or builder the envelope carries, whatever its text', () => {
    const marker = globalThis as { __revivedRan__?: number }
    marker.__revivedRan__ = 0
    const envelope = {
      uid: 4,
      refs: {
        1: { type: 'string', meta: {} },
        2: { type: 'transform', meta: {}, inner: 1, callback: '(x) => (globalThis.__revivedRan__++, x.length)' },
        3: { type: 'lazy', meta: {}, inner: 1, builder: '() => (globalThis.__revivedRan__++, null)' },
        4: { type: 'object', meta: { default: {} }, dict: { t: 2, l: 3 }, callback: '(globalThis.__revivedRan__++)' },
      },
    }
    const schema = reviveEnvelope(envelope)
    expect(schema({ t: 'abc', l: 'x' })).toEqual({ t: 'abc', l: 'x' })
    expect(accepts(schema, { t: 5 })).toBe(false)
    expect(marker.__revivedRan__).toBe(0)
    delete marker.__revivedRan__
  })

  it('opens code-only types to any value, for the plugin to judge when it runs', () => {
    const schema = Schema.object({ when: Schema.is(Date), handler: Schema.function(), n: Schema.natural().max(5).default(2) })
    const revived = reviveEnvelope(JSON.parse(JSON.stringify(schema.toJSON())))
    expect(revived({ when: 'text', handler: 1 })).toEqual({ when: 'text', handler: 1, n: 2 })
    expect(accepts(revived, { n: 9 })).toBe(false)
  })

  it('refuses what is not a well-formed envelope: no refs, a dangling reference, a wrapper cycle', () => {
    expect(() => reviveEnvelope({ refs: {} })).toThrow(EnvelopeReviveError)
    expect(() => reviveEnvelope({ uid: 1, refs: { 1: { type: 'object', meta: {}, dict: { a: 9 } } } })).toThrow(/does not hold/)
    expect(() => reviveEnvelope({ uid: 1, refs: { 1: { type: 'lazy', meta: {}, inner: 2 }, 2: { type: 'transform', meta: {}, inner: 1 } } })).toThrow(/in itself/)
    expect(() => reviveEnvelope({ uid: 1, refs: { x: { type: 'string' } } })).toThrow(EnvelopeReviveError)
  })

  it('judges every corpus section as the plugin’s own schema does, from the envelope a redacted describe gives', async () => {
    const harness = await boot()
    try {
      let judged = 0
      for (const entry of corpusEntries()) {
        const schema = corpusSchema(entry)
        const { fiber } = await harness.mount((ctx) => {
          try {
            ctx.settings.register(entry.ns, schema)
          } catch {
            // A Config that waits for setup is still described, which is all this needs.
          }
        })
        const [view] = harness.provider.describe({ ns: entry.ns, redactSecrets: true })
        const revived = reviveEnvelope(view!.schema)
        for (const section of [sampleSection(schema).section, sampleSection(schema, { optional: true }).section, {}]) {
          expect(accepts(revived, section), entry.ns).toBe(accepts(schema, section))
          judged++
        }
        await fiber.dispose()
      }
      expect(judged).toBeGreaterThan(100)
    } finally {
      await harness.dispose()
    }
  })
})
