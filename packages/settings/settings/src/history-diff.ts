import { changedSections, getSection, type SectionKey } from './document.ts'
import { dataEqual } from './equal.ts'
import { isPlainObject, valueAt } from './data.ts'
import type { Redactor } from './redact.ts'
import type { SettingsDocument, SettingsFieldChange, SettingsSectionDiff } from './types.ts'

/** What a diff needs of a registered kind: its redactor, and whether a document's section resolves where it sits. */
export interface DiffKind {
  redactor: Redactor
  /** Whether the kind's section in `document` (under `scope`) resolves with its layers; one that does not is compared without values. */
  accepts(document: SettingsDocument, scope: string | undefined): boolean
}

/** The leaf fields of two plain values that differ: objects are walked key by key, anything else compares whole. */
function plainChanges(before: unknown, after: unknown, path: string[], into: SettingsFieldChange[]): void {
  if (dataEqual(before, after)) return
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)])
    for (const key of keys) plainChanges(Object.hasOwn(before, key) ? before[key] : undefined, Object.hasOwn(after, key) ? after[key] : undefined, [...path, key], into)
    return
  }
  if (before === undefined) into.push({ path, change: 'set', after })
  else if (after === undefined) into.push({ path, change: 'unset', before })
  else into.push({ path, change: 'changed', before, after })
}

/**
 * The fields of one section that differ between two versions, with values
 * for plain fields and none for secrets (found with the kind's redactor):
 * a secret is `set`, `changed` or `unset`, never shown. With `withhold` (a
 * version that does not resolve) only the fact of a difference is given.
 */
export function diffSection(redactor: Redactor, before: unknown, after: unknown, options: { withhold?: boolean } = {}): SettingsFieldChange[] {
  if (dataEqual(before, after)) return []
  // A version the schema refuses may hold a secret where the schema expects none: say that it differs, show nothing.
  if (options.withhold) return [{ path: [], change: before === undefined ? 'set' : after === undefined ? 'unset' : 'changed', withheld: true }]
  const older = redactor.redact(before)
  const newer = redactor.redact(after)
  const changes: SettingsFieldChange[] = []
  plainChanges(older.value, newer.value, [], changes)
  const slots = new Map<string, string[]>()
  for (const slot of [...older.slots, ...newer.slots]) slots.set(JSON.stringify(slot.path), slot.path)
  for (const path of slots.values()) {
    const was = older.slots.some((slot) => slot.set && dataEqual(slot.path, path))
    const is = newer.slots.some((slot) => slot.set && dataEqual(slot.path, path))
    if (!was && is) changes.push({ path, change: 'set', secret: true })
    else if (was && !is) changes.push({ path, change: 'unset', secret: true })
    else if (was && is && !dataEqual(valueAt(before, path), valueAt(after, path))) changes.push({ path, change: 'changed', secret: true })
  }
  return changes.sort((a, b) => a.path.join('\u0000').localeCompare(b.path.join('\u0000')))
}

/**
 * What differs between two documents, section by section: fields (secrets
 * without values) for sections of a registered kind, and only the fact of a
 * difference for the others.
 * @param kindOf - the registered kind of a namespace, or `undefined`.
 */
export function diffDocuments(before: SettingsDocument, after: SettingsDocument, kindOf: (ns: string) => DiffKind | undefined): SettingsSectionDiff[] {
  return changedSections(before, after).map((key: SectionKey) => {
    const where = key.scope === undefined ? { ns: key.ns } : { ns: key.ns, scope: key.scope }
    const kind = kindOf(key.ns)
    if (!kind) return { ...where, fields: [], unregistered: true as const }
    const withhold = !kind.accepts(before, key.scope) || !kind.accepts(after, key.scope)
    return { ...where, fields: diffSection(kind.redactor, getSection(before, key.ns, key.scope), getSection(after, key.ns, key.scope), { withhold }) }
  })
}
