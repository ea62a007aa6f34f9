/**
 * A value given as text, typed by the schema at its place: a string field
 * takes the text exactly as given, a number field a finite decimal number, a
 * boolean `true` or `false`, a constant the text that names it, and a
 * structured field (object, list, dict, tuple, any) a value only as JSON
 * (`--json`, which any field takes). Nothing is parsed as YAML, and no
 * message quotes the text.
 */
import type { SettingsSchema } from 'dsh-settings'
import { ValueError } from './value-error.ts'

type AnySchema = SettingsSchema<any>

const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/
const MAX_DEPTH = 64

/** Node types whose values are text. */
const TEXT_TYPES = new Set(['string', 'date'])
/** Node types whose values are numbers. */
const NUMBER_TYPES = new Set(['number', 'percent'])
/** Node types whose values are structured, or that only code could judge (revived as `any`). */
const STRUCTURED_TYPES = new Set(['object', 'dict', 'array', 'tuple', 'any', 'bitset', 'is', 'function'])

/** A finite decimal number written as `text`, or `undefined`. */
export function decimalNumber(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined
  const value = Number(text)
  return Number.isFinite(value) ? value : undefined
}

/** Strict JSON (`JSON.parse`); the parser's message, which quotes the text, is never kept. */
export function jsonValue(text: string, field: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new ValueError('not-json', `${field}: the value given is not valid JSON (--json takes strict JSON: "text" in double quotes, numbers, true, false, null, [lists] and {objects})`)
  }
}

/** The scalar alternatives a place's schemas offer: unions and intersections opened, wrappers looked through. */
function alternatives(schemas: readonly AnySchema[], depth = 0): AnySchema[] {
  if (depth > MAX_DEPTH) return []
  return schemas.flatMap((schema) => {
    if ((schema.type === 'transform' || schema.type === 'lazy') && typeof schema.inner === 'function') return alternatives([schema.inner], depth + 1)
    if (schema.type === 'union' || schema.type === 'intersect') return alternatives(schema.list ?? [], depth + 1)
    return [schema]
  })
}

function isStructured(schema: AnySchema): boolean {
  if (STRUCTURED_TYPES.has(schema.type)) return true
  return schema.type === 'const' && schema.value !== null && typeof schema.value === 'object'
}

/** Whether `text` names the constant `value` (`bing`, `42`, `true`, `null`). */
function names(text: string, value: unknown): boolean {
  if (typeof value === 'string') return text === value
  if (typeof value === 'number') return decimalNumber(text) === value
  if (typeof value === 'boolean' || value === null) return text === String(value)
  return false
}

/** What a structured place holds, in words: `an object`, `a list`, … */
function structuredWords(options: readonly AnySchema[]): string {
  const words = new Set(
    options.filter(isStructured).map((schema) => {
      if (schema.type === 'array' || schema.type === 'tuple') return 'a list'
      if (schema.type === 'object' || schema.type === 'dict' || schema.type === 'const') return 'an object'
      return 'a structured value'
    }),
  )
  return [...words].join(' or ')
}

/** What the scalar alternatives take, in words: `a number`, `true or false`, `one of "bing", "google"`. */
function scalarWords(options: readonly AnySchema[]): string {
  const words: string[] = []
  if (options.some((schema) => NUMBER_TYPES.has(schema.type))) words.push('a number')
  if (options.some((schema) => schema.type === 'boolean')) words.push('true or false')
  const constants = options.filter((schema) => schema.type === 'const' && !isStructured(schema)).map((schema) => JSON.stringify(schema.value))
  if (constants.length) words.push(constants.length === 1 ? constants[0]! : `one of ${constants.join(', ')}`)
  return words.join(', or ') || 'no value'
}

/**
 * Type `text` for the place whose schemas are `schemas` (from
 * `dsh-settings/schema-path`), as the module's comment says; `field` names the
 * place in a refusal. With `json`, the text is strict JSON whatever the place.
 * @throws {ValueError} `not-json`, `needs-json`, `not-a-number`, `not-a-boolean` or `no-constant`.
 */
export function typeValue(schemas: readonly AnySchema[], text: string, field: string, json: boolean): unknown {
  if (json) return jsonValue(text, field)
  const options = alternatives(schemas)
  // A string anywhere among the alternatives takes the text as it is: `*x`, `!x`, `x #y`, ` x ` included.
  if (options.some((schema) => TEXT_TYPES.has(schema.type))) return text
  const constant = options.find((schema) => schema.type === 'const' && names(text, schema.value))
  if (constant) return constant.value
  const number = decimalNumber(text)
  // A bitset is a number of flags as well as a list of their names.
  if (number !== undefined && options.some((schema) => NUMBER_TYPES.has(schema.type) || schema.type === 'bitset')) return number
  if ((text === 'true' || text === 'false') && options.some((schema) => schema.type === 'boolean')) return text === 'true'
  if (options.some(isStructured)) {
    throw new ValueError('needs-json', `${field} takes ${structuredWords(options)}: give it as JSON with --json (dsh settings set ${field} --json '<json>')`)
  }
  const wants = scalarWords(options)
  const code = options.some((schema) => NUMBER_TYPES.has(schema.type)) ? 'not-a-number' : options.some((schema) => schema.type === 'boolean') ? 'not-a-boolean' : 'no-constant'
  throw new ValueError(code, `${field} expects ${wants}`)
}

/**
 * Type `text` with no schema to go by (none recorded): like the value it
 * replaces when that is a number or a boolean and the text reads as one,
 * else as the text itself; with `json`, strict JSON. So `limit: 25` set to
 * `40` stays a number, and anything new is text unless `--json` says otherwise.
 * @throws {ValueError} `not-json` under `json`.
 */
export function typeLike(current: unknown, text: string, field: string, json: boolean): { value: unknown; as: string } {
  if (json) return { value: jsonValue(text, field), as: 'as the JSON given' }
  const number = decimalNumber(text)
  if (typeof current === 'number' && number !== undefined) return { value: number, as: 'as a number, like the value it replaced' }
  if (typeof current === 'boolean' && (text === 'true' || text === 'false')) return { value: text === 'true', as: 'as a boolean, like the value it replaced' }
  return { value: text, as: 'as text (--json stores a number, true/false or a structured value)' }
}
