import { dataEqual, SCOPES_KEY } from 'dsh-settings'

type Sections = Record<string, unknown>

const isMap = (value: unknown): value is Sections => typeof value === 'object' && value !== null && !Array.isArray(value)
const own = (map: Sections, key: string) => Object.prototype.hasOwnProperty.call(map, key)

/** Set or delete an own key without ever touching a prototype (`__proto__` stays data). */
function put(map: Sections, key: string, present: boolean, value: unknown): void {
  if (present) Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true })
  else delete map[key]
}

/** Fold into `into` the sections of one level that `late` added or changed relative to `base`. */
function foldLevel(base: Sections, late: Sections, into: Sections): boolean {
  let changed = false
  // A section missing from the late file is kept: a save cut short is far likelier than a deletion timed with a write.
  for (const key of Object.keys(late)) {
    if (own(base, key) && dataEqual(base[key], late[key])) continue
    put(into, key, true, late[key])
    changed = true
  }
  return changed
}

/**
 * A late edit: an editor wrote into the file this provider had just replaced,
 * so its bytes landed in the kept old version instead of the document. Merge it
 * at section level: every section (a global namespace, or one namespace of one
 * scope) the editor added or changed relative to the version it started from
 * (`base`) is taken from the editor (`late`); every other section keeps what the
 * document holds now (`current`), which includes the writes made meanwhile. A
 * section the late file lacks is kept, never removed.
 * @returns the merged document, or `current` itself when the editor changed nothing.
 */
export function mergeLateEdit(base: Sections, late: Sections, current: Sections): Sections {
  const strip = (doc: Sections) => {
    const copy: Sections = {}
    for (const key of Object.keys(doc)) if (key !== SCOPES_KEY) put(copy, key, true, doc[key])
    return copy
  }
  const merged = strip(current)
  let changed = foldLevel(strip(base), strip(late), merged)
  const baseScopes = isMap(base[SCOPES_KEY]) ? base[SCOPES_KEY] : {}
  const lateScopes = isMap(late[SCOPES_KEY]) ? late[SCOPES_KEY] : {}
  const scopes: Sections = isMap(current[SCOPES_KEY]) ? { ...current[SCOPES_KEY] } : {}
  for (const scope of Object.keys(lateScopes)) {
    const from = isMap(baseScopes[scope]) ? baseScopes[scope] : {}
    const to = isMap(lateScopes[scope]) ? lateScopes[scope] : {}
    const into: Sections = isMap(scopes[scope]) ? { ...scopes[scope] } : {}
    if (!foldLevel(from, to, into)) continue
    changed = true
    put(scopes, scope, true, into)
  }
  if (!changed) return current
  if (own(current, SCOPES_KEY) || Object.keys(scopes).length) put(merged, SCOPES_KEY, true, scopes)
  return merged
}
