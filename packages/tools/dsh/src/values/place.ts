/**
 * Where a command's address lands in a namespace's schema: the view the
 * settings describe for it, the schema rebuilt from the view's sanitized
 * envelope as data alone (no plugin code runs), and what that schema declares
 * at the path, or why the path leaves it, with the nearest declared name.
 */
import type { SettingsSchema } from 'dsh-settings'
import { reviveEnvelope } from 'dsh-settings/revive'
import { schemaAt, type SchemaPlace, type UndeclaredPlace } from 'dsh-settings/schema-path'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import { nearestName } from './nearest.ts'
import { ValueError } from './value-error.ts'

import { LISTED_NAMES } from './view.ts'

export { viewOf } from './view.ts'


/** The view's schema rebuilt as data, or `undefined` when the view carries none that revives (its values are then unchecked). */
export function schemaOf(view: SettingsNamespaceView): SettingsSchema<any> | undefined {
  if (view.schema === undefined || view.schema === null) return undefined
  try {
    return reviveEnvelope(view.schema)
  } catch {
    return undefined
  }
}

/** What the view's schema declares at `path`, judged against the value the plugin reads; `undefined` with no schema. */
export function placeOf(view: SettingsNamespaceView, path: readonly string[]): SchemaPlace | undefined {
  const schema = schemaOf(view)
  return schema && schemaAt(schema, path, view.value)
}

/** `web-search.safeSearch.level`: a namespace and path as the command line writes them. */
export function fieldName(ns: string, path: readonly string[]): string {
  return [ns, ...path].join('.')
}

/**
 * The refusal of a path the schema does not declare: the declared level it
 * left from, the nearest declared name there (or the names there are), and
 * how to store it anyway. The undeclared key itself is not quoted.
 */
export function undeclaredError(ns: string, scope: string | undefined, path: readonly string[], place: UndeclaredPlace): ValueError {
  const level = fieldName(ns, path.slice(0, place.depth))
  const where = scope === undefined ? level : `${level} (in ${scope})`
  const force = '; --force stores it anyway, unchecked'
  if (place.reason === 'not-an-item') return new ValueError('undeclared', `${where} is a list: name an item by its number (0, 1, …)${force}`)
  if (place.reason === 'no-children') return new ValueError('undeclared', `${where} holds a single value, with no keys inside it${force}`)
  const near = nearestName(path[place.depth]!, place.names)
  const hint = near ? `did you mean ${near}?` : place.names.length ? `it declares ${place.names.slice(0, LISTED_NAMES).join(', ')}` : 'it declares no keys'
  return new ValueError('undeclared', `${where} declares no such key (${hint})${force}`)
}
