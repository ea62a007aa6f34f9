import Schema from 'schemastery'
import { SettingsValidationError } from './errors.ts'
import { frozenCopy } from './data.ts'
import { formatPath } from './json.ts'
import type { Layer } from './layers.ts'
import { mergeLayers } from './merge.ts'
import { resolveChanged, type Resolution } from './resolve-changed.ts'
import type { Redactor } from './redact.ts'
import { validatorOf, type Kind } from './registry.ts'
import { scrubbedError, secretTexts } from './scrub.ts'
import type { SettingsSchema } from './types.ts'

/** The section a resolution concerns, for error messages. */
export interface SectionSite {
  ns: string
  scope?: string
}

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
 * Run a schema over merged data and rewrite any failure as "path: what was
 * expected". The received value never reaches the message.
 * @throws {SettingsValidationError}
 */
export function applySchema<T>(schema: SettingsSchema<T>, data: unknown, site: SectionSite): T {
  try {
    return schema(data as never)
  } catch (error) {
    throw schemaRefusal(error, site)
  }
}

/** A schema's failure as "path: what was expected", without the received value. */
export function schemaRefusal(error: unknown, site: SectionSite): SettingsValidationError {
  const path = Schema.ValidationError.is(error) ? (error.options.path ?? []) : []
  const expected = Schema.ValidationError.is(error) ? expectationOf(bareMessage(error.message, path)) : 'is invalid'
  const segments = path.map((segment) => (typeof segment === 'number' ? segment : String(segment)))
  return new SettingsValidationError({
    ...site,
    path: segments.map(String),
    reason: `is invalid at ${formatPath(segments)}: ${expected}`,
  })
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
  site: SectionSite,
  redactor?: Redactor,
): T {
  // mergeLayers returns fresh objects: schemastery writes adapted values back into its input.
  return checked(frozenCopy(applySchema(schema, mergeLayers(layers), site)), layers, validate, site, redactor)
}

/** `value` once the owner's check (if any) accepted it. */
function checked<T>(value: T, layers: readonly unknown[], validate: ((value: T) => void) | undefined, site: SectionSite, redactor?: Redactor): T {
  if (validate) {
    try {
      validate(value)
    } catch (thrown) {
      // The owner's message may quote a secret it was handed: every secret of the candidate and its layers is cut out.
      const secrets = redactor ? secretTexts(redactor, [value, ...layers]) : []
      const cause = scrubbedError(thrown, secrets)
      throw new SettingsValidationError({ ...site, path: [], reason: `was refused by its owner's check: ${cause.message}`, cause })
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
  const site = { ns: kind.ns, scope }
  const last = lastResolutions(kind)
  const at = `${scope ?? ''}\0${data.length}`
  const known = last.get(at)
  let value = known && changedOnly(kind.schema, data, known, site)
  if (value === undefined) value = frozenCopy(applySchema(kind.schema, mergeLayers(data), site))
  last.set(at, { layers: data, value })
  return checked(value, data, validate, site, kind.redactor)
}

/** {@link resolveChanged}, its refusals rewritten as {@link applySchema} rewrites them. */
function changedOnly(schema: SettingsSchema<unknown>, layers: readonly unknown[], last: Resolution, site: SectionSite): unknown {
  try {
    return resolveChanged(schema, layers, last)
  } catch (error) {
    throw schemaRefusal(error, site)
  }
}

/** Each kind's last resolution per site (scope and layer count), for {@link resolveChanged}. */
const resolutions = new WeakMap<Kind, Map<string, Resolution>>()

function lastResolutions(kind: Kind): Map<string, Resolution> {
  let map = resolutions.get(kind)
  if (!map) resolutions.set(kind, (map = new Map()))
  return map
}
