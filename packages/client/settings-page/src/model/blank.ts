import type { Field } from './fields.ts'
import { cloneJson, isPlainObject } from './paths.ts'

/**
 * The value a new dict entry or list item starts with: the schema default
 * when there is one (for an object, with its constants and required values
 * added), else the emptiest value of the field's kind (the smallest allowed
 * number, the first choice, an empty container).
 */
export function blankValue(field: Field): unknown {
  // An object's default (schemastery gives every object `{}`) still lacks its tag and required values.
  if (field.kind === 'object') return { ...(isPlainObject(field.default) ? cloneJson(field.default) : {}), ...objectBlank(field) }
  if (field.default !== undefined) return cloneJson(field.default)
  switch (field.kind) {
    case 'string':
    case 'textarea':
    case 'link':
    case 'secret':
      return ''
    case 'number':
    case 'slider':
      return field.min ?? 0
    case 'boolean':
      return false
    case 'const':
      return cloneJson(field.constant)
    case 'select':
      return cloneJson(field.options?.[0]?.value ?? null)
    case 'union':
      return blankValue(field.variants?.[0]?.field ?? { ...field, kind: 'json' })
    case 'bitset':
      return 0
    case 'dict':
      return {}
    case 'array':
      return []
    case 'tuple':
      return (field.children ?? []).map(blankValue)
    default:
      return null
  }
}

/** An object's blank: its constants (a union branch's tag) and the values it requires, the rest left to defaults. */
function objectBlank(field: Field): Record<string, unknown> {
  const blank: Record<string, unknown> = {}
  for (const child of field.children ?? []) {
    const key = child.path.at(-1)!
    if (child.kind === 'const' && child.constant !== undefined) blank[key] = cloneJson(child.constant)
    else if (child.required && child.default === undefined && child.kind !== 'secret') blank[key] = blankValue(child)
  }
  return blank
}
