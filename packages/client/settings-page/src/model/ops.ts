import type { SettingsPathOpView } from 'dsh-settings-controller'
import { applyToDraft } from './draft.ts'
import { fieldAt, type Field, type FormModel } from './fields.ts'
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
  | { kind: 'refused'; reason: string }

type Raw = SettingsPathOpView[] | string

const set = (path: string[], value: unknown): SettingsPathOpView => ({ op: 'set', path, value: cloneJson(value) })
const unset = (path: string[]): SettingsPathOpView => ({ op: 'unset', path })

function setSecretsUnder(model: FormModel, path: readonly string[], strict: boolean): boolean {
  return model.view.secrets.some((slot) => slot.set && startsWith(slot.path, path) && (!strict || slot.path.length > path.length))
}

function kindOf(model: FormModel, path: string[], kind: Field['kind']): Field | string {
  const field = fieldAt(model, path)
  if (!field) return `no field at ${path.join('.') || 'the section root'}`
  return field.kind === kind ? field : `the field at ${path.join('.') || 'the section root'} is not a ${kind}`
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
    if (edit.key === '' || Object.hasOwn(entries, edit.key)) return 'the key is empty or already taken'
    return [set([...edit.path, edit.key], edit.value)]
  }
  const name = edit.type === 'dict-rename' ? edit.from : edit.key
  if (!Object.hasOwn(entries, name)) return 'no such key'
  // An entry stored in a lower layer cannot be removed from this section; unsetting it would do nothing.
  if (!own(name)) return 'the entry comes from a lower layer and cannot be removed or renamed here'
  if (edit.type === 'dict-remove') return [unset([...edit.path, name])]
  if (edit.to === '' || Object.hasOwn(entries, edit.to)) return 'the new key is empty or already taken'
  // Renaming restates the entry under its new key, so a secret in it would be lost.
  if (setSecretsUnder(model, [...edit.path, name], false)) return 'the entry holds a secret, which cannot be moved to a new key'
  return [set([...edit.path, edit.to], entries[name]), unset([...edit.path, name])]
}

function arrayOps(model: FormModel, edit: Extract<Edit, { type: `array-${string}` }>): Raw {
  const field = kindOf(model, edit.path, 'array')
  if (typeof field === 'string') return field
  const length = lengthOf(field)
  if (edit.type === 'array-add') return [set([...edit.path, String(length)], edit.value)]
  if (edit.type === 'array-reorder') {
    if (!field.reorderable) return 'the items hold secrets, so their order cannot change'
    const sorted = [...edit.order].sort((a, b) => a - b)
    if (sorted.length !== length || sorted.some((v, i) => v !== i)) return 'the order is not a permutation of the items'
    return [set(edit.path, edit.order.map((i) => (field.value as unknown[])[i]))]
  }
  if (!validIndex(edit.index, length)) return 'no item at that index'
  if (edit.type === 'array-remove') return [unset([...edit.path, String(edit.index)])]
  return [set([...edit.path, String(edit.index), ...(edit.at ?? [])], edit.value)]
}

/**
 * Switch a union to another of its forms. Between two object forms only what
 * differs is written: keys the new form lacks are unset (where this section
 * stores them), its tag and the values it requires are set, and what both
 * forms share stays as it is, secrets included. Any other switch writes the
 * new form's blank value.
 */
function variantOps(model: FormModel, edit: Extract<Edit, { type: 'choose-variant' }>): Raw {
  const field = kindOf(model, edit.path, 'union')
  if (typeof field === 'string') return field
  const target = field.variants?.[edit.index]?.field
  if (!target) return 'no such form'
  if (edit.index === field.variant) return []
  if (target.kind === 'object' && isPlainObject(field.value)) {
    const keys = new Set((target.children ?? []).map((child) => child.path.at(-1)!))
    const ops: SettingsPathOpView[] = []
    for (const key of Object.keys(field.value)) {
      if (!keys.has(key) && hasAt(model.view.user, [...edit.path, key])) ops.push(unset([...edit.path, key]))
    }
    for (const [key, value] of Object.entries(blankValue(target) as Record<string, unknown>)) {
      const current = field.value[key]
      if (!dataEqual(current, value) && (current === undefined || target.children?.find((c) => c.path.at(-1) === key)?.kind === 'const')) ops.push(set([...edit.path, key], value))
    }
    return ops
  }
  const blank = blankValue(target)
  if (blank === undefined) return edit.path.length === 0 ? 'use reset-section to reset the whole section' : [unset(edit.path)]
  return rawOps(model, { type: 'set', path: edit.path, value: blank })
}

function rawOps(model: FormModel, edit: Exclude<Edit, { type: 'reset-section' }>): Raw {
  switch (edit.type) {
    case 'set':
      if (edit.path.length === 0) return 'use reset-section or per-field edits for the whole section'
      // Setting a container rewrites everything under it, including secrets the page never saw.
      if (setSecretsUnder(model, edit.path, true)) return 'the field holds secrets; edit its fields one by one'
      return [set(edit.path, edit.value)]
    case 'unset':
      return edit.path.length === 0 ? 'use reset-section to reset the whole section' : [unset(edit.path)]
    case 'replace-secret':
    case 'clear-secret': {
      const field = kindOf(model, edit.path, 'secret')
      if (typeof field === 'string') return field
      return edit.type === 'replace-secret' ? [set(edit.path, edit.value)] : [unset(edit.path)]
    }
    case 'tuple-set': {
      const field = kindOf(model, edit.path, 'tuple')
      if (typeof field === 'string') return field
      if (!validIndex(edit.index, field.children?.length ?? 0)) return 'no tuple position at that index'
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
    if (setSecretsUnder(model, list.path, false)) return 'the list comes from a lower layer and holds secrets, which this edit would have to restate'
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
  return typeof anchored === 'string' ? { kind: 'refused', reason: anchored } : { kind: 'mutate', ops: anchored }
}
