import type { Field } from './fields.ts'
import { cloneJson } from './paths.ts'

/**
 * The value a new dict entry or list item starts with: the schema default
 * when there is one, else the emptiest value of the field's kind (the
 * smallest allowed number, the first choice, an empty container).
 */
export function blankValue(field: Field): unknown {
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
    case 'object':
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
