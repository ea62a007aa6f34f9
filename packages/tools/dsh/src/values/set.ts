/**
 * What `dsh settings set` writes: the value given (an argument, or standard
 * input / a prompt that does not echo when the argument is left out) typed by
 * the schema at its path, a secret never taken from the command line, a path
 * the schema does not declare refused with the nearest declared name unless
 * `--force`, and a value the field refuses stopped before anything is written.
 * No refusal or note quotes the value, whole or in part.
 */
import { valueAt } from 'dsh-settings/data'
import { refusalAt } from 'dsh-settings/schema-path'
import type { CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'
import { parseAddress } from './address.ts'
import { sectionName } from './format.ts'
import { readValue } from './input.ts'
import { fieldName, placeOf, undeclaredError, viewOf } from './place.ts'
import { typeLike, typeValue } from './typing.ts'
import { ValueError } from './value-error.ts'

/** One `set` as the command line asks it. */
export interface SetRequest {
  address: string
  /** The value's text; absent: read from standard input or a prompt. */
  text?: string
  scope?: string
  /** The value is strict JSON (any field), the only way a structured field takes one. */
  json: boolean
  /** Store at a path the schema does not declare, unchecked. */
  force: boolean
}

/** A write ready to send: the path op's parts, and the notes to print once it is taken. */
export interface PlannedSet {
  ns: string
  path: string[]
  value: unknown
  notes: string[]
}

/** The refusal of a secret (or a value holding secrets) given as an argument, saying how to give it instead. */
function secretArgument(field: string, secret: boolean): ValueError {
  const why = 'arguments stay in shell history and, while the command runs, in the process list'
  if (!secret) {
    return new ValueError('secret-argument', `${field} holds secrets, which are not taken from the command line (${why}): give it as JSON on standard input (dsh settings set ${field} --json < value.json)`)
  }
  return new ValueError(
    'secret-argument',
    `${field} is a secret, which is not taken from the command line (${why}): give it on standard input (printf '%s' "$VALUE" | dsh settings set ${field}), or run dsh settings set ${field} in a terminal to be asked for it without echo`,
  )
}

/**
 * Work out the write `request` asks for against the namespace's schema, as the
 * module's comment says; reads standard input only once the path is known to
 * be declared (or forced) and not refused as a secret argument.
 * @throws {ValueError} for a value or path refused before writing; {@link AddressError} for a malformed address.
 */
export async function planSet(access: SettingsAccess, request: SetRequest, io: CliIo): Promise<PlannedSet> {
  const { ns, path } = parseAddress(request.address, { pathRequired: true })
  const view = await viewOf(access, ns, request.scope)
  const place = placeOf(view, path)
  const field = fieldName(ns, path)
  if (place && !place.declared && !request.force) throw undeclaredError(ns, request.scope, path, place)
  const declared = place?.declared ? place : undefined
  if (request.text !== undefined && declared?.holdsSecret) throw secretArgument(field, declared.secret)
  const text = request.text ?? (await readValue(io.stdin, field))
  if (!declared) {
    // Nothing to type it by: like what it replaces, else text; said to be unchecked.
    const raw = typeLike(valueAt(view.value, path), text, field, request.json)
    const why = place ? `the schema does not declare ${field}: it was stored unchecked (--force)` : `no schema is known for ${sectionName(ns, request.scope)}: ${field} was stored unchecked`
    return { ns, path, value: raw.value, notes: [`note: ${why}, ${raw.as}`] }
  }
  const value = typeValue(declared.schemas, text, field, request.json)
  const refusal = refusalAt(declared, value)
  if (refusal) throw new ValueError('refused', `${fieldName(ns, [...path, ...refusal.path])} is invalid: ${refusal.expected}`)
  return { ns, path, value, notes: [] }
}
