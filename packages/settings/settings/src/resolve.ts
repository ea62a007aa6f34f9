import Schema from 'schemastery'
import { SettingsValidationError } from './errors.ts'
import { copyData, frozenCopy } from './data.ts'
import type { SectionKey } from './document.ts'
import { formatPath } from './json.ts'
import type { Layer } from './layers.ts'
import { mergeLayers } from './merge.ts'
import { resolveChanged, type Resolution } from './resolve-changed.ts'
import type { Redactor } from './redact.ts'
import { findRefusal, refusalOf, type Refusal } from './refusal.ts'
import { validatorOf, type Kind } from './registry.ts'
import { scrubbedError, secretTexts } from './scrub.ts'
import type { SettingsSchema } from './types.ts'

/**
 * The part of a schemastery message that describes the schema, never the
 * received value: messages quote what they got, which may be a secret.
 */
export function expectationOf(message: string): string {
  if (message === 'missing required value') return message
  if (message.startsWith('expect string to match regexp ')) return message
  if (message.startsWith('unsupported type ')) return message
  const cut = message.indexOf(' but got ')
  if (message.startsWith('expected ') && cut > 0) return message.slice(0, cut)
  return 'is invalid'
}

/** Strip the `$`-path prefix schemastery puts in front of a message. */
function bareMessage(message: string, path: readonly PropertyKey[]): string {
  if (!path.length) return message
  let prefix = '$'
  for (const segment of path) {
    if (typeof segment === 'string') prefix += '.' + segment
    else if (typeof segment === 'number') prefix += '[' + segment + ']'
    else prefix += `[Symbol(${segment.toString()})]`
  }
  return message.startsWith(prefix + ' ') ? message.slice(prefix.length + 1) : message
}

/**
 * Run a schema over `data` (a copy of it: `data` is left as it is) and
 * rewrite any failure as "path: what was expected", at the field the data
 * means (see {@link schemaRefusal}). The received value never reaches the message.
 * @throws {SettingsValidationError}
 */
export function applySchema<T>(schema: SettingsSchema<T>, data: unknown, key: SectionKey): T {
  return resolveFresh(schema, () => copyData(data), key)
}

/**
 * Run a schema over `fresh()`; on a refusal, take `fresh()` again (schemastery
 * writes adapted values into what it resolves) to find where the data means it.
 */
function resolveFresh<T>(schema: SettingsSchema<T>, fresh: () => unknown, key: SectionKey): T {
  try {
    return schema(fresh() as never)
  } catch (error) {
    throw schemaRefusal(error, key, { schema, data: fresh() })
  }
}

/**
 * A schema's failure as "path: what was expected", without the received
 * value. Given the schema and the data it refused, the refusal is looked for
 * as deep as the data's meaning goes (`findRefusal`): a union the data means
 * one branch of is refused at that branch's field, not as a whole.
 */
export function schemaRefusal(error: unknown, key: SectionKey, refused?: { schema: Schema; data: unknown }): SettingsValidationError {
  const found = refusalOf(error) && refused ? deepestRefusal(refused.schema, refused.data) : undefined
  const refusal = found ?? refusalOf(error)
  const path = refusal?.path ?? []
  const expected = refusal ? (refusal.expected ?? expectationOf(bareMessage(refusal.message, path))) : 'is invalid'
  const segments = path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))
  return new SettingsValidationError({
    ...key,
    path: segments.map(String),
    reason: `is invalid at ${formatPath(segments)}: ${expected}`,
  })
}

/** {@link findRefusal}, or `undefined` when the walk itself throws (a transform's callback on a branch's data). */
function deepestRefusal(schema: Schema, data: unknown): Refusal | undefined {
  try {
    return findRefusal(schema, data)
  } catch {
    return undefined
  }
}

/**
 * Resolve one instance: merge the layers (lowest first), apply the schema and
 * its defaults, freeze a private copy, then run the kind's check on it. A
 * refusal's message (and its `cause`) carry no secret of the candidate or its
 * layers, when the kind's `redactor` is given.
 * @returns the deep-frozen resolved value.
 * @throws {SettingsValidationError} when the schema or the check refuses the value.
 */
export function resolveValue<T>(
  schema: SettingsSchema<T>,
  layers: readonly unknown[],
  validate: ((value: T) => void) | undefined,
  key: SectionKey,
  redactor?: Redactor,
): T {
  // mergeLayers returns fresh objects: schemastery writes adapted values back into its input.
  return checked(frozenCopy(resolveFresh(schema, () => mergeLayers(layers), key)), layers, validate, key, redactor)
}

/** `value` once the owner's check (if any) accepted it. */
function checked<T>(value: T, layers: readonly unknown[], validate: ((value: T) => void) | undefined, key: SectionKey, redactor?: Redactor): T {
  if (validate) {
    try {
      validate(value)
    } catch (thrown) {
      // The owner's message may quote a secret it was handed: every secret of the candidate and its layers is cut out.
      const secrets = redactor ? secretTexts(redactor, [value, ...layers]) : []
      const cause = scrubbedError(thrown, secrets)
      throw new SettingsValidationError({ ...key, path: [], reason: `was refused by its owner's check: ${cause.message}`, cause })
    }
  }
  return value
}

/**
 * Resolve a kind over named layers (see `layersAt`), judged by the kind's
 * check unless another is given.
 * @throws {SettingsValidationError} when the schema or the check refuses the value.
 */
export function resolveKind(
  kind: Kind,
  layers: readonly Layer[],
  scope: string | undefined,
  validate: ((value: any) => void) | undefined = validatorOf(kind),
): unknown {
  const data = layers.map((layer) => layer.data)
  const key: SectionKey = { ns: kind.ns, scope }
  const last = lastResolutions(kind)
  const at = `${scope ?? ''}\0${data.length}`
  const known = last.get(at)
  let value = known && changedOnly(kind.schema, data, known)
  if (value === undefined) value = frozenCopy(resolveFresh(kind.schema, () => mergeLayers(data), key))
  last.set(at, { layers: data, value })
  return checked(value, data, validate, key, kind.redactor)
}

/**
 * {@link resolveChanged}; `undefined` (resolve whole) when it refuses, so the
 * refusal is found over the whole merged section as {@link resolveFresh} finds it.
 */
function changedOnly(schema: SettingsSchema<unknown>, layers: readonly unknown[], last: Resolution): unknown {
  try {
    return resolveChanged(schema, layers, last)
  } catch {
    return undefined
  }
}

/** Each kind's last resolution per scope and layer count, for {@link resolveChanged}. */
const resolutions = new WeakMap<Kind, Map<string, Resolution>>()

function lastResolutions(kind: Kind): Map<string, Resolution> {
  let map = resolutions.get(kind)
  if (!map) resolutions.set(kind, (map = new Map()))
  return map
}
