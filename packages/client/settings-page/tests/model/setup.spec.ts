/**
 * A first setup through the form model, over every published Config that
 * waits for setup (the corpus's and the held-out set's, see
 * `tests/e2e/harness/setup-cases.ts`) and the docs' adapter pattern: for each
 * form of the section's root, the edits a person makes (choose the form, give
 * each value the form says is missing) are staged, and the one `mutate` they
 * plan is accepted by the real seam and starts the plugin with exactly those
 * values.
 */
import type { SettingsPathOpView } from 'dsh-settings-controller'
import type Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import {
  buildForm,
  fieldAt,
  fixedOps,
  getAt,
  missingValues,
  NOTHING_STAGED,
  planEdit,
  stage,
  stagedOps,
  stagedView,
  type Edit,
  type Field,
  type FormModel,
  type Staged,
} from '../../src/model/index.ts'
import { setupCases, type SetupCase } from '../e2e/harness/setup-cases.ts'
import { personValue, sectionOf, tagsOf, type Typed } from '../e2e/harness/setup-values.ts'
import { deploy, NS, type Deployment } from './harness.ts'

const cases = await setupCases()

let current: Deployment | undefined
afterEach(async () => {
  await current?.dispose()
  current = undefined
})

/** One person's setup of one form: the draft so far and what they gave. */
interface Draft {
  form: FormModel
  staged: Staged
  typed: Typed[]
}

/** Plan `edit` on the draft's form and stage it; the form is rebuilt from the staged view. */
function apply(base: FormModel, draft: Draft, edit: Edit): Draft {
  const plan = planEdit(draft.form, edit)
  if (plan.kind !== 'mutate') throw new Error(`${edit.type} not planned: ${JSON.stringify({ edit: { ...edit, value: undefined }, plan })}`)
  const staged = stage(draft.form, draft.staged, plan.ops)
  return { form: buildForm(stagedView(base, staged)), staged, typed: draft.typed }
}

/** Choose form `index` of the union at `path`, noting the constants it holds as given. */
function choose(base: FormModel, draft: Draft, path: string[], index: number): Draft {
  const union = fieldAt(draft.form, path)!
  const next = apply(base, draft, { type: 'choose-variant', path, index })
  return { ...next, typed: [...next.typed, ...tagsOf(union, index)] }
}

/** Give every value the draft still lacks, as a person would, until nothing is missing (a bounded number of rounds). */
function fillMissing(base: FormModel, start: Draft, secretPrefix: string): Draft {
  let draft = start
  for (let round = 0; round < 32; round++) {
    const missing = missingValues(draft.form)
    if (missing.length === 0) return draft
    const path = missing[0]!
    const field: Field | undefined = fieldAt(draft.form, path)
    if (!field) throw new Error(`missing ${path.join('.')} has no field on the form`)
    if (field.kind === 'union') {
      draft = choose(base, draft, path, 0)
      continue
    }
    const value = personValue(field, `${secretPrefix}-${draft.typed.length + 1}`)
    const edit: Edit = field.kind === 'secret' ? { type: 'replace-secret', path, value: String(value) } : { type: 'set', path, value }
    const next = apply(base, draft, edit)
    draft = { ...next, typed: [...next.typed, { path, value, secret: field.kind === 'secret' }] }
  }
  throw new Error(`still missing after 32 values: ${missingValues(draft.form).map((p) => p.join('.')).join(', ')}`)
}

/** Set up form `branch` (or the only one) of `schema` from nothing; answers the one write sent and what the plugin started with. */
async function setUp(schema: Schema, branch: number | undefined, secretPrefix: string) {
  current = await deploy(schema, { waits: true })
  const base = current.form()
  expect(base.view.needsSetup).toBe(true)
  expect(current.started).toEqual([])
  let draft: Draft = { form: base, staged: NOTHING_STAGED, typed: [] }
  if (branch !== undefined) draft = choose(base, draft, [], branch)
  draft = fillMissing(base, draft, secretPrefix)
  // A save stores the constants the chosen forms require (nothing to type for them), as the page's save does.
  const fixed = fixedOps(draft.form)
  draft = { ...draft, staged: stage(draft.form, draft.staged, fixed), typed: [...draft.typed, ...fixed.map((op) => ({ path: op.path, value: op.op === 'set' ? op.value : undefined, secret: false }))] }
  const ops: SettingsPathOpView[] = stagedOps(draft.staged)
  // The staged view a page renders never holds a secret typed into the draft.
  const shown = JSON.stringify(draft.form.view)
  for (const entry of draft.typed) if (entry.secret) expect(shown).not.toContain(String(entry.value))
  await current.settings.mutate(NS, ops, base.revision)
  // Said when the plugin does not start: what the seam still finds missing or wrong, and the write that was sent (secrets elided).
  const sent = JSON.stringify(ops.map((op) => (draft.typed.some((entry) => entry.secret && op.op === 'set' && op.value === entry.value) ? { ...op, value: '(secret)' } : op)))
  const why = () => `${JSON.stringify(current!.view().problem ?? 'no problem described')} after ${sent}`
  await expect.poll(() => current!.started.length, { message: why() }).toBe(1)
  return { typed: draft.typed, started: current.started[0], view: current.view() }
}

/** The forms of the section's root a person may choose: each of the root union's, or the one form of an object root. */
async function rootBranches(schema: Schema): Promise<(number | undefined)[]> {
  current = await deploy(schema, { waits: true })
  const root = current.form().root
  await current.dispose()
  current = undefined
  return root.kind === 'union' ? root.variants!.map((_, index) => index) : [undefined]
}

describe('setting up every waiting Config through the form model', () => {
  it('finds the waiting Configs of both fixtures and the docs’ pattern', () => {
    const by = (source: SetupCase['source']) => cases.filter((c) => c.source === source).length
    console.log(`setup cases: ${by('corpus')} corpus, ${by('held-out')} held-out, ${by('docs')} docs`)
    expect(by('docs')).toBe(1)
    expect(by('corpus')).toBeGreaterThanOrEqual(10)
    expect(by('held-out')).toBeGreaterThanOrEqual(10)
  })

  for (const [number, setup] of cases.entries()) {
    it(`${setup.ns} (${setup.label}): every form of its root, one mutate each, starts with the values given`, async () => {
      let forms = 0
      for (const branch of await rootBranches(setup.schema)) {
        const prefix = `model-setup-${number}-${branch ?? 0}`
        const { typed, started, view } = await setUp(setup.schema, branch, prefix)
        // Exactly what the person gave: the schema's own reading of those values and nothing else.
        expect(started, `form ${branch}`).toEqual(setup.schema(sectionOf(typed)))
        for (const entry of typed) expect(getAt(started, entry.path), `${entry.path.join('.')} in form ${branch}`).toEqual(entry.value)
        expect(view.needsSetup).toBeUndefined()
        expect(JSON.stringify(view)).not.toContain(prefix)
        await current!.dispose()
        current = undefined
        forms++
      }
      expect(forms).toBeGreaterThan(0)
    })
  }
})
