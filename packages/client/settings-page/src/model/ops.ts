import type { SettingsPathOpView } from 'dsh-settings-controller'
import { applyToDraft } from './draft.ts'
import { fieldAt, isHostSecret, type Field, type FormModel } from './fields.ts'
import { dataEqual } from 'dsh-settings/equal'
import { blankValue } from './blank.ts'
import { cloneJson, hasAt, isPlainObject, startsWith } from './paths.ts'

/** One edit a person makes on the form. Paths are field paths, as in {@link Field.path}. */
export type Edit =
  | { type: 'set'; path: string[]; value: unknown }
  | { type: 'unset'; path: string[] }
  | { type: 'replace-secret'; path: string[]; value: string }
  | { type: 'clear-secret'; path: string[] }
  | { type: 'dict-add'; path: string[]; key: string; value: unknown }
  | { type: 'dict-rename'; path: string[]; from: string; to: string }
  | { type: 'dict-remove'; path: string[]; key: string }
  | { type: 'array-add'; path: string[]; value: unknown }
  | { type: 'array-edit'; path: string[]; index: number; value: unknown; at?: string[] }
  | { type: 'array-remove'; path: string[]; index: number }
  | { type: 'array-reorder'; path: string[]; order: number[] }
  | { type: 'tuple-set'; path: string[]; index: number; value: unknown }
  | { type: 'choose-variant'; path: string[]; index: number }
  | { type: 'reset-section' }

/**
 * What the page should send for an edit: path ops for `mutate`, an empty
 * section for `replace` (resetting the whole section), or a refusal with the
 * reason to show when the edit cannot be expressed without losing data.
 */
export type EditPlan =
  | { kind: 'mutate'; ops: SettingsPathOpView[] }
  | { kind: 'replace'; section: Record<string, never> }
  | { kind: 'refused'; code: EditRefusal; reason: string }

/**
 * Why an edit cannot be sent, one code a page can word in its own language
 * ({@link EDIT_REFUSAL_ENGLISH} words it in English). Each says what the person
 * would have to do instead; none names a value.
 */
export type EditRefusal =
  | 'no-field' | 'wrong-kind' | 'key-taken' | 'no-key' | 'inherited-entry' | 'secret-entry' | 'secret-order' | 'bad-order'
  | 'no-item' | 'no-form' | 'whole-section' | 'holds-secrets' | 'inherited-secrets' | 'secret-read-only'

/** Each refusal in English: what {@link EditPlan}'s `reason` holds. */
export const EDIT_REFUSAL_ENGLISH: Readonly<Record<EditRefusal, string>> = {
  'no-field': 'the form has no such field',
  'wrong-kind': 'the field cannot take this edit',
  'key-taken': 'key-taken',
  'no-key': 'no such key',
  'inherited-entry': 'inherited-entry',
  'secret-entry': 'secret-entry',
  'secret-order': 'secret-order',
  'bad-order': 'bad-order',
  'no-item': 'no item at that position',
  'no-form': 'no such form',
  'whole-section': 'the whole section can only be reset, or edited field by field',
  'holds-secrets': 'holds-secrets',
  'inherited-secrets': 'inherited-secrets',
  'secret-read-only': 'this secret comes from the host (an environment variable or a file): change it there',
}

type Raw = SettingsPathOpView[] | EditRefusal

const set = (path: string[], value: unknown): SettingsPathOpView => ({ op: 'set', path, value: cloneJson(value) })
const unset = (path: string[]): SettingsPathOpView => ({ op: 'unset', path })

function setSecretsUnder(model: FormModel, path: readonly string[], strict: boolean): boolean {
  return model.view.secrets.some((slot) => slot.set && startsWith(slot.path, path) && (!strict || slot.path.length > path.length))
}

function kindOf(model: FormModel, path: string[], kind: Field['kind']): Field | EditRefusal {
  const field = fieldAt(model, path)
  if (!field) return 'no-field'
  return field.kind === kind ? field : 'wrong-kind'
}

function lengthOf(field: Field): number {
  return Array.isArray(field.value) ? field.value.length : 0
}

function validIndex(index: number, length: number): boolean {
  return Number.isInteger(index) && index >= 0 && index < length
}

function dictOps(model: FormModel, edit: Extract<Edit, { type: `dict-${string}` }>): Raw {
  const field = kindOf(model, edit.path, 'dict')
  if (typeof field === 'string') return field
  const entries = isPlainObject(field.value) ? field.value : {}
  const own = (key: string) => fieldAt(model, [...edit.path, key])?.overridden === true
  if (edit.type === 'dict-add') {
    if (edit.key === '' || Object.hasOwn(entries, edit.key)) return 'key-taken'
    return [set([...edit.path, edit.key], edit.value)]
  }
  const name = edit.type === 'dict-rename' ? edit.from : edit.key
  if (!Object.hasOwn(entries, name)) return 'no-key'
  // An entry stored in a lower layer cannot be removed from this section; unsetting it would do nothing.
  if (!own(name)) return 'inherited-entry'
  if (edit.type === 'dict-remove') return [unset([...edit.path, name])]
  if (edit.to === '' || Object.hasOwn(entries, edit.to)) return 'key-taken'
  // Renaming restates the entry under its new key, so a secret in it would be lost.
  if (setSecretsUnder(model, [...edit.path, name], false)) return 'secret-entry'
  return [set([...edit.path, edit.to], entries[name]), unset([...edit.path, name])]
}

function arrayOps(model: FormModel, edit: Extract<Edit, { type: `array-${string}` }>): Raw {
  const field = kindOf(model, edit.path, 'array')
  if (typeof field === 'string') return field
  const length = lengthOf(field)
  if (edit.type === 'array-add') return [set([...edit.path, String(length)], edit.value)]
  if (edit.type === 'array-reorder') {
    if (!field.reorderable) return 'secret-order'
    const sorted = [...edit.order].sort((a, b) => a - b)
    if (sorted.length !== length || sorted.some((v, i) => v !== i)) return 'bad-order'
    return [set(edit.path, edit.order.map((i) => (field.value as unknown[])[i]))]
  }
  if (!validIndex(edit.index, length)) return 'no-item'
  if (edit.type === 'array-remove') return [unset([...edit.path, String(edit.index)])]
  return [set([...edit.path, String(edit.index), ...(edit.at ?? [])], edit.value)]
}

/**
 * What a form fixes to be chosen: its constants (a branch's tag), through the
 * groups it requires. Values a person must give are left for them to give.
 */
function formTags(field: Field): Record<string, unknown> {
  const tags: Record<string, unknown> = {}
  for (const child of field.children ?? []) {
    const key = child.path.at(-1)!
    if (child.kind === 'const' && child.constant !== undefined) tags[key] = cloneJson(child.constant)
    else if (child.kind === 'object' && child.required && child.default === undefined) tags[key] = formTags(child)
  }
  return tags
}

/**
 * The op that makes a union's discriminator stop naming another form, for a
 * switch to the form that takes every other value: the one boolean no form
 * claims, else no value at all.
 */
function otherwiseOps(model: FormModel, field: Field, current: Record<string, unknown>): SettingsPathOpView[] {
  const key = field.discriminator!
  const path = [...field.path, key]
  const claimed = (field.variants ?? []).flatMap((variant) => ('tag' in variant ? [variant.tag] : []))
  const free = [false, true].find((flag) => !claimed.includes(flag))
  // The chosen form fixes the key to its constant; the form for every other value says what the key is.
  const own = field.variants?.find((variant) => !('tag' in variant))?.field.children?.find((child) => child.path.at(-1) === key)
  if (own?.kind === 'boolean' && free !== undefined) return current[key] === free ? [] : [set(path, free)]
  return hasAt(model.view.user, path) ? [unset(path)] : []
}

/**
 * Switch a union to another of its forms. Between two object forms only what
 * differs is written: the new form's constants, and an unset of each key the
 * new form lacks (where this section stores it); what both forms share stays as
 * it is, secrets included. Values the new form requires are not invented: a
 * page stages the switch until they are given ({@link missingValues}). The form
 * that takes every other value of the discriminator ("enable to reveal" turned
 * off) keeps the other forms' keys, so turning it back on finds them again.
 * Any other switch writes the new form's blank value.
 */
function variantOps(model: FormModel, edit: Extract<Edit, { type: 'choose-variant' }>): Raw {
  const field = kindOf(model, edit.path, 'union')
  if (typeof field === 'string') return field
  const variant = field.variants?.[edit.index]
  const target = variant?.field
  if (!variant || !target) return 'no-form'
  if (edit.index === field.variant) return []
  if (target.kind === 'object' && (isPlainObject(field.value) || field.value === undefined)) {
    const current = isPlainObject(field.value) ? field.value : {}
    if (field.discriminator !== undefined && !('tag' in variant)) return otherwiseOps(model, field, current)
    const keys = new Set((target.children ?? []).map((child) => child.path.at(-1)!))
    const ops: SettingsPathOpView[] = []
    for (const key of Object.keys(current)) {
      if (!keys.has(key) && hasAt(model.view.user, [...edit.path, key])) ops.push(unset([...edit.path, key]))
    }
    for (const [key, value] of Object.entries(formTags(target))) {
      // A required group is only created where there is none: one already stored may hold what the page never saw.
      const differs = isPlainObject(value) ? current[key] === undefined : !dataEqual(current[key], value)
      if (differs) ops.push(set([...edit.path, key], value))
    }
    return ops
  }
  const blank = blankValue(target)
  if (blank === undefined) return edit.path.length === 0 ? 'whole-section' : [unset(edit.path)]
  return rawOps(model, { type: 'set', path: edit.path, value: blank })
}

function rawOps(model: FormModel, edit: Exclude<Edit, { type: 'reset-section' }>): Raw {
  switch (edit.type) {
    case 'set':
      if (edit.path.length === 0) return 'whole-section'
      // Setting a container rewrites everything under it, including secrets the page never saw.
      if (setSecretsUnder(model, edit.path, true)) return 'holds-secrets'
      return [set(edit.path, edit.value)]
    case 'unset':
      return edit.path.length === 0 ? 'whole-section' : [unset(edit.path)]
    case 'replace-secret':
    case 'clear-secret': {
      const field = kindOf(model, edit.path, 'secret')
      if (typeof field === 'string') return field
      // The host supplies it: the store refuses the write, so the page does not send it.
      if (isHostSecret(field)) return 'secret-read-only'
      return edit.type === 'replace-secret' ? [set(edit.path, edit.value)] : [unset(edit.path)]
    }
    case 'tuple-set': {
      const field = kindOf(model, edit.path, 'tuple')
      if (typeof field === 'string') return field
      if (!validIndex(edit.index, field.children?.length ?? 0)) return 'no-item'
      return rawOps(model, { type: 'set', path: [...edit.path, String(edit.index)], value: edit.value })
    }
    case 'choose-variant':
      return variantOps(model, edit)
    case 'dict-add':
    case 'dict-rename':
    case 'dict-remove':
      return dictOps(model, edit)
    default:
      return arrayOps(model, edit)
  }
}

/**
 * The outermost array or tuple on `path` that the section does not store
 * itself. `mutate` cannot address its elements (a `set` there would create an
 * object with decimal keys, an `unset` would do nothing), so the whole list
 * must be written instead.
 */
function inheritedList(model: FormModel, path: readonly string[]): Field | undefined {
  let current: Field | undefined = model.root
  for (let depth = 0; current && depth < path.length; depth++) {
    if ((current.kind === 'array' || current.kind === 'tuple') && !current.overridden) return current
    current = current.children?.find((child) => child.path[depth] === path[depth])
  }
  return undefined
}

/** Rewrite ops that reach into an inherited list as one `set` of the whole list. */
function anchorOps(model: FormModel, ops: SettingsPathOpView[]): Raw {
  const result: SettingsPathOpView[] = []
  for (const op of ops) {
    const list = inheritedList(model, op.path)
    if (!list) {
      result.push(op)
      continue
    }
    if (setSecretsUnder(model, list.path, false)) return 'inherited-secrets'
    const previous = result.findIndex((o) => o.op === 'set' && o.path.join('\0') === list.path.join('\0'))
    const draft = previous >= 0 ? (result[previous] as { value: unknown }).value : cloneJson(list.value ?? [])
    const relative = { ...op, path: op.path.slice(list.path.length) }
    const next = set(list.path, applyToDraft(draft, relative))
    if (previous >= 0) result[previous] = next
    else result.push(next)
  }
  return result
}

/**
 * Turn one edit into what to send. Ops only name the fields the edit touches,
 * so fields the page never received (redacted secrets) stay as stored; an
 * edit that could only be expressed by restating such a field is refused.
 */
export function planEdit(model: FormModel, edit: Edit): EditPlan {
  if (edit.type === 'reset-section') return { kind: 'replace', section: {} }
  const raw = rawOps(model, edit)
  const anchored = typeof raw === 'string' ? raw : anchorOps(model, raw)
  return typeof anchored === 'string' ? { kind: 'refused', code: anchored, reason: EDIT_REFUSAL_ENGLISH[anchored] } : { kind: 'mutate', ops: anchored }
}
