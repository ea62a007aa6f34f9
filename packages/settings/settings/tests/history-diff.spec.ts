import Schema from 'schemastery'
import { describe, expect, it } from 'vitest'
import { diffDocuments, diffSection } from '../src/history-diff.ts'
import { createRedactor } from '../src/redact.ts'

const Schema1 = Schema.object({
  name: Schema.string(),
  nested: Schema.object({ token: Schema.string().role('secret'), port: Schema.number() }),
  keys: Schema.dict(Schema.string().role('secret')),
  list: Schema.array(Schema.number()),
})
const redactor = createRedactor(Schema1)

describe('diffSection', () => {
  it('gives plain fields with values and secrets as set, changed or unset without values', () => {
    const before = { name: 'a', nested: { token: 't1', port: 1 }, keys: { x: 'k1', y: 'k2' }, list: [1, 2] }
    const after = { name: 'b', nested: { token: 't2', port: 1 }, keys: { y: 'k2', z: 'k3' }, list: [1, 3] }
    const changes = diffSection(redactor, before, after)
    expect(changes).toEqual([
      { path: ['keys', 'x'], change: 'unset', secret: true },
      { path: ['keys', 'z'], change: 'set', secret: true },
      { path: ['list'], change: 'changed', before: [1, 2], after: [1, 3] },
      { path: ['name'], change: 'changed', before: 'a', after: 'b' },
      { path: ['nested', 'token'], change: 'changed', secret: true },
    ])
    const text = JSON.stringify(changes)
    for (const secret of ['t1', 't2', 'k1', 'k3']) expect(text).not.toContain(secret)
  })

  it('says nothing of a secret that did not change, and nothing at all for equal sections', () => {
    expect(diffSection(redactor, { nested: { token: 'same' } }, { nested: { token: 'same', port: 2 } })).toEqual([{ path: ['nested', 'port'], change: 'set', after: 2 }])
    expect(diffSection(redactor, { name: 'x' }, { name: 'x' })).toEqual([])
  })

  it('withholds every value of a section a version stores in a shape its schema refuses', () => {
    expect(diffSection(redactor, { keys: 'a-secret-in-the-wrong-place' }, { name: 'n' }, { withhold: true })).toEqual([{ path: [], change: 'changed', withheld: true }])
    expect(diffSection(redactor, undefined, { name: 'n' }, { withhold: true })).toEqual([{ path: [], change: 'set', withheld: true }])
  })
})

describe('diffDocuments', () => {
  it('walks global and scoped sections, and marks a section of an unregistered kind without fields', () => {
    const kind = { redactor, accepts: () => true }
    const diffs = diffDocuments(
      { demo: { name: 'a' }, other: { v: 1 }, scopes: { 'preset/x': { demo: { name: 'p' } } } },
      { demo: { name: 'a' }, other: { v: 2 }, scopes: { 'preset/x': { demo: { name: 'q' } } } },
      (ns) => (ns === 'demo' ? kind : undefined),
    )
    expect(diffs).toEqual([
      { ns: 'other', fields: [], unregistered: true },
      { ns: 'demo', scope: 'preset/x', fields: [{ path: ['name'], change: 'changed', before: 'p', after: 'q' }] },
    ])
  })
})
