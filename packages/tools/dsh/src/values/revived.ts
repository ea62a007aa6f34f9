/**
 * A recorded kind made usable again: its schema revived from the sanitized
 * envelope as data (no plugin code), and each instance's base with a
 * stand-in where the host's base set a secret (the catalog keeps whether it
 * was set, never its value), so a required secret the deployment file gives
 * still counts as given and reads as set.
 */
import Schema from 'schemastery'
import type { SettingsSchema } from 'dsh-settings'
import { reviveEnvelope } from 'dsh-settings/revive'
import type { CatalogInstance, CatalogKind } from 'dsh-settings-controller/catalog'

/** What stands in a base for a secret the deployment's base sets; `--show-secrets` prints it in its place. */
export const BASE_SECRET = '(set in the deployment file; the command does not read it)'

/** A namespace with no schema recorded: any section of JSON data, unjudged. */
export const RAW_SCHEMA: SettingsSchema<unknown> = Schema.dict(Schema.any())

const schemas = new WeakMap<CatalogKind, SettingsSchema<unknown>>()

/**
 * The kind's schema, revived once.
 * @throws {EnvelopeReviveError} for a recorded envelope that is not one.
 */
export function schemaOfKind(kind: CatalogKind): SettingsSchema<unknown> {
  let schema = schemas.get(kind)
  if (!schema) schemas.set(kind, (schema = reviveEnvelope(kind.schema)))
  return schema
}

/** `value` with `leaf` at `path`, objects made where nothing is; a path through a non-container is left alone. */
function withValueAt(value: unknown, path: readonly string[], leaf: unknown): unknown {
  if (!path.length) return leaf
  const [key, ...rest] = path as [string, ...string[]]
  if (Array.isArray(value)) {
    const index = /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : -1
    if (index < 0 || index >= value.length) return value
    const copy = [...value]
    copy[index] = withValueAt(copy[index], rest, leaf)
    return copy
  }
  if (value !== undefined && (typeof value !== 'object' || value === null)) return value
  const record = (value ?? {}) as Record<string, unknown>
  return { ...record, [key]: withValueAt(Object.hasOwn(record, key) ? record[key] : undefined, rest, leaf) }
}

/** The instance's recorded base with {@link BASE_SECRET} where the host's base set a secret; `undefined` when it had none. */
export function baseOf(instance: CatalogInstance): unknown {
  let base: unknown = instance.base === undefined ? undefined : structuredClone(instance.base)
  for (const secret of instance.secrets) if (secret.set) base = withValueAt(base, secret.path, BASE_SECRET)
  return base
}
