/**
 * Edits staged on a form and saved together: a plugin waiting for setup, or a
 * switch to a form whose required values are not there yet, is filled in the
 * page and stored in one write. The staged ops may carry a secret's new value,
 * so a page keeps the {@link Staged} list out of anything it renders; the view
 * it renders ({@link stagedView}) only marks such a secret as set.
 */
import type { RedactedSecret, SettingsNamespaceView } from 'dsh-settings'
import type { SettingsPathOpView } from 'dsh-settings-controller'
import { applyToDraft } from './draft.ts'
import { fieldAt, type Field, type FormModel } from './fields.ts'
import { cloneJson, getAt, isPlainObject, startsWith } from './paths.ts'

/** The ops staged so far, in order, each marked when it writes a secret. */
export type Staged = readonly { op: SettingsPathOpView; secret: boolean }[]

/** No edit staged. */
export const NOTHING_STAGED: Staged = []

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && startsWith(a, b)

/**
 * `ops`, planned against `model` (the form as staged so far), added to
 * `staged`. A later op on a path supersedes earlier ones on it and below it,
 * so the one write carries each field once.
 */
export function stage(model: FormModel, staged: Staged, ops: readonly SettingsPathOpView[]): Staged {
  let next = [...staged]
  for (const op of ops) {
    next = next.filter((entry) => !startsWith(entry.op.path, op.path))
    next.push({ op, secret: fieldAt(model, op.path)?.kind === 'secret' })
  }
  return next
}

/** The ops to send for what is staged, in order. */
export function stagedOps(staged: Staged): SettingsPathOpView[] {
  return staged.map((entry) => entry.op)
}

/** What a field reads once the value at its path is unset from the shown section: what the layers below give. */
function fallbackValue(model: FormModel, path: string[]): unknown {
  if (model.view.scope !== undefined) return getAt(model.view.inherited, path)
  return fieldAt(model, path)?.default
}

/**
 * The view `model` was built from, as it will read once `staged` is stored:
 * each op applied to the shown section (`user`) and to the resolved value, a
 * staged secret only marked set. Build a form from it to show the draft.
 */
export function stagedView(model: FormModel, staged: Staged): SettingsNamespaceView {
  const { view } = model
  const layer: RedactedSecret['layer'] = view.scope === undefined ? 'global' : 'scope'
  let user: unknown = cloneJson(view.user ?? {})
  let value: unknown = cloneJson(isPlainObject(view.value) ? view.value : (view.user ?? {}))
  const secrets: RedactedSecret[] = view.secrets.map((slot) => ({ ...slot, path: [...slot.path] }))
  for (const { op, secret } of staged) {
    if (secret) {
      const at = secrets.findIndex((slot) => samePath(slot.path, op.path))
      const state: RedactedSecret = op.op === 'set' ? { path: [...op.path], set: true, layer, ...keptInStore(secrets[at], layer) } : { path: [...op.path], set: false }
      if (at >= 0) secrets[at] = state
      else secrets.push(state)
      continue
    }
    user = applyToDraft(user, op)
    const fallback = op.op === 'unset' ? fallbackValue(model, op.path) : undefined
    value = applyToDraft(value, fallback === undefined ? op : { op: 'set', path: op.path, value: cloneJson(fallback) })
  }
  return { ...view, user: user as SettingsNamespaceView['user'], value, secrets }
}

/** A replaced secret this section keeps in the secret store stays there (the provider replaces the stored value). */
function keptInStore(slot: RedactedSecret | undefined, layer: RedactedSecret['layer']): Pick<RedactedSecret, 'source' | 'reference'> {
  return slot?.set && slot.layer === layer && slot.source === 'store' ? { source: 'store', ...(slot.reference === undefined ? {} : { reference: slot.reference }) } : {}
}

/** Whether nothing at all is given for `field` (a set secret counts as given). */
function absent(field: Field): boolean {
  if (field.kind === 'secret') return field.secret?.set !== true
  return field.value === undefined || field.value === null
}

/**
 * Every required field a form lacks a value for, through the forms chosen,
 * and each union whose form is not chosen yet (the section root, or a required
 * one). Items of lists and dicts are the person's own and are not entered;
 * neither is an optional group nobody filled in.
 */
function lacking(model: FormModel): Field[] {
  const found: Field[] = []
  const visit = (field: Field): void => {
    if (field.kind === 'union' && (field.variant ?? -1) < 0) {
      if (field.path.length === 0 || (field.required && field.default === undefined && absent(field))) found.push(field)
      return
    }
    if (field.kind === 'object' || field.kind === 'union') {
      // An optional group left out entirely is read as its default; one with no object default asks for nothing.
      const entered = field.path.length === 0 || !absent(field) || field.required || isPlainObject(field.default)
      if (entered) for (const child of field.children ?? []) visit(child)
      return
    }
    if (field.required && field.default === undefined && !field.hidden && absent(field)) found.push(field)
  }
  visit(model.root)
  return found
}

/**
 * The required values a form still lacks, as paths: what {@link lacking}
 * finds, less the constants, which {@link fixedOps} gives without asking.
 */
export function missingValues(model: FormModel): string[][] {
  return lacking(model)
    .filter((field) => field.kind !== 'const')
    .map((field) => field.path)
}

/**
 * The ops that store the required constants a form lacks (a root object
 * whose `protocol` is `const('http').required()`): there is nothing to type
 * for them, so a save stages them itself.
 */
export function fixedOps(model: FormModel): SettingsPathOpView[] {
  return lacking(model)
    .filter((field) => field.kind === 'const' && field.constant !== undefined)
    .map((field) => ({ op: 'set', path: field.path, value: cloneJson(field.constant) }))
}

/**
 * The required values `after` lacks that `before` did not: what an edit would
 * leave for the person to give. A page stages such an edit instead of sending
 * it; one that leaves only what was missing already (a running plugin that
 * never needed it) is sent as it is.
 */
export function newlyMissing(before: FormModel, after: FormModel): string[][] {
  const known = new Set(missingValues(before).map((path) => path.join('\0')))
  return missingValues(after).filter((path) => !known.has(path.join('\0')))
}
