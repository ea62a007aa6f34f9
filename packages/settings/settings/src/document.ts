import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { dataEqual } from './equal.ts'
import { NAMESPACE_PATTERN, PROTOTYPE_KEYS } from './ids.ts'
import { isOwned, markOwned } from './owned.ts'
import { copyData, isPlainObject, setOwn } from './data.ts'
import type { SettingsDocument } from './types.ts'

/** The document key that holds scoped sections. */
export const SCOPES_KEY = 'scopes'

/** One section of the document: a namespace, globally or under a named scope. */
export interface SectionKey {
  ns: string
  scope?: string
}

/** A stable map key for a section. */
export function sectionId(ns: string, scope?: string): string {
  return scope === undefined ? ns : `${scope}\u0000${ns}`
}

function own(record: unknown, key: string): unknown {
  return isPlainObject(record) && Object.hasOwn(record, key) ? record[key] : undefined
}

/** The raw section stored for `ns` (under `scope` when given), read through own properties only. */
export function getSection(doc: SettingsDocument, ns: string, scope?: string): unknown {
  if (scope === undefined) return own(doc, ns)
  return own(own(own(doc, SCOPES_KEY), scope), ns)
}

/**
 * Where resolution reads raw sections from: a whole document, or a view of one
 * with changes on top (a write pass's overlay). Answers `undefined` for a
 * section that is not stored.
 */
export type SectionSource = SettingsDocument | ((ns: string, scope?: string) => unknown)

/** Read one raw section from a source. */
export function sectionFrom(source: SectionSource, ns: string, scope?: string): unknown {
  return typeof source === 'function' ? source(ns, scope) : getSection(source, ns, scope)
}

/**
 * Set (or, with `undefined`, remove) one section of a document in place: the
 * root and `scopes` maps change, the sections themselves never do. For a
 * document its caller owns (the seam's committed one, a provider's cache, a
 * copy being built).
 */
export function putSection(doc: SettingsDocument, key: SectionKey, section: unknown): void {
  let sections: Record<string, unknown> = doc
  if (key.scope !== undefined) {
    // Own keys only: a scope named `__proto__` (a hand-written document may hold one) would otherwise reach
    // `Object.prototype` and put the section there, into every object of the process.
    if (!isPlainObject(own(doc, SCOPES_KEY))) setOwn(doc, SCOPES_KEY, {})
    const scopes = doc[SCOPES_KEY] as Record<string, unknown>
    if (!isPlainObject(own(scopes, key.scope))) setOwn(scopes, key.scope, {})
    sections = scopes[key.scope] as Record<string, unknown>
  }
  if (section === undefined) delete sections[key.ns]
  else setOwn(sections, key.ns, section)
}

/**
 * A new document: `doc` with changed sections put in (`undefined` removes
 * one). The root is copied, and so are the `scopes` map and each scope's map a
 * change touches; `doc` is not changed, and every other map and every section
 * object is shared.
 */
export function documentWith(doc: SettingsDocument, changes: Iterable<SectionKey & { section: unknown }>): SettingsDocument {
  const next: SettingsDocument = { ...doc }
  let scopes: Record<string, unknown> | undefined
  const copied = new Set<string>()
  for (const change of changes) {
    if (change.scope !== undefined) {
      const stored = own(doc, SCOPES_KEY)
      if (!scopes) setOwn(next, SCOPES_KEY, (scopes = isPlainObject(stored) ? { ...stored } : {}))
      if (!copied.has(change.scope)) {
        const sections = own(scopes, change.scope)
        setOwn(scopes, change.scope, isPlainObject(sections) ? { ...sections } : {})
        copied.add(change.scope)
      }
    }
    putSection(next, change, change.section)
  }
  return next
}

/** A key as a warning shows it: quoted, and cut short (a key is the user's text, and may be long). */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)
}

/**
 * Copy a document handed over by a provider into one the seam can own, and
 * list what is wrong with its shape, each problem as a sentence naming the
 * key and the rule it breaks (never a value). A non-object document reads as
 * empty; a non-object `scopes` map or scope entry is kept as stored (so a write
 * does not drop it) but reads as holding no sections, silently when it is
 * `null` (an empty map in YAML) and with a problem otherwise; a key that is not a
 * namespace, or a scope id that is not `<kind>/<id>`, is kept and ignored.
 *
 * A section that is the very object `previous` holds at the same place (a
 * provider handing back the document the seam gave it) is reused, not copied:
 * the seam never mutates its sections, so a write costs what it changed, not
 * the size of the document.
 */
export function adoptDocument(input: unknown, previous: SettingsDocument = {}): { doc: SettingsDocument; problems: string[] } {
  const problems: string[] = []
  if (!isPlainObject(input)) {
    if (input !== undefined && input !== null) problems.push('the document is not a map of namespace sections; reading it as empty')
    return { doc: {}, problems }
  }
  const doc = adoptSections(input, previous)
  for (const key of Object.keys(doc)) {
    if (key !== SCOPES_KEY && !NAMESPACE_PATTERN.test(key)) problems.push(`key ${shownKey(key)} is not a namespace (it must match ${NAMESPACE_PATTERN}); it is ignored`)
  }
  const scopes = own(doc, SCOPES_KEY)
  // `null` is an empty map (YAML's `scopes:` with every scope commented out): read as empty, nothing to report.
  if (scopes !== undefined && scopes !== null && !isPlainObject(scopes)) {
    problems.push(`"${SCOPES_KEY}" is not a map of scope ids; reading it as empty`)
  } else if (scopes) {
    for (const scope of Object.keys(scopes)) {
      const sections = scopes[scope]
      if (!SCOPE_ID_PATTERN.test(scope)) problems.push(`scope ${shownKey(scope)} is not a scope id (it must be <kind>/<id>, matching ${SCOPE_ID_PATTERN}); it is ignored`)
      else if (sections === null) continue
      else if (!isPlainObject(sections)) problems.push(`scope ${shownKey(scope)} is not a map of namespace sections; reading it as empty`)
      else {
        for (const key of Object.keys(sections)) {
          if (!NAMESPACE_PATTERN.test(key)) problems.push(`key ${shownKey(key)} in scope ${shownKey(scope)} is not a namespace (it must match ${NAMESPACE_PATTERN}); it is ignored`)
        }
      }
    }
  }
  return { doc, problems }
}

/** A shallow copy of one map of sections, copying only the entries `previous` does not hold as the same object. */
function reuseOrCopy(input: Record<string, unknown>, previous: unknown, skip?: string): Record<string, unknown> {
  const known = isPlainObject(previous) ? previous : undefined
  const result: Record<string, unknown> = {}
  for (const key of Object.keys(input)) {
    // The `scopes` map is adopted scope by scope by the caller, not copied whole here; its place in key order is kept.
    if (key === skip) {
      setOwn(result, key, undefined)
      continue
    }
    const value = input[key]
    setOwn(result, key, known && Object.hasOwn(known, key) && known[key] === value ? value : copyAdopted(value))
  }
  return result
}

/** The seam's copy of each object a provider handed over (and of each copy, itself). */
const adopted = new WeakMap<object, unknown>()

/**
 * The seam's own copy of a section a provider hands over, made once per
 * object: a part the provider hands again (a store that changed one path of a
 * section and shares the rest, as the file provider's partial reads do) is the
 * copy made the first time, so a change costs a copy of its path, and what did
 * not change stays identical for whatever compares or resolves it next.
 * Providers never change what they handed over, so a copy never goes stale.
 */
function copyAdopted(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || isOwned(value)) return value
  const known = adopted.get(value)
  if (known !== undefined) return known
  if (!Array.isArray(value) && !isPlainObject(value)) return copyData(value)
  let copy: unknown
  if (Array.isArray(value)) {
    copy = value.map(copyAdopted)
  } else {
    const result: Record<string, unknown> = {}
    for (const key of Object.keys(value)) setOwn(result, key, copyAdopted(value[key]))
    copy = result
  }
  adopted.set(value, copy)
  adopted.set(copy as object, copy)
  return copy
}

/**
 * Give the seam a value a provider built for it alone (a fresh parse of its
 * text) and never changes afterwards, so the seam takes it without a copy.
 * It is walked once: the document, each section and each section's fields
 * that hold only plain data and no prototype key count as the seam's own
 * copy (see owned.ts), so adopting the value, or sections and fields of it
 * given again later, copies nothing, and resolution does not walk them again
 * for prototype keys. Parts already owned are not walked again. Anything
 * else in it (a `Date`, a `__proto__` key) leaves the containers above it to
 * be copied and checked as before.
 * @returns `value` itself.
 */
export function transferToSeam<T>(value: T): T {
  if (!isContainer(value) || isOwned(value) || adopted.has(value)) return value
  // Depth first, deciding each container after what it holds (an explicit stack: a deep value must not
  // overflow the call stack). `keys` is undefined for an array, whose items are walked by index.
  type Frame = { node: Record<string, unknown> | unknown[]; keys: string[] | undefined; next: number; clean: boolean; mark: boolean; scoped: boolean; depth: number }
  const frames: Frame[] = []
  const open = (node: Record<string, unknown> | unknown[], depth: number, scoped: boolean) => {
    const keys = Array.isArray(node) ? undefined : Object.keys(node)
    // Only the containers a lookup starts from are marked: the document, its sections and their fields
    // (a mark is a weak-set entry, which costs more than the walk; what lies below an owned part is owned).
    const mark = depth <= 2 || (scoped && depth <= 4)
    frames.push({ node, keys, next: 0, clean: keys === undefined || !keys.some((key) => PROTOTYPE_KEYS.has(key)), mark, scoped, depth })
  }
  open(value as Record<string, unknown> | unknown[], 0, false)
  while (frames.length) {
    const frame = frames[frames.length - 1]!
    const size = frame.keys ? frame.keys.length : (frame.node as unknown[]).length
    if (frame.next < size) {
      const key = frame.keys?.[frame.next]
      const child = key !== undefined ? (frame.node as Record<string, unknown>)[key] : (frame.node as unknown[])[frame.next]
      frame.next++
      if (typeof child !== 'object' || child === null || isOwned(child)) continue
      // A container the seam copied or made before is not known to be free of prototype keys: the one above stays unowned.
      if (adopted.has(child) || !isContainer(child)) frame.clean = false
      // Below the marked levels, a container of scalars only (a list's records) is decided on the spot: no frame, no mark.
      else if ((frame.depth >= 4 || (frame.depth >= 2 && !frame.scoped)) && holdsScalarsOnly(child)) continue
      else open(child as Record<string, unknown> | unknown[], frame.depth + 1, frame.scoped || (frame.depth === 0 && key === SCOPES_KEY))
      continue
    }
    frames.pop()
    if (frame.clean && frame.mark) markOwned(frame.node)
    else if (!frame.clean && frames.length) frames[frames.length - 1]!.clean = false
  }
  return value
}

/**
 * The former name of {@link transferToSeam}, kept while the file provider moves over.
 * @deprecated use `transferToSeam`.
 */
export const handOver: <T>(value: T) => T = transferToSeam

/** Whether a plain object or array holds nothing but scalars under keys that are not prototype keys. */
function holdsScalarsOnly(container: object): boolean {
  if (Array.isArray(container)) {
    for (const item of container) if (typeof item === 'object' && item !== null) return false
    return true
  }
  // `for…in` lists a plain object's own keys here (transferToSeam takes only plain objects) without making an array of them.
  for (const key in container) {
    const value = (container as Record<string, unknown>)[key]
    if (PROTOTYPE_KEYS.has(key) || (typeof value === 'object' && value !== null)) return false
  }
  return true
}

/** A plain object or an array: what {@link transferToSeam} may take as it is. */
function isContainer(value: unknown): value is object {
  return Array.isArray(value) || isPlainObject(value)
}

/** The document's root and its `scopes` maps copied, each section reused from `previous` when it is the same object. */
function adoptSections(input: Record<string, unknown>, previous: SettingsDocument): SettingsDocument {
  const scopes = own(input, SCOPES_KEY)
  const doc = reuseOrCopy(input, previous, isPlainObject(scopes) ? SCOPES_KEY : undefined)
  if (!isPlainObject(scopes)) return doc
  const previousScopes = own(previous, SCOPES_KEY)
  const copied: Record<string, unknown> = {}
  for (const scope of Object.keys(scopes)) {
    const sections = scopes[scope]
    setOwn(copied, scope, isPlainObject(sections) ? reuseOrCopy(sections, own(previousScopes, scope)) : copyData(sections))
  }
  setOwn(doc, SCOPES_KEY, copied)
  return doc
}

/** Whether a section can feed anything: its namespace and scope id follow the grammar. */
export function isWellNamed(key: SectionKey): boolean {
  return NAMESPACE_PATTERN.test(key.ns) && (key.scope === undefined || SCOPE_ID_PATTERN.test(key.scope))
}

/** Every section key present in a document. */
function sectionKeys(doc: SettingsDocument): SectionKey[] {
  const keys: SectionKey[] = []
  for (const ns of Object.keys(doc)) if (ns !== SCOPES_KEY) keys.push({ ns })
  const scopes = own(doc, SCOPES_KEY)
  if (isPlainObject(scopes)) {
    for (const scope of Object.keys(scopes)) {
      const sections = scopes[scope]
      if (isPlainObject(sections)) for (const ns of Object.keys(sections)) keys.push({ ns, scope })
    }
  }
  return keys
}

/** The sections whose raw content differs between two documents (added, removed or changed). */
export function changedSections(prev: SettingsDocument, next: SettingsDocument): SectionKey[] {
  const seen = new Set<string>()
  const changed: SectionKey[] = []
  for (const key of [...sectionKeys(prev), ...sectionKeys(next)]) {
    const id = sectionId(key.ns, key.scope)
    if (seen.has(id)) continue
    seen.add(id)
    if (!dataEqual(getSection(prev, key.ns, key.scope), getSection(next, key.ns, key.scope))) changed.push(key)
  }
  return changed
}
