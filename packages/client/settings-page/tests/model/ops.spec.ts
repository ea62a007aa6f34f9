import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { planEdit, type Edit, type EditPlan } from '../../src/model/index.ts'
import { deploy, NS, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

const secret = () => Schema.string().role('secret')
const schema = () => Schema.object({
  name: Schema.string(),
  token: secret(),
  keys: Schema.dict(Schema.object({ label: Schema.string(), key: secret() })),
  plain: Schema.dict(Schema.string()),
  servers: Schema.array(Schema.object({ url: Schema.string(), auth: secret() })),
  tags: Schema.array(Schema.string()).default(['base']),
  pair: Schema.tuple([Schema.string(), Schema.number()]),
})

const stored = {
  name: 'n',
  token: 'sk-top',
  keys: { a: { label: 'A', key: 'sk-a' }, b: { label: 'B' } },
  plain: { x: 'X' },
  servers: [{ url: 'u0', auth: 'sk-0' }, { url: 'u1', auth: 'sk-1' }],
  pair: ['p', 1],
}

/** Plan `edit` against the described view and send it through the real service. */
async function apply(edit: Edit, scope?: string): Promise<EditPlan> {
  const model = current!.form(scope)
  const plan = planEdit(model, edit)
  if (plan.kind === 'mutate') await current!.settings.mutate(NS, plan.ops, model.revision, scope)
  if (plan.kind === 'replace') await current!.settings.replace(NS, plan.section, model.revision, scope)
  return plan
}

const section = () => current!.provider.document()[NS] as Record<string, unknown>

describe('planEdit: ops for mutate', () => {
  it('sets and resets a leaf without restating anything else', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    expect(await apply({ type: 'set', path: ['name'], value: 'm' })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['name'], value: 'm' }] })
    expect(section()).toEqual({ ...stored, name: 'm' })
    expect(await apply({ type: 'unset', path: ['name'] })).toEqual({ kind: 'mutate', ops: [{ op: 'unset', path: ['name'] }] })
    expect(section()).toEqual({ ...stored, name: undefined })
  })

  it('replaces and clears a secret, and refuses to treat other fields as secrets', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    await apply({ type: 'replace-secret', path: ['keys', 'b', 'key'], value: 'sk-b' })
    expect(section().keys).toEqual({ a: { label: 'A', key: 'sk-a' }, b: { label: 'B', key: 'sk-b' } })
    await apply({ type: 'clear-secret', path: ['token'] })
    expect(section().token).toBeUndefined()
    expect(current.form().root.children!.find((c) => c.label === 'token')!.secret).toEqual({ set: false })
    expect(await apply({ type: 'replace-secret', path: ['name'], value: 'x' })).toMatchObject({ kind: 'refused' })
  })

  it('adds, renames and removes dict keys, keeping secrets it never saw', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    await apply({ type: 'dict-add', path: ['keys'], key: 'c', value: { label: 'C' } })
    expect(await apply({ type: 'dict-rename', path: ['plain'], from: 'x', to: 'y' })).toEqual({
      kind: 'mutate',
      ops: [{ op: 'set', path: ['plain', 'y'], value: 'X' }, { op: 'unset', path: ['plain', 'x'] }],
    })
    await apply({ type: 'dict-rename', path: ['keys'], from: 'b', to: 'bb' })
    expect(await apply({ type: 'dict-rename', path: ['keys'], from: 'a', to: 'aa' })).toMatchObject({ kind: 'refused', reason: expect.stringContaining('secret') })
    expect(await apply({ type: 'dict-add', path: ['keys'], key: 'a', value: {} })).toMatchObject({ kind: 'refused' })
    await apply({ type: 'dict-remove', path: ['keys'], key: 'c' })
    expect(section().keys).toEqual({ a: { label: 'A', key: 'sk-a' }, bb: { label: 'B' } })
    expect(section().plain).toEqual({ y: 'X' })
  })

  it('adds, edits and removes array items by index, keeping their secrets, but never reorders them', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    expect(await apply({ type: 'array-add', path: ['servers'], value: { url: 'u2' } })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['servers', '2'], value: { url: 'u2' } }] })
    expect(await apply({ type: 'array-edit', path: ['servers'], index: 1, at: ['url'], value: 'U1' })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['servers', '1', 'url'], value: 'U1' }] })
    await apply({ type: 'replace-secret', path: ['servers', '2', 'auth'], value: 'sk-2' })
    expect(await apply({ type: 'array-remove', path: ['servers'], index: 0 })).toEqual({ kind: 'mutate', ops: [{ op: 'unset', path: ['servers', '0'] }] })
    expect(section().servers).toEqual([{ url: 'U1', auth: 'sk-1' }, { url: 'u2', auth: 'sk-2' }])
    expect(await apply({ type: 'array-reorder', path: ['servers'], order: [1, 0] })).toMatchObject({ kind: 'refused', reason: expect.stringContaining('secret') })
    expect(await apply({ type: 'array-remove', path: ['servers'], index: 5 })).toMatchObject({ kind: 'refused' })
  })

  it('reorders a secret-free array with one set, and writes an inherited array whole', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    // `tags` only has its schema default, so an element op would create an object; the whole list is sent.
    expect(await apply({ type: 'array-add', path: ['tags'], value: 'two' })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['tags'], value: ['base', 'two'] }] })
    expect(await apply({ type: 'array-reorder', path: ['tags'], order: [1, 0] })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['tags'], value: ['two', 'base'] }] })
    expect(await apply({ type: 'array-reorder', path: ['tags'], order: [0, 0] })).toMatchObject({ kind: 'refused' })
    expect(section().tags).toEqual(['two', 'base'])
  })

  it('sets a tuple position and refuses a position the tuple lacks', async () => {
    current = await deploy(schema(), { document: { demo: stored } })
    expect(await apply({ type: 'tuple-set', path: ['pair'], index: 1, value: 7 })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['pair', '1'], value: 7 }] })
    expect(section().pair).toEqual(['p', 7])
    expect(await apply({ type: 'tuple-set', path: ['pair'], index: 2, value: 7 })).toMatchObject({ kind: 'refused' })
  })

  it('refuses a set that would overwrite secrets under it, and edits that restate inherited secrets', async () => {
    current = await deploy(schema(), { scope: 'preset/coder', document: { demo: stored } })
    expect(await apply({ type: 'set', path: ['keys'], value: {} })).toMatchObject({ kind: 'refused' })
    // In the scope, `servers` is inherited from the global section and holds secrets the page cannot restate.
    expect(await apply({ type: 'array-add', path: ['servers'], value: { url: 'x' } }, 'preset/coder')).toMatchObject({ kind: 'refused' })
    expect(section()).toEqual(stored)
  })
})

describe('planEdit: layers in a named scope', () => {
  it('resets one field to the inherited value, then the whole section with replace({})', async () => {
    current = await deploy(schema(), { scope: 'preset/coder', document: { demo: stored, scopes: { 'preset/coder': { demo: { name: 'scoped', token: 'sk-scope' } } } } })
    const scope = 'preset/coder'
    await apply({ type: 'set', path: ['plain', 'z'], value: 'Z' }, scope)
    const stored2 = () => current!.provider.document().scopes!['preset/coder']![NS]
    expect(stored2()).toEqual({ name: 'scoped', token: 'sk-scope', plain: { z: 'Z' } })
    await apply({ type: 'unset', path: ['name'] }, scope)
    const field = current.form(scope).root.children!.find((c) => c.label === 'name')!
    expect(field).toMatchObject({ overridden: false, value: 'n', inherited: 'n' })
    expect(await apply({ type: 'reset-section' }, scope)).toEqual({ kind: 'replace', section: {} })
    expect(stored2()).toEqual({})
    expect(section()).toEqual(stored)
  })
})
