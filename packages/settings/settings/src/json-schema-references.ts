/**
 * The reference a document may hold wherever a value is allowed, as the editor
 * schema says it: `{ "$secret": name }`, `{ "$env": variable }` or
 * `{ "$file": path }` (the JSON forms of YAML's `!secret`, `!env` and `!file`),
 * which the provider resolves before the seam sees the value.
 */
import type { JsonSchema } from './json-schema.ts'

/**
 * The `$defs` entry the reference schema is written under: a dot keeps it
 * apart from every namespace (a namespace's section is a `$defs` entry too).
 */
export const REFERENCE_DEF = 'dsh.reference'

/** What each reference key names, for an editor's hover. */
const REFERENCE_KEYS: readonly (readonly [key: string, description: string])[] = [
  ['$secret', 'The name the value is kept under in the deployment’s secret store (secrets.yaml or the system keychain).'],
  ['$env', 'An environment variable of the host that holds the value.'],
  ['$file', 'The path of a file that holds the value (one trailing newline is dropped).'],
]

/** The schema of a reference: an object of exactly one reference key, naming a non-empty name. */
export function referenceSchema(): JsonSchema {
  return {
    description: 'A reference instead of the value: a secret store name, an environment variable, or a file.',
    anyOf: REFERENCE_KEYS.map(([key, description]) => ({
      type: 'object',
      properties: { [key]: { description, type: 'string', minLength: 1 } },
      required: [key],
      additionalProperties: false,
    })),
  }
}

/**
 * `core`, made to take a reference as well: a branch is added to a bare
 * `anyOf`, or `core` becomes one branch of a new one. A schema that takes any
 * value already takes a reference; one that takes no value stays so (whatever
 * a reference resolves to, the seam refuses it there).
 */
export function orReference(core: JsonSchema): JsonSchema {
  const ref: JsonSchema = { $ref: `#/$defs/${REFERENCE_DEF}` }
  const keys = Object.keys(core)
  if (keys.length === 0) return core
  if (keys.length === 1 && core.not && Object.keys(core.not).length === 0) return core
  if (keys.length === 1 && core.anyOf) {
    core.anyOf.push(ref)
    return core
  }
  return { anyOf: [core, ref] }
}
