import { SCOPES_KEY, SettingsChanges, type SettingsDocument, type SettingsSectionChange } from 'dsh-settings'

type Map = Record<string, unknown>

const isMap = (value: unknown): value is Map => typeof value === 'object' && value !== null && !Array.isArray(value)
const mapOf = (value: unknown): Map => (isMap(value) ? value : {})
const own = (map: Map, key: string) => (Object.hasOwn(map, key) ? map[key] : undefined)
const keysOf = (a: Map, b: Map) => new Set([...Object.keys(a), ...Object.keys(b)])

/**
 * The sections of `next` that are not the very objects `prev` held: what the
 * seam needs to compare when the document changed from `prev` to `next`. A
 * parse of an edited text shares every entry the edit did not touch (see
 * `rereadChanged`), and a write's document shares every section it did not
 * change, so a hand edit of one section hands the seam that section alone;
 * a whole parse hands it every section, which it compares as before. A
 * section in `prev` and not in `next` is handed as removed (`undefined`).
 */
export function sectionChanges(prev: SettingsDocument, next: SettingsDocument): SettingsChanges {
  const changes: SettingsSectionChange[] = []
  for (const ns of keysOf(prev, next)) {
    if (ns === SCOPES_KEY) continue
    const section = own(next, ns)
    if (section !== own(prev, ns)) changes.push({ ns, section })
  }
  const before = own(prev, SCOPES_KEY)
  const after = own(next, SCOPES_KEY)
  if (before === after) return new SettingsChanges(changes)
  for (const scope of keysOf(mapOf(before), mapOf(after))) {
    const was = mapOf(own(mapOf(before), scope))
    const now = mapOf(own(mapOf(after), scope))
    if (was === now) continue
    for (const ns of keysOf(was, now)) {
      const section = own(now, ns)
      if (section !== own(was, ns)) changes.push({ ns, scope, section })
    }
  }
  return new SettingsChanges(changes)
}
