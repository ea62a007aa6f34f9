/**
 * The references a settings document holds (`!secret`, `!env`, `!file` in
 * YAML, `{ "$env": … }` in JSON) as the command finds them, and the document
 * with each one resolved: what a host's file provider hands the seam, so a
 * command with no host judges and describes the values a host would see.
 */
import { SCOPES_KEY, type SettingsDocument } from 'dsh-settings'
import { isTaggedScalar } from 'dsh-settings-file/fast-read'
import { REFERENCE_TAGS, referenceOfJson, referenceToJson, resolveReference, SecretReferenceError, type ResolveOptions, type SecretReference, type SecretReferenceKind } from 'dsh-settings-secrets'

/** A reference in the document: the section holding it and the path inside that section. */
export interface HeldReference {
  ns: string
  /** The named scope whose section holds it; absent for the global section. */
  scope?: string
  path: string[]
  reference: SecretReference
}

/** A reference that did not resolve, with the error that says why (it names the reference, never a value). */
export interface UnresolvedReference extends HeldReference {
  error: SecretReferenceError
}

/** A document with its references resolved. */
export interface ResolvedDocument {
  /** A copy with each resolved reference replaced by its value and each unresolved one left out. */
  document: SettingsDocument
  held: HeldReference[]
  unresolved: UnresolvedReference[]
}

const KIND_OF_TAG: ReadonlyMap<string, SecretReferenceKind> = new Map(
  (Object.keys(REFERENCE_TAGS) as SecretReferenceKind[]).map((kind) => [REFERENCE_TAGS[kind], kind]),
)

/**
 * The reference `value` spells, or `undefined`: the JSON form, or a scalar
 * the file provider's codec read with a reference's tag (`TaggedScalar`).
 */
export function referenceIn(value: unknown): SecretReference | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  if (!isTaggedScalar(value)) return referenceOfJson(value)
  const kind = KIND_OF_TAG.get(value.tag)
  return kind === undefined || value.text === '' ? undefined : { kind, name: value.text }
}

/** Every section of `document`: the global ones, then each named scope's. */
function* sections(document: SettingsDocument): Generator<{ ns: string; scope?: string; section: unknown }> {
  for (const [ns, section] of Object.entries(document)) if (ns !== SCOPES_KEY) yield { ns, section }
  const scopes = document[SCOPES_KEY]
  if (!scopes || typeof scopes !== 'object' || Array.isArray(scopes)) return
  for (const [scope, held] of Object.entries(scopes)) {
    if (!held || typeof held !== 'object' || Array.isArray(held)) continue
    for (const [ns, section] of Object.entries(held as Record<string, unknown>)) yield { ns, scope, section }
  }
}

/**
 * `value` with each reference inside it replaced by what `replace` answers
 * for it (`undefined`: left out of an object; in a list, its JSON form stays,
 * so the items after it keep their places). A value holding no reference is
 * answered as it is, not copied. `path` is where `value` sits: one array,
 * extended and cut back on the way down, copied only for a reference found
 * (a large section is mostly scalars, which cost a type test each).
 */
function mapReferences(value: unknown, path: string[], replace: (reference: SecretReference, path: string[]) => unknown, depth = 0): unknown {
  const reference = referenceIn(value)
  if (reference) return replace(reference, [...path])
  if (typeof value !== 'object' || value === null || depth > 200) return value
  let copy: Record<string, unknown> | unknown[] | undefined
  const list = Array.isArray(value) ? value : undefined
  const keys = list ? undefined : Object.keys(value)
  const count = list ? list.length : keys!.length
  for (let index = 0; index < count; index++) {
    const key = list ? String(index) : keys![index]!
    const item = list ? list[index] : (value as Record<string, unknown>)[key]
    if (typeof item !== 'object' || item === null) continue
    path.push(key)
    const next = mapReferences(item, path, replace, depth + 1)
    path.pop()
    if (next === item) continue
    copy ??= list ? [...list] : { ...(value as Record<string, unknown>) }
    if (Array.isArray(copy)) copy[index] = next === undefined ? referenceToJson(referenceIn(item)!) : next
    else if (next === undefined) delete copy[key]
    else copy[key] = next
  }
  return copy ?? value
}

/** `document` with every section passed through `replace` (see {@link mapReferences}); untouched sections shared. */
function mapDocument(document: SettingsDocument, replace: (held: Omit<HeldReference, 'reference'>, reference: SecretReference) => unknown): SettingsDocument {
  const copy: Record<string, unknown> = { ...document }
  for (const { ns, scope, section } of sections(document)) {
    const next = mapReferences(section, [], (reference, path) => replace({ ns, ...(scope === undefined ? {} : { scope }), path }, reference))
    if (next === section) continue
    if (scope === undefined) copy[ns] = next
    else {
      const scopes = (copy[SCOPES_KEY] = { ...(copy[SCOPES_KEY] as Record<string, Record<string, unknown>>) }) as Record<string, Record<string, unknown>>
      scopes[scope] = { ...scopes[scope], [ns]: next }
    }
  }
  return copy as SettingsDocument
}

/** Every reference `document` holds, section by section. */
export function findReferences(document: SettingsDocument): HeldReference[] {
  const held: HeldReference[] = []
  mapDocument(document, (place, reference) => {
    held.push({ ...place, reference })
    return referenceToJson(reference)
  })
  return held
}

/** `document` with each reference in its JSON form (`{ "$env": "NAME" }`): what a view with no schema shows, holding no value. */
export function referencesAsJson(document: SettingsDocument): SettingsDocument {
  return mapDocument(document, (_place, reference) => referenceToJson(reference))
}

/**
 * Resolve every reference of `document` as the file provider does before the
 * seam sees it (`!file` relative to `options.baseDir`, `!secret` in
 * `options.store`). A reference that does not resolve is left out and
 * listed with its error; any other failure is thrown.
 */
export async function resolveDocument(document: SettingsDocument, options: ResolveOptions): Promise<ResolvedDocument> {
  const held = findReferences(document)
  if (!held.length) return { document, held, unresolved: [] }
  const values = new Map<HeldReference, string>()
  const unresolved: UnresolvedReference[] = []
  for (const place of held) {
    try {
      values.set(place, await resolveReference(place.reference, options))
    } catch (error) {
      if (!(error instanceof SecretReferenceError)) throw error
      unresolved.push({ ...place, error })
    }
  }
  let index = 0
  // The same walk in the same order as findReferences: the n-th reference met is held[n].
  const resolved = mapDocument(document, () => values.get(held[index++]!))
  return { document: resolved, held, unresolved }
}
