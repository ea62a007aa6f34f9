/**
 * The edit a person would make on one corpus plugin's form, shared by the
 * model's corpus spec and the chromium one: the first plain field set to
 * another value, or else the first union switched to another form.
 */
import type { Edit, Field, FormModel } from '../../src/model/index.ts'

export const EDITABLE = new Set(['string', 'textarea', 'link', 'number', 'slider', 'boolean', 'select'])

/** A value for the field other than the one it shows: what a person would type. */
function another(field: Field): unknown {
  switch (field.kind) {
    case 'boolean':
      return field.value !== true
    case 'select':
      return field.options!.find((option) => JSON.stringify(option.value) !== JSON.stringify(field.value))?.value
    case 'number':
    case 'slider': {
      const base = typeof field.value === 'number' ? field.value : (field.min ?? 0)
      const step = field.step ?? 1
      return field.max !== undefined && base + step > field.max ? base - step : base + step
    }
    default:
      return field.pattern ? undefined : `edited-${field.path.join('-')}`
  }
}

/**
 * One edit a person would make on the form: set the first plain field of the
 * chosen forms to another value, or else switch the first union to another form.
 * Answers the edit and the path whose stored value must change.
 */
export function someEdit(model: FormModel): { edit: Edit; path: string[]; value?: unknown } | undefined {
  const unions: Field[] = []
  const walk = (field: Field): { edit: Edit; path: string[]; value: unknown } | undefined => {
    if (EDITABLE.has(field.kind) && !field.hidden && field.path.length) {
      const value = another(field)
      if (value !== undefined) return { edit: { type: 'set', path: field.path, value }, path: field.path, value }
    }
    if (field.kind === 'union') unions.push(field)
    for (const child of field.children ?? []) {
      // Items of lists and tables are the person's own; a hidden group's fields are not on the page.
      if (field.kind === 'array' || field.kind === 'dict' || child.hidden) continue
      const found = walk(child)
      if (found) return found
    }
    return undefined
  }
  const found = walk(model.root)
  if (found) return found
  const union = unions.find((field) => field.path.length && (field.variants?.length ?? 0) > 1)
  if (!union) return undefined
  const index = union.variants!.findIndex((variant, i) => i !== union.variant && variant.field.kind !== 'const')
  return { edit: { type: 'choose-variant', path: union.path, index }, path: union.path }
}

