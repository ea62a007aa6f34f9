/**
 * The field kinds published plugins need beyond plain values, one by one:
 * unions of objects told apart by a constant, intersections spread over their
 * unions, unions of a value and an object, bitsets, any, code-only values,
 * tables, folded groups, hidden fields, and descriptions per locale.
 */
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { blankValue, buildForm, everyField, fieldAt, planEdit, type Field, type FormModel } from '../../src/model/index.ts'
import { deploy, NS, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

async function formOf(schema: Schema, document: Record<string, unknown> = {}): Promise<FormModel> {
  current = await deploy(schema, { document: { [NS]: document } })
  return current.form()
}

const at = (model: FormModel, ...path: string[]): Field => fieldAt(model, path)!

describe('form kinds of published plugins', () => {
  const Adapter = Schema.intersect([
    Schema.object({ selfId: Schema.string().default('me'), token: Schema.string().role('secret') }),
    Schema.union([
      Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().role('link').default('http://127.0.0.1') }),
      Schema.object({ protocol: Schema.const('ws').required(), port: Schema.natural().default(8080) }),
    ]),
  ])

  it('spreads an intersection over its union: one form per branch, the base’s fields in each, told apart by the constant', async () => {
    const model = await formOf(Adapter, { protocol: 'ws', token: 'tok-1' })
    expect(model.root).toMatchObject({ kind: 'union', discriminator: 'protocol', variant: 1 })
    expect(model.root.variants!.map((v) => v.label)).toEqual(['http', 'ws'])
    expect(model.root.variants!.map((v) => v.field.children!.map((c) => c.path[0]))).toEqual([
      ['selfId', 'token', 'protocol', 'endpoint'],
      ['selfId', 'token', 'protocol', 'port'],
    ])
    // The chosen form's fields are the union's own: paths reach through it.
    expect(at(model, 'port')).toMatchObject({ kind: 'number', value: 8080 })
    expect(at(model, 'token')).toMatchObject({ kind: 'secret', secret: { set: true, layer: 'global' } })
  })

  it('switches forms sending only what differs: the new tag, nothing for shared fields or secrets', async () => {
    const model = await formOf(Adapter, { protocol: 'ws', token: 'tok-1', port: 9000, selfId: 'bot' })
    const plan = planEdit(model, { type: 'choose-variant', path: [], index: 0 })
    expect(plan).toEqual({ kind: 'mutate', ops: [{ op: 'unset', path: ['port'] }, { op: 'set', path: ['protocol'], value: 'http' }] })
    if (plan.kind === 'mutate') await current!.settings.mutate(NS, plan.ops, model.revision)
    const after = current!.form()
    expect(after.root.variant).toBe(0)
    expect(after.view.user).toEqual({ protocol: 'http', selfId: 'bot' })
    expect(after.view.secrets).toContainEqual({ path: ['token'], set: true, layer: 'global', source: 'document' })
  })

  it('offers both forms of a union of a value and an object, leaving hidden branches out', async () => {
    const level = Schema.union([
      Schema.const(undefined).description('nothing'),
      Schema.const(true).description('accept'),
      Schema.natural().description('level'),
      Schema.object({ $switch: Schema.any() }).hidden(),
      Schema.function().hidden(),
    ])
    const model = await formOf(Schema.object({ onRequest: level }), { onRequest: 3 })
    const field = at(model, 'onRequest')
    expect(field.variants!.map((v) => [v.label, v.field.kind])).toEqual([['nothing', 'const'], ['accept', 'const'], ['level', 'number']])
    expect(field.variant).toBe(2)
    expect(planEdit(model, { type: 'choose-variant', path: ['onRequest'], index: 1 })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['onRequest'], value: true }] })
    expect(planEdit(model, { type: 'choose-variant', path: ['onRequest'], index: 0 })).toEqual({ kind: 'mutate', ops: [{ op: 'unset', path: ['onRequest'] }] })
  })

  it('renders bitsets as flags, any as JSON, functions and class values as read-only with the reason', async () => {
    const model = await formOf(
      Schema.object({
        intents: Schema.bitset({ GUILDS: 1, MESSAGES: 2, REACTIONS: 4 }).default(3),
        extra: Schema.any(),
        handler: Schema.function(),
        when: Schema.is(Date),
      }),
    )
    expect(at(model, 'intents')).toMatchObject({ kind: 'bitset', value: 3, options: [{ label: 'GUILDS', value: 1 }, { label: 'MESSAGES', value: 2 }, { label: 'REACTIONS', value: 4 }] })
    expect(at(model, 'extra').kind).toBe('json')
    expect(at(model, 'handler')).toMatchObject({ kind: 'readonly', reason: expect.stringContaining('function') })
    expect(at(model, 'when')).toMatchObject({ kind: 'readonly', reason: expect.stringContaining('class') })
    expect(everyField(model.root).filter((f) => f.kind === 'unsupported')).toEqual([])
    expect(planEdit(model, { type: 'set', path: ['intents'], value: 5 })).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['intents'], value: 5 }] })
  })

  it('marks tables, folded groups and hidden fields; a dict of objects gets a blank with its constants and required values', async () => {
    const model = await formOf(
      Schema.object({
        headers: Schema.dict(Schema.string()).role('table'),
        advanced: Schema.object({ retries: Schema.natural().default(3) }).collapse(),
        internal: Schema.string().hidden(),
        bots: Schema.dict(Schema.object({ kind: Schema.const('bot').required(), name: Schema.string().required(), level: Schema.natural().default(1) })),
      }),
    )
    expect(at(model, 'headers')).toMatchObject({ kind: 'dict', layout: 'table' })
    expect(at(model, 'advanced')).toMatchObject({ kind: 'object', collapsed: true })
    expect(at(model, 'internal').hidden).toBe(true)
    expect(blankValue(at(model, 'bots').item!)).toEqual({ kind: 'bot', name: '' })
  })

  it('picks descriptions for the reader: zh-CN → zh → en-US → en → untagged → first', async () => {
    const schema = Schema.object({
      both: Schema.string().description({ 'zh-CN': '中文', 'en-US': 'English' } as never),
      chineseOnly: Schema.string().description({ zh: '只有中文' } as never),
      untagged: Schema.string().description({ '': 'plain', fr: 'français' } as never),
      other: Schema.string().description({ fr: 'français' } as never),
    })
    current = await deploy(schema)
    const view = current.view()
    const text = (locale: string) => Object.fromEntries(buildForm(view, { locale }).root.children!.map((f) => [f.path[0], f.description]))
    expect(text('zh-CN')).toEqual({ both: '中文', chineseOnly: '只有中文', untagged: 'plain', other: 'français' })
    expect(text('zh-TW')).toEqual({ both: 'English', chineseOnly: '只有中文', untagged: 'plain', other: 'français' })
    expect(text('en-US')).toEqual({ both: 'English', chineseOnly: '只有中文', untagged: 'plain', other: 'français' })
    // The view keeps every locale: the envelope is not cut down to one.
    expect(JSON.stringify(view.schema)).toContain('中文')
    expect(JSON.stringify(view.schema)).toContain('English')
  })
})
