/**
 * Setting a plugin up from nothing through the form model: a union root offers
 * its forms with nothing stored, choosing one shows its fields, the edits are
 * staged and saved in one `mutate` that the real seam accepts, and the plugin
 * starts. Koishi's "enable to reveal" shows its fields once the boolean selects
 * them. A refusal inside a chosen form is reported at its field.
 */
import { corpusEntries, corpusSchema } from 'dsh-testing/corpus'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import {
  buildForm,
  fieldAt,
  flatten,
  missingValues,
  newlyMissing,
  NOTHING_STAGED,
  planEdit,
  stage,
  stagedOps,
  stagedView,
  validateField,
  type Edit,
  type FormModel,
  type Staged,
} from '../../src/model/index.ts'
import { deploy, NS, type Deployment } from './harness.ts'

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

/** The docs' adapter pattern: a required secret shared by every form, and a protocol union. */
const Adapter = Schema.intersect([
  Schema.object({
    token: Schema.string().role('secret').required(),
    protocol: Schema.union(['http', 'ws']).description('How the bot reaches the service.'),
  }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required() }),
    Schema.object({ protocol: Schema.const('ws').required(), gateway: Schema.string().default('wss://gateway.example'), heartbeat: Schema.natural().default(30) }),
  ]),
])

/** Koishi's `@koishijs/plugin-auth` idiom: the fields of the first form show once `enabled` is on. */
const EnableToReveal = Schema.intersect([
  Schema.object({ enabled: Schema.boolean().default(false) }),
  Schema.union([
    Schema.object({ enabled: Schema.const(true).required(), username: Schema.string().default('admin'), password: Schema.string().role('secret').required() }),
    Schema.object({}),
  ]),
])

/** Plan `edit` on the form as staged so far and stage its ops; answers the new staged list and form. */
function stageEdit(model: FormModel, staged: Staged, edit: Edit): { staged: Staged; form: FormModel } {
  const plan = planEdit(model, edit)
  if (plan.kind !== 'mutate') throw new Error(`edit not planned: ${JSON.stringify(plan)}`)
  const next = stage(model, staged, plan.ops)
  return { staged: next, form: buildForm(stagedView(current!.form(), next)) }
}

const paths = (list: string[][]) => list.map((path) => path.join('.'))

describe('setting a plugin up from nothing', () => {
  it('offers the adapter’s forms with nothing stored, shows the chosen one’s fields, and one save starts the plugin', async () => {
    current = await deploy(Adapter, { waits: true })
    expect(current.started).toEqual([])
    let form = current.form()
    expect(form.view.needsSetup).toBe(true)
    expect(form.root).toMatchObject({ kind: 'union', variant: -1, discriminator: 'protocol', discriminatorDescription: 'How the bot reaches the service.' })
    expect(form.root.variants!.map((variant) => [variant.label, variant.tag])).toEqual([['http', 'http'], ['ws', 'ws']])
    // Nothing chosen yet: what is missing is the choice itself.
    expect(missingValues(form)).toEqual([[]])

    let staged = NOTHING_STAGED
    ;({ staged, form } = stageEdit(form, staged, { type: 'choose-variant', path: [], index: 1 }))
    expect(stagedOps(staged)).toEqual([{ op: 'set', path: ['protocol'], value: 'ws' }])
    expect(form.root.variant).toBe(1)
    // The chosen form's own fields and the shared ones, defaults shown, the required ones marked.
    expect(flatten(form.root).slice(1).map((field) => [field.path.join('.'), field.kind, field.required])).toEqual([
      ['token', 'secret', true],
      ['protocol', 'const', true],
      ['gateway', 'string', false],
      ['heartbeat', 'number', false],
    ])
    expect(fieldAt(form, ['gateway'])!.default).toBe('wss://gateway.example')
    expect(paths(missingValues(form))).toEqual(['token'])

    ;({ staged, form } = stageEdit(form, staged, { type: 'replace-secret', path: ['token'], value: 'tok-setup-1' }))
    ;({ staged, form } = stageEdit(form, staged, { type: 'set', path: ['heartbeat'], value: 15 }))
    expect(missingValues(form)).toEqual([])
    // The staged view marks the secret set and never holds it.
    expect(JSON.stringify(form.view)).not.toContain('tok-setup-1')
    expect(fieldAt(form, ['token'])!.secret).toEqual({ set: true, layer: 'global' })

    await current.settings.mutate(NS, stagedOps(staged), current.form().revision)
    await expect.poll(() => current!.started.length).toBe(1)
    expect(current.started[0]).toEqual({ token: 'tok-setup-1', protocol: 'ws', gateway: 'wss://gateway.example', heartbeat: 15 })
    expect(current.view().needsSetup).toBeUndefined()
  })

  it('the other form: its required plain field is asked for, and switching forms before saving drops what only the first held', async () => {
    current = await deploy(Adapter, { waits: true })
    let form = current.form()
    let staged = NOTHING_STAGED
    ;({ staged, form } = stageEdit(form, staged, { type: 'choose-variant', path: [], index: 1 }))
    ;({ staged, form } = stageEdit(form, staged, { type: 'set', path: ['heartbeat'], value: 15 }))
    ;({ staged, form } = stageEdit(form, staged, { type: 'choose-variant', path: [], index: 0 }))
    expect(form.root.variant).toBe(0)
    expect(paths(missingValues(form))).toEqual(['token', 'endpoint'])
    ;({ staged, form } = stageEdit(form, staged, { type: 'set', path: ['endpoint'], value: 'http://127.0.0.1:5500' }))
    ;({ staged, form } = stageEdit(form, staged, { type: 'replace-secret', path: ['token'], value: 'tok-setup-2' }))
    expect(missingValues(form)).toEqual([])
    // Each path once, the later choice winning.
    expect(stagedOps(staged)).toEqual([
      { op: 'unset', path: ['heartbeat'] },
      { op: 'set', path: ['protocol'], value: 'http' },
      { op: 'set', path: ['endpoint'], value: 'http://127.0.0.1:5500' },
      { op: 'set', path: ['token'], value: 'tok-setup-2' },
    ])
    await current.settings.mutate(NS, stagedOps(staged), current.form().revision)
    await expect.poll(() => current!.started.length).toBe(1)
    expect(current.started[0]).toEqual({ token: 'tok-setup-2', protocol: 'http', endpoint: 'http://127.0.0.1:5500' })
  })

  it('a running adapter switched to a form that requires a value it lacks: the switch adds it to what is missing', async () => {
    current = await deploy(Adapter, { document: { [NS]: { token: 'tok-run', protocol: 'ws' } } })
    const form = current.form()
    const plan = planEdit(form, { type: 'choose-variant', path: [], index: 0 })
    expect(plan).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['protocol'], value: 'http' }] })
    const after = buildForm(stagedView(form, stage(form, NOTHING_STAGED, plan.kind === 'mutate' ? plan.ops : [])))
    expect(paths(newlyMissing(form, after))).toEqual(['endpoint'])
  })
})

describe('enable to reveal', () => {
  it('shows the revealed fields once the boolean selects their form, asks for the required password, and keeps them when turned off', async () => {
    current = await deploy(EnableToReveal)
    let form = current.form()
    expect(form.root).toMatchObject({ kind: 'union', discriminator: 'enabled', toggle: true, variant: 1 })
    expect(form.root.variants!.map((variant) => 'tag' in variant ? variant.tag : 'otherwise')).toEqual([true, 'otherwise'])
    expect(missingValues(form)).toEqual([])

    let staged = NOTHING_STAGED
    ;({ staged, form } = stageEdit(form, staged, { type: 'choose-variant', path: [], index: 0 }))
    expect(stagedOps(staged)).toEqual([{ op: 'set', path: ['enabled'], value: true }])
    expect(flatten(form.root).slice(1).map((field) => field.path.join('.'))).toEqual(['enabled', 'username', 'password'])
    expect(paths(newlyMissing(current.form(), form))).toEqual(['password'])
    ;({ staged, form } = stageEdit(form, staged, { type: 'replace-secret', path: ['password'], value: 'pw-reveal-1' }))
    await current.settings.mutate(NS, stagedOps(staged), current.form().revision)
    expect(current.settings.get(NS)).toEqual({ enabled: true, username: 'admin', password: 'pw-reveal-1' })

    // Turning it off sets the boolean no form claims and keeps the revealed fields for when it is turned on again.
    form = current.form()
    expect(form.root.variant).toBe(0)
    const off = planEdit(form, { type: 'choose-variant', path: [], index: 1 })
    expect(off).toEqual({ kind: 'mutate', ops: [{ op: 'set', path: ['enabled'], value: false }] })
    if (off.kind === 'mutate') await current.settings.mutate(NS, off.ops, form.revision)
    expect(current.form().root.variant).toBe(1)
    expect(current.form().view.secrets).toContainEqual({ path: ['password'], set: true, layer: 'global', source: 'document' })
  })

  it('the published auth plugin: its admin group shows username and the required password, as Koishi’s own form does', async () => {
    const entry = corpusEntries().find((e) => e.package === '@koishijs/plugin-auth')!
    current = await deploy(corpusSchema(entry))
    const form = current.form()
    const admin = fieldAt(form, ['admin'])!
    expect(admin).toMatchObject({ kind: 'union', discriminator: 'enabled', toggle: true, variant: 0 })
    expect(admin.children!.map((child) => child.path.at(-1))).toEqual(['enabled', 'username', 'password'])
    expect(fieldAt(form, ['admin', 'password'])).toMatchObject({ kind: 'secret', required: true, secret: { set: false } })
    // The plugin runs without it (its empty form takes anything), so an edit elsewhere is not held back for it.
    const plan = planEdit(form, { type: 'set', path: ['authTokenExpire'], value: 1000 })
    const after = buildForm(stagedView(form, stage(form, NOTHING_STAGED, plan.kind === 'mutate' ? plan.ops : [])))
    expect(newlyMissing(form, after)).toEqual([])
  })
})

describe('a refusal inside a chosen form is reported at its field', () => {
  it('heartbeat: fast under protocol ws names heartbeat, not the whole section', async () => {
    current = await deploy(Adapter, { document: { [NS]: { token: 'tok-f', protocol: 'ws' } } })
    const form = current.form()
    const issues = validateField(form, form.root, { token: 'x', protocol: 'ws', heartbeat: 'fast' })
    expect(issues.map((issue) => [issue.path, issue.code])).toEqual([[['heartbeat'], 'number']])
    expect(JSON.stringify(issues)).not.toContain('fast')
    // A value that names no form is still the union's own problem.
    expect(validateField(form, form.root, { token: 'x', protocol: 'smtp' }).map((issue) => [issue.path, issue.code])).toEqual([[[], 'any-form']])
  })
})
