import { changedSections, getSection, type SectionKey } from './document.ts'
import { dataEqual } from './equal.ts'
import { isPlainObject, valueAt, withoutPaths } from './data.ts'
import { sectionLayerData } from './layers.ts'
import { SECTION_VERSION_KEY, type SettingsSectionVersionChange } from './migration-types.ts'
import { storedVersion } from './migrations.ts'
import type { Redactor } from './redact.ts'
import type { SettingsDocument, SettingsFieldChange, SettingsSectionDiff } from './types.ts'

/** What a diff needs of a registered kind: its redactor, and whether a document's section resolves where it sits. */
export interface DiffKind {
  redactor: Redactor
  /** Whether the kind's section in `document` (under `scope`) resolves with its layers; one that does not is compared without values. */
  accepts(document: SettingsDocument, scope: string | undefined): boolean
  /** The kind's migration steps from one version to a later one: their names, and the same as data. */
  steps?(from: number, to: number): Pick<SettingsSectionVersionChange, 'steps' | 'changes'>
}

/** A section without the version it names: that is no field, and a difference reports it apart. */
function withoutVersion(section: unknown): unknown {
  return isPlainObject(section) && Object.hasOwn(section, SECTION_VERSION_KEY) ? withoutPaths(section, [[SECTION_VERSION_KEY]]) : section
}

/** How a section's stored version differs between two documents, or `undefined` when it does not. */
function versionChange(before: unknown, after: unknown, kind: DiffKind): SettingsSectionVersionChange | undefined {
  const was = storedVersion(before)
  const is = storedVersion(after)
  if (was === is || was === undefined || is === undefined) return undefined
  return was < is && kind.steps ? { before: was, after: is, ...kind.steps(was, is) } : { before: was, after: is }
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

/** How a place changed between two values, or `undefined` when it did not. */
function changeAt(before: unknown, after: unknown, path: readonly string[]): SettingsFieldChange['change'] | undefined {
  const was = valueAt(before, path)
  const is = valueAt(after, path)
  if (was === undefined) return is === undefined ? undefined : 'set'
  if (is === undefined) return 'unset'
  return dataEqual(was, is) ? undefined : 'changed'
}

/**
 * The fields of one section that differ between two versions, with values
 * for plain fields and none for secrets (found with the kind's redactor) or
 * for fields the schema does not declare: those are `set`, `changed` or
 * `unset`, never shown. A section left empty (`null`) compares as `{}`, as
 * does an absent one, so each field it gains or loses is listed. With
 * `withhold` (a version that does not resolve) only the fact of a difference is given.
 */
export function diffSection(redactor: Redactor, before: unknown, after: unknown, options: { withhold?: boolean } = {}): SettingsFieldChange[] {
  if (dataEqual(before, after)) return []
  const was = sectionLayerData(withoutVersion(before))
  const is = sectionLayerData(withoutVersion(after))
  // A version the schema refuses may hold a secret where the schema expects none: say that it differs, show nothing.
  if (options.withhold) return [{ path: [], change: was === undefined ? 'set' : is === undefined ? 'unset' : 'changed', withheld: true }]
  const oldSection = was ?? {}
  const newSection = is ?? {}
  const older = redactor.redact(oldSection)
  const newer = redactor.redact(newSection)
  // Values under undeclared keys are left out of the plain comparison, and listed below by path only.
  const undeclared = new Map<string, string[]>()
  for (const path of [...redactor.undeclared(oldSection), ...redactor.undeclared(newSection)]) undeclared.set(JSON.stringify(path), path)
  const changes: SettingsFieldChange[] = []
  plainChanges(withoutPaths(older.value, [...undeclared.values()]), withoutPaths(newer.value, [...undeclared.values()]), [], changes)
  for (const path of undeclared.values()) {
    const change = changeAt(oldSection, newSection, path)
    if (change) changes.push({ path, change, undeclared: true })
  }
  const slots = new Map<string, string[]>()
  for (const slot of [...older.slots, ...newer.slots]) slots.set(JSON.stringify(slot.path), slot.path)
  for (const path of slots.values()) {
    const wasSet = older.slots.some((slot) => slot.set && dataEqual(slot.path, path))
    const isSet = newer.slots.some((slot) => slot.set && dataEqual(slot.path, path))
    if (!wasSet && isSet) changes.push({ path, change: 'set', secret: true })
    else if (wasSet && !isSet) changes.push({ path, change: 'unset', secret: true })
    else if (wasSet && isSet && !dataEqual(valueAt(oldSection, path), valueAt(newSection, path))) changes.push({ path, change: 'changed', secret: true })
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
    const was = getSection(before, key.ns, key.scope)
    const is = getSection(after, key.ns, key.scope)
    const version = versionChange(was, is, kind)
    return { ...where, fields: diffSection(kind.redactor, was, is, { withhold }), ...(version ? { version } : {}) }
  })
}
