/**
 * The form model over every published Config of the corpus (dsh-testing/corpus):
 * every field gets an editor (none `unsupported`, no plugin reduced to a stub),
 * one field of each plugin is edited through `planEdit` and the real seam, and
 * descriptions follow the reader's locale.
 */
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { afterEach, describe, expect, it } from 'vitest'
import { blankValue, buildForm, everyField, getAt, hasAt, planEdit } from '../../src/model/index.ts'
import { someEdit } from './corpus-edits.ts'
import { deploy, NS, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

const entries = corpusEntries()
describe('the form model over the corpus', () => {
  it('gives every field of every Config an editor: 0 unsupported, 0 stubs', async () => {
    let fields = 0
    const kinds = new Map<string, number>()
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      current = await deploy(schema, { document: { [NS]: sampleSection(schema, { optional: true }).section } })
      const model = current.form()
      const all = everyField(model.root)
      fields += all.length
      for (const field of all) kinds.set(field.kind, (kinds.get(field.kind) ?? 0) + 1)
      expect(all.filter((field) => field.kind === 'unsupported').map((field) => `${field.path.join('.')}: ${field.reason}`), entry.ns).toEqual([])
      expect(['object', 'union'], entry.ns).toContain(model.root.kind)
      await current.dispose()
      current = undefined
    }
    expect(kinds.get('unsupported')).toBeUndefined()
    // Every kind the corpus needs shows up, so each of them is exercised above.
    for (const kind of ['union', 'bitset', 'json', 'dict', 'array', 'tuple', 'secret', 'select', 'link', 'textarea', 'slider']) expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0)
    expect(fields).toBeGreaterThan(1000)
  })

  it('edits one field of every Config through planEdit and the seam', async () => {
    let empty = 0
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      current = await deploy(schema, { document: { [NS]: sampleSection(schema).section } })
      const model = current.form()
      const target = someEdit(model)
      // A Config with no field at all (a plugin that takes no settings) has nothing to edit.
      if (!model.root.children?.length && model.root.kind === 'object') {
        expect(schema({})).toEqual({})
        empty++
        await current.dispose()
        current = undefined
        continue
      }
      expect(target, entry.ns).toBeDefined()
      const plan = planEdit(model, target!.edit)
      expect(plan.kind, entry.ns).toBe('mutate')
      if (plan.kind === 'mutate') await current.settings.mutate(NS, plan.ops, model.revision)
      const after = current.view()
      expect(hasAt(after.user, target!.path), entry.ns).toBe(true)
      if ('value' in target!) expect(getAt(after.value, target!.path), entry.ns).toEqual(target!.value)
      else expect(getAt(after.value, target!.path), entry.ns).not.toEqual(getAt(model.view.value, target!.path))
      await current.dispose()
      current = undefined
    }
    expect(entries.length - empty).toBeGreaterThanOrEqual(25)
  })

  it('switches an adapter between protocols keeping what both share, its token included', async () => {
    const entry = entries.find((e) => e.ns === 'adapter-onebot')!
    const schema = corpusSchema(entry)
    current = await deploy(schema, { document: { [NS]: { selfId: '42', token: 'kept-token-1', protocol: 'ws', endpoint: 'ws://127.0.0.1:6700' } } })
    const model = current.form()
    expect(model.root).toMatchObject({ kind: 'union', discriminator: 'protocol' })
    const labels = model.root.variants!.map((variant) => variant.label)
    expect(labels).toEqual(['http', 'ws', 'ws-reverse'])
    expect(labels[model.root.variant!]).toBe('ws')
    const plan = planEdit(model, { type: 'choose-variant', path: [], index: labels.indexOf('ws-reverse') })
    expect(plan.kind).toBe('mutate')
    if (plan.kind === 'mutate') {
      expect(plan.ops).toContainEqual({ op: 'set', path: ['protocol'], value: 'ws-reverse' })
      expect(plan.ops).toContainEqual({ op: 'unset', path: ['endpoint'] })
      await current.settings.mutate(NS, plan.ops, model.revision)
    }
    const after = current.form()
    expect(after.root.variants![after.root.variant!]!.label).toBe('ws-reverse')
    expect(after.view.user).toMatchObject({ selfId: '42', protocol: 'ws-reverse' })
    expect(after.view.secrets).toContainEqual(expect.objectContaining({ path: ['token'], set: true }))
  })

  it('shows descriptions in the reader’s locale, falling back along zh-CN → zh → en-US → en → untagged → first', async () => {
    const localized = entries.filter((entry) => JSON.stringify(entry.schema).includes('"en-US"'))
    expect(localized.length).toBeGreaterThan(0)
    let checked = 0
    for (const entry of localized) {
      const schema = corpusSchema(entry)
      current = await deploy(schema, { document: { [NS]: sampleSection(schema).section } })
      const view = current.view()
      const zh = everyField(buildForm(view, { locale: 'zh-CN' }).root)
      const en = everyField(buildForm(view, { locale: 'en-US' }).root)
      zh.forEach((field, index) => {
        const english = en[index]!.description
        if (!field.description || !english || field.description === english) return
        checked++
        expect(/[\u4e00-\u9fff]/.test(field.description), `${entry.ns} ${field.path.join('.')}`).toBe(true)
      })
      await current.dispose()
      current = undefined
    }
    expect(checked).toBeGreaterThan(20)
  })

  it('the blank of a new item in a list of objects holds its required values and constants', async () => {
    for (const entry of entries) {
      const schema = corpusSchema(entry)
      current = await deploy(schema, { document: { [NS]: sampleSection(schema).section } })
      for (const field of everyField(current.form().root)) {
        if (!field.item || field.item.kind !== 'object') continue
        const blank = blankValue(field.item) as Record<string, unknown>
        for (const child of field.item.children ?? []) {
          if (child.kind === 'const' && child.constant !== undefined) expect(blank[child.path.at(-1)!]).toEqual(child.constant)
        }
      }
      await current.dispose()
      current = undefined
    }
  })
})
