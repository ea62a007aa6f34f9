import { afterEach, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { buildForm, fieldAt, flatten, type Field, type FormModel } from '../../src/model/index.ts'
import { deploy, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

async function formOf(schema: Schema, options: Parameters<typeof deploy>[1] = {}, scope?: string): Promise<FormModel> {
  current = await deploy(schema, options)
  return current.form(scope)
}

const at = (model: FormModel, ...path: string[]): Field => {
  const field = fieldAt(model, path)
  if (!field) throw new Error(`no field at ${path.join('.')}`)
  return field
}

describe('buildForm: leaves', () => {
  it('maps strings by role, with descriptions, defaults as placeholders and patterns', async () => {
    const model = await formOf(Schema.object({
      name: Schema.string().description('Display name').default('anon').min(1).max(20),
      bio: Schema.string().role('textarea'),
      home: Schema.string().role('link').pattern(/^https:/i).required(),
      // `description()` takes only a string; a locale dict is what `i18n` leaves in meta.
      i18n: Schema.string().extra('description', { '': 'Default text', zh: '文本' }),
    }).description('Demo section'), { document: { demo: { home: 'https://example.org' } } })
    expect(model.root).toMatchObject({ kind: 'object', label: 'demo', description: 'Demo section', path: [] })
    expect(at(model, 'name')).toMatchObject({ kind: 'string', label: 'name', description: 'Display name', default: 'anon', min: 1, max: 20, required: false, value: 'anon' })
    expect(at(model, 'bio').kind).toBe('textarea')
    expect(at(model, 'home')).toMatchObject({ kind: 'link', required: true, pattern: { source: '^https:', flags: 'i' } })
    expect(at(model, 'i18n').description).toBe('Default text')
  })

  it('maps number, natural and percent, with a slider where the schema says so', async () => {
    const model = await formOf(Schema.object({
      n: Schema.number().min(-1).max(9),
      count: Schema.natural().default(3),
      // schemastery's percent already carries role('slider').
      ratio: Schema.percent().default(0.5),
    }))
    expect(at(model, 'n')).toMatchObject({ kind: 'number', min: -1, max: 9 })
    expect(at(model, 'count')).toMatchObject({ kind: 'number', min: 0, step: 1, default: 3, value: 3 })
    expect(at(model, 'ratio')).toMatchObject({ kind: 'slider', min: 0, max: 1, step: 0.01, default: 0.5 })
  })

  it('maps boolean, const and a union of constants to a select', async () => {
    const model = await formOf(Schema.object({
      on: Schema.boolean().default(true),
      fixed: Schema.const('v1'),
      engine: Schema.union([Schema.const('google').description('Google'), 'bing', 3]).default('bing'),
    }))
    expect(at(model, 'on')).toMatchObject({ kind: 'boolean', default: true, value: true })
    expect(at(model, 'fixed')).toMatchObject({ kind: 'const', constant: 'v1' })
    expect(at(model, 'engine')).toMatchObject({
      kind: 'select',
      default: 'bing',
      options: [{ value: 'google', label: 'Google' }, { value: 'bing', label: 'bing' }, { value: 3, label: '3' }],
    })
  })

  it('edits any value as JSON and offers each form of a union of values', async () => {
    const model = await formOf(Schema.object({ anything: Schema.any(), either: Schema.union([Schema.string(), Schema.number()]).default(3) }))
    expect(at(model, 'anything')).toMatchObject({ kind: 'json' })
    expect(at(model, 'either')).toMatchObject({ kind: 'union', variant: 1 })
    expect(at(model, 'either').variants!.map((v) => [v.label, v.field.kind])).toEqual([['text', 'string'], ['number', 'number']])
  })
})

describe('buildForm: containers', () => {
  const schema = () => Schema.object({
    labels: Schema.dict(Schema.string()),
    tags: Schema.array(Schema.string()).default(['a']),
    pair: Schema.tuple([Schema.string(), Schema.natural()]),
    nested: Schema.object({ deep: Schema.array(Schema.object({ name: Schema.string(), weight: Schema.percent() })) }),
    merged: Schema.intersect([Schema.object({ a: Schema.string() }), Schema.object({ b: Schema.boolean() })]),
    trimmed: Schema.transform(Schema.string().description('Trimmed'), (s) => s.trim()),
  })

  it('builds children for dict entries, array items and tuple positions from the resolved value', async () => {
    const model = await formOf(schema(), { document: { demo: { labels: { x: 'X', y: 'Y' }, pair: ['p', 2], nested: { deep: [{ name: 'n', weight: 0.2 }] } } } })
    expect(at(model, 'labels')).toMatchObject({ kind: 'dict', overridden: true })
    expect(at(model, 'labels').children!.map((c) => c.path)).toEqual([['labels', 'x'], ['labels', 'y']])
    expect(at(model, 'labels').item).toMatchObject({ kind: 'string', path: ['labels', ''] })
    expect(at(model, 'tags')).toMatchObject({ kind: 'array', reorderable: true, overridden: false, value: ['a'], default: ['a'] })
    expect(at(model, 'tags').item!.path).toEqual(['tags', '1'])
    expect(at(model, 'pair').children!.map((c) => c.kind)).toEqual(['string', 'number'])
    expect(at(model, 'nested', 'deep', '0', 'weight')).toMatchObject({ kind: 'slider', value: 0.2, overridden: true })
    expect(at(model, 'merged').children!.map((c) => [c.label, c.kind])).toEqual([['a', 'string'], ['b', 'boolean']])
    expect(at(model, 'trimmed')).toMatchObject({ kind: 'string', description: 'Trimmed' })
  })

  it('follows a lazy recursive schema only as far as the data goes', async () => {
    // schemastery can serialize recursion only through a lazy root, so the section itself is the tree.
    const tree: Schema<any> = Schema.lazy(() => Schema.object({ name: Schema.string(), children: Schema.array(tree) }))
    const model = await formOf(tree, { document: { demo: { name: 'a', children: [{ name: 'b' }] } } })
    expect(at(model, 'children', '0', 'name').value).toBe('b')
    expect(at(model, 'children', '0', 'children')).toMatchObject({ kind: 'array', value: [] })
    expect(at(model, 'children', '0', 'children').item).toMatchObject({ kind: 'unsupported', reason: expect.stringContaining('recursive') })
  })
})

describe('buildForm: secrets and layers', () => {
  const schema = () => Schema.object({
    token: Schema.string().role('secret'),
    keys: Schema.dict(Schema.object({ label: Schema.string(), key: Schema.string().role('secret') })),
    list: Schema.array(Schema.object({ url: Schema.string(), auth: Schema.string().role('secret') })),
    plain: Schema.string(),
  })

  it('shows secrets as set/layer slots with no value anywhere in the form', async () => {
    const model = await formOf(schema(), {
      document: { demo: { keys: { a: { label: 'A', key: 'sk-dict' } }, list: [{ url: 'u', auth: 'sk-list' }] } },
      register: { base: { token: 'sk-base' } },
    })
    expect(at(model, 'token')).toMatchObject({ kind: 'secret', secret: { set: true, layer: 'base' } })
    expect(at(model, 'keys', 'a', 'key').secret).toEqual({ set: true, layer: 'global', source: 'document' })
    expect(at(model, 'list', '0', 'auth').secret).toEqual({ set: true, layer: 'global', source: 'document' })
    expect(at(model, 'list')).toMatchObject({ reorderable: false })
    expect(at(model, 'list').item!.children!.find((c) => c.label === 'auth')!.secret).toEqual({ set: false })
    expect(JSON.stringify(flatten(model.root))).not.toMatch(/sk-/)
    expect(JSON.stringify(model.view)).not.toMatch(/sk-/)
  })

  it('marks overridden fields and shows inherited values in a named scope', async () => {
    current = await deploy(schema(), { scope: 'preset/coder', document: { demo: { plain: 'global' }, scopes: { 'preset/coder': { demo: { plain: 'mine', token: 'sk-scope' } } } } })
    const model = current.form('preset/coder')
    expect(model.scope).toBe('preset/coder')
    expect(at(model, 'plain')).toMatchObject({ overridden: true, value: 'mine', inherited: 'global' })
    expect(at(model, 'token').secret).toEqual({ set: true, layer: 'scope', source: 'document' })
    expect(at(model, 'keys')).toMatchObject({ overridden: false })
    const global = current.form()
    expect(at(global, 'plain')).toMatchObject({ overridden: true, value: 'global' })
    expect(at(global, 'plain').inherited).toBeUndefined()
  })

  it('carries the revision, applies and registration of the view', async () => {
    const model = await formOf(schema(), { register: { applies: 'restart' } })
    expect(model).toMatchObject({ ns: 'demo', applies: 'restart', registered: true, revision: expect.any(Number) })
  })
})

describe('buildForm: untrusted envelopes', () => {
  const view = (schema: unknown) => ({ ns: 'x', schema, value: {}, revision: 1, registered: true, applies: 'live', secrets: [] }) as never

  it('tolerates garbage, dangling references, wrapper cycles and unknown types', () => {
    expect(buildForm(view(null)).root.kind).toBe('unsupported')
    expect(buildForm(view({ uid: 1, refs: { 1: { type: 'object', dict: { a: 9, b: 2, c: 3 } }, 2: { type: 'lazy', inner: 2 }, 3: { type: 'warp' } } })).root.children!.map((c) => c.kind))
      .toEqual(['unsupported', 'unsupported', 'unsupported'])
  })

  it('never revives the envelope: transform source in it is inert data', () => {
    const hostile = { uid: 1, refs: { 1: { type: 'transform', inner: 2, callback: '() => { globalThis.pwned = true }' }, 2: { type: 'string', meta: {} } } }
    expect(buildForm(view(hostile)).root.kind).toBe('string')
    expect((globalThis as { pwned?: boolean }).pwned).toBeUndefined()
  })
})
