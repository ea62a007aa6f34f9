/**
 * The YAML 1.2 core schema's rules for plain scalars, as `yaml` applies them
 * with the provider's parse options: one definition for every place that must
 * know whether a plain key or value reads as a string (the fast reader, and
 * where a large entry may be cut).
 */

/** YAML 1.2 core schema: the plain scalars that are `null`. */
export const CORE_NULL = /^(?:~|null|Null|NULL)?$/
/** YAML 1.2 core schema: the booleans. */
export const CORE_BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/
/** YAML 1.2 core schema: decimal, octal (`0o`) and hexadecimal (`0x`) integers. */
export const CORE_INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/
/** YAML 1.2 core schema: floats, with or without an exponent, and the infinities and not-a-number. */
export const CORE_FLOAT = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/

/**
 * Whether a plain scalar may be `null` by {@link CORE_NULL}: empty, or starting
 * with `~` or `n`/`N` (one comparison settles most scalars, which are words).
 */
export function mayBeNull(text: string): boolean {
  const first = text.charCodeAt(0)
  return text.length === 0 || first === 0x7e || first === 0x6e || first === 0x4e
}

/** Whether a plain scalar may be a boolean by {@link CORE_BOOL}: four or five characters starting with `t`, `T`, `f` or `F`. */
export function mayBeBool(text: string): boolean {
  const first = text.charCodeAt(0)
  return text.length >= 4 && text.length <= 5 && (first === 0x74 || first === 0x54 || first === 0x66 || first === 0x46)
}

/** Whether a plain scalar may be a number by {@link CORE_INT} or {@link CORE_FLOAT}: it starts with a sign, a dot or a digit. */
export function mayBeNumber(text: string): boolean {
  const first = text.charCodeAt(0)
  return (first >= 0x30 && first <= 0x39) || first === 0x2d || first === 0x2b || first === 0x2e
}

/** Whether a plain scalar with this text resolves to something other than a string under the core schema. */
export function isCoreNonString(text: string): boolean {
  return (mayBeNull(text) && CORE_NULL.test(text)) || (mayBeBool(text) && CORE_BOOL.test(text)) || (mayBeNumber(text) && (CORE_INT.test(text) || CORE_FLOAT.test(text)))
}

/** The value of a core-schema integer (decimal, `0o` octal or `0x` hexadecimal). */
function coreInt(text: string): number {
  if (text.startsWith('0o')) return parseInt(text.slice(2), 8)
  if (text.startsWith('0x')) return parseInt(text.slice(2), 16)
  return parseInt(text, 10)
}

/** The value of a core-schema float, the infinities and not-a-number included. */
function coreFloat(text: string): number {
  const lower = text.toLowerCase()
  if (lower === '.nan') return Number.NaN
  if (lower.endsWith('.inf')) return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
  return parseFloat(text)
}

/** What a plain scalar reads as by the YAML 1.2 core schema: `null`, a boolean, a number, or `undefined` for a string. */
export function coreScalar(text: string): null | boolean | number | undefined {
  if (mayBeNull(text) && CORE_NULL.test(text)) return null
  if (mayBeBool(text) && CORE_BOOL.test(text)) return text === 'true' || text === 'True' || text === 'TRUE'
  if (!mayBeNumber(text)) return undefined
  if (CORE_INT.test(text)) return coreInt(text)
  return CORE_FLOAT.test(text) ? coreFloat(text) : undefined
}
