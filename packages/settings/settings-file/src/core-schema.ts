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

/** Whether a plain scalar with this text resolves to something other than a string under the core schema. */
export function isCoreNonString(text: string): boolean {
  return CORE_NULL.test(text) || CORE_BOOL.test(text) || CORE_INT.test(text) || CORE_FLOAT.test(text)
}

