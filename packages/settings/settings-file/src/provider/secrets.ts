import { getSection, SCOPES_KEY, transferToSeam, type SectionKey, type SettingsDocument, type SettingsSecretOrigin } from 'dsh-settings'
import { isPlainObject, setOwn } from 'dsh-settings/data'
import { dataEqual } from 'dsh-settings/equal'
import { FileSecretStore, isSecretScalar, type SecretScalar } from './file-secret-store.ts'
import { resolveReference, SecretReferenceError, secretName, type SecretReference, type SecretStore } from 'dsh-settings-secrets'
import { unresolvedWarning, SettingsSecretReadOnlyError } from './secret-errors.ts'
import { holdsReference, noteReferenceFree, referencesIn, referenceValue, valueAtPath, withValueAt, type HeldReference } from './secret-places.ts'
import type { DocumentFormat } from './settings-codec.ts'

/** Where secrets written through the settings go: `secrets.yaml`, the OS keychain, or the document itself. */
export type SecretsMode = 'file' | 'keyring' | 'inline'

/** What {@link DocumentSecrets} needs of its provider. */
export interface DocumentSecretsOptions {
  file: string
  format: DocumentFormat
  /** The document's folder: a relative `!file` path starts there. */
  folder: string
  /** Where `!secret` names live and new secrets are written; none in `inline` mode. */
  store: SecretStore | undefined
  env: Readonly<Record<string, string | undefined>>
  /** The paths of `section` its kind marks secret (the seam's `secretPaths`). */
  secretPaths(ns: string, section: unknown): string[][]
  warn(message: string): void
}

/** A reference held at a place of a section, with what it resolved to. */
interface Held extends HeldReference {
  value: SecretScalar | undefined
}

/** One raw section's resolution, cached by the raw section object. */
interface Resolved {
  section: unknown
  held: Held[]
  /** The store's generation it was read at, when it reads the store (a store change reads it again). */
  generation: number | undefined
}

/** A section change as the seam and `documentWith` take it. */
export type SectionChange = SectionKey & { section: unknown }

const markers = new WeakSet<object>()

/** The marker that stands where a reference does not resolve: an object, so a string schema refuses the section. */
function unresolved(problem: string): Readonly<Record<string, string>> {
  const marker = Object.freeze({ $unresolved: problem })
  markers.add(marker)
  return marker
}

/** Whether `value` is a marker of an unresolved reference (a write keeps the reference there). */
function isMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && markers.has(value)
}

function keyText(key: SectionKey): string {
  return key.scope === undefined ? key.ns : `${key.scope}\u0000${key.ns}`
}

function pathText(path: readonly string[]): string {
  return JSON.stringify(path)
}

/** Every section of a raw document: each global one, then each scope's. */
export function* sectionsOf(document: SettingsDocument): Generator<SectionChange> {
  for (const [ns, section] of Object.entries(document)) if (ns !== SCOPES_KEY) yield { ns, section }
  const scopes = document[SCOPES_KEY]
  if (!isPlainObject(scopes)) return
  for (const [scope, sections] of Object.entries(scopes)) {
    if (!isPlainObject(sections)) continue
    for (const [ns, section] of Object.entries(sections)) yield { ns, scope, section }
  }
}

/**
 * The document's references, between the raw parse and the seam: resolves
 * them before the seam sees a section (cached per raw section, read again
 * when the store changes), remembers per section and path where each value
 * came from (describe's source, the read-only refusal), and turns the seam's
 * plain sections back into raw ones for a write, storing secrets first.
 */
export class DocumentSecrets {
  private readonly sections = new WeakMap<object, Resolved>()
  private readonly documents = new WeakMap<object, { document: SettingsDocument; generation: number }>()
  /** Maps and lists of raw sections known to hold no reference (a raw section is never changed in place). */
  private readonly referenceFree = new WeakSet<object>()
  /** What the last resolved document holds, by section. */
  private held = new Map<string, Held[]>()
  private generation = 0

  constructor(private readonly options: DocumentSecretsOptions) {}

  /** The store `!secret` names are read from and new secrets go to; none in `inline` mode. */
  get store(): SecretStore | undefined {
    return this.options.store
  }

  /** Release the store's own resources (the file store's lock record). */
  dispose(): void {
    ;(this.options.store as { dispose?(): void } | undefined)?.dispose?.()
  }

  /** The store changed outside (a hand edit of `secrets.yaml`): sections that read it resolve again. */
  storeChanged(): void {
    this.generation++
  }

  /** The document the seam sees: every reference resolved (a failing section warned about, its place holding a marker). */
  async resolve(raw: SettingsDocument, remember = true): Promise<SettingsDocument> {
    const known = this.documents.get(raw)
    if (known && known.generation === this.generation) return this.noted(raw, known.document, remember)
    const generation = this.generation
    let document: SettingsDocument = raw
    let scopes: Record<string, unknown> | undefined
    for (const change of sectionsOf(raw)) {
      // Most sections are known (or hold no reference): looked up without an await each.
      const resolved = this.known(change.section) ?? (await this.read(change, change.section as object))
      if (resolved.section === change.section) continue
      if (document === raw) document = { ...raw }
      if (change.scope === undefined) setOwn(document, change.ns, resolved.section)
      else {
        const rawScopes = raw[SCOPES_KEY] as Record<string, unknown>
        scopes ??= { ...rawScopes }
        const sections = scopes[change.scope] === rawScopes[change.scope] ? { ...(rawScopes[change.scope] as Record<string, unknown>) } : (scopes[change.scope] as Record<string, unknown>)
        setOwn(sections, change.ns, resolved.section)
        setOwn(scopes, change.scope, sections)
        setOwn(document, SCOPES_KEY, scopes)
      }
    }
    transferToSeam(document)
    this.documents.set(raw, { document, generation })
    return this.noted(raw, document, remember)
  }

  private noted(raw: SettingsDocument, document: SettingsDocument, remember: boolean): SettingsDocument {
    if (!remember) return document
    const held = new Map<string, Held[]>()
    for (const change of sectionsOf(raw)) {
      const found = isPlainObject(change.section) ? this.sections.get(change.section)?.held : undefined
      if (found?.length) held.set(keyText(change), found)
    }
    this.held = held
    return document
  }

  /** What `reference` stands for: a `!secret` typed as stored where the store keeps types (`secrets.yaml`), else text. */
  private async resolveReference(reference: SecretReference): Promise<SecretScalar> {
    const store = this.options.store
    if (reference.kind === 'secret' && store instanceof FileSecretStore) {
      const value = await store.getValue(reference.name)
      if (value !== undefined) return value
    }
    return resolveReference(reference, { store, env: this.options.env, baseDir: this.options.folder })
  }

  /** Whether the store can keep `value` as written: any text; a number or boolean only where it keeps types. */
  private storable(value: unknown): value is SecretScalar {
    return typeof value === 'string' || (this.options.store instanceof FileSecretStore && isSecretScalar(value))
  }

  /** Put `value` under `name`: typed in `secrets.yaml`, as text elsewhere (only text reaches here then). */
  private async put(name: string, value: SecretScalar): Promise<void> {
    const store = this.options.store!
    if (store instanceof FileSecretStore) await store.set(name, value)
    else await store.set(name, String(value))
  }

  /** A raw section's resolution when it needs no reading: a scalar, one cached while the store is unchanged, or one holding no reference. */
  private known(raw: unknown): Resolved | undefined {
    if (!isPlainObject(raw) && !Array.isArray(raw)) return { section: raw, held: [], generation: undefined }
    const cached = this.sections.get(raw)
    if (cached && (cached.generation === undefined || cached.generation === this.generation)) return cached
    if (holdsReference(raw, this.referenceFree)) return undefined
    // Nothing to resolve (the common case): no paths are built for it.
    noteReferenceFree(raw, this.referenceFree)
    const plain: Resolved = { section: raw, held: [], generation: undefined }
    this.sections.set(raw, plain)
    return plain
  }

  /** One raw section resolved (cached by the raw object while the store is unchanged). */
  private section(key: SectionKey, raw: unknown): Promise<Resolved> | Resolved {
    // What `known` cannot answer is a map or a list holding a reference (a scalar is always known).
    return this.known(raw) ?? this.read(key, raw as object)
  }

  /** Resolve each reference of `holder`, a raw section {@link known} could not answer for (it walked it once already). */
  private async read(key: SectionKey, holder: object): Promise<Resolved> {
    const cached = this.sections.get(holder)
    const generation = this.generation
    const held: Held[] = []
    let section: unknown = holder
    let readsStore = false
    for (const { path, reference } of referencesIn(holder)) {
      readsStore ||= reference.kind === 'secret'
      try {
        const value = await this.resolveReference(reference)
        held.push({ path, reference, value })
        section = withValueAt(section, path, value)
      } catch (error) {
        if (!(error instanceof SecretReferenceError)) throw error
        this.options.warn(unresolvedWarning(this.options.file, key, path, error.message))
        held.push({ path, reference, value: undefined })
        section = withValueAt(section, path, unresolved(error.message))
      }
    }
    // Read again after a store change and found the same: the very object the seam has, so nothing is published for it.
    if (cached && dataEqual(section, cached.section)) section = cached.section
    const resolved: Resolved = { section, held, generation: readsStore ? generation : undefined }
    this.sections.set(holder, resolved)
    return resolved
  }

  /** Where the value at `path` of section `key` comes from, when a reference holds it. */
  source(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    const held = this.held.get(keyText(key))?.find((entry) => pathText(entry.path) === pathText(path))
    if (!held) return undefined
    return { source: held.reference.kind === 'secret' ? 'store' : held.reference.kind, reference: held.reference.name }
  }

  /** The refusal of a write that changes a value the document takes from the host (`!env`, `!file`). */
  refusal(key: SectionKey, section: unknown): SettingsSecretReadOnlyError | undefined {
    if (section === undefined) return undefined
    for (const held of this.held.get(keyText(key)) ?? []) {
      if (held.reference.kind === 'secret') continue
      const value = valueAtPath(section, held.path)
      if (value !== undefined && !dataEqual(value, held.value)) return new SettingsSecretReadOnlyError(this.options.file, key, held.path, held.reference as SecretReference & { kind: 'env' | 'file' })
    }
    return undefined
  }

  /**
   * The raw sections that store `changes` (plain sections from the seam):
   * each place a reference held keeps it (a changed `!secret` value is stored
   * under its name), each secret the write sets goes to the store under its
   * derived name with the reference in its place (an inline secret it leaves
   * unchanged stays inline, unless `moveInline`: how `moveSecrets` moves
   * them). The store is written here, before the document. `unused` are `!secret` names the changes stopped naming
   * (remove them once the document is written, if nothing else names them).
   */
  async toRaw(current: SettingsDocument, changes: readonly SectionChange[], moveInline = false): Promise<{ changes: SectionChange[]; unused: string[]; moved: number }> {
    const raws: SectionChange[] = []
    const unused: string[] = []
    let moved = 0
    for (const change of changes) {
      const was = getSection(current, change.ns, change.scope)
      const before = await this.section(change, was)
      const made = await this.rawSection(change, moveInline ? undefined : was, before.held)
      const { held, dropped } = made
      moved += made.moved
      // A section that stores as it stands (a `!secret` value changed in the store alone) keeps its object: the document is not written for it.
      const raw = dataEqual(made.raw, was) ? was : made.raw
      if (raw === was) this.documents.delete(current)
      unused.push(...dropped)
      raws.push({ ns: change.ns, ...(change.scope === undefined ? {} : { scope: change.scope }), section: raw })
      // The raw section resolves to the very section the seam gave: no store read for it again.
      if (isPlainObject(raw) || Array.isArray(raw)) this.sections.set(raw, { section: change.section, held, generation: undefined })
    }
    return { changes: raws, unused, moved }
  }

  private async rawSection(change: SectionChange, was: unknown, before: readonly Held[]): Promise<{ raw: unknown; held: Held[]; dropped: string[]; moved: number }> {
    const { section } = change
    const dropped: string[] = []
    const held: Held[] = []
    if (section === undefined) return { raw: undefined, held, dropped: before.flatMap((entry) => (entry.reference.kind === 'secret' ? [entry.reference.name] : [])), moved: 0 }
    let raw: unknown = section
    const store = this.options.store
    for (const entry of before) {
      const value = valueAtPath(section, entry.path)
      // A place that did not resolve still holds its marker: the reference stays, never the marker.
      const unchangedMarker = isMarker(value)
      const keep = unchangedMarker || (entry.reference.kind !== 'secret' ? dataEqual(value, entry.value) : store !== undefined && this.storable(value))
      if (!keep) {
        if (entry.reference.kind === 'secret') dropped.push(entry.reference.name)
        continue
      }
      if (entry.reference.kind === 'secret' && !unchangedMarker && value !== entry.value) await this.put(entry.reference.name, value as SecretScalar)
      raw = withValueAt(raw, entry.path, referenceValue(entry.reference, this.options.format))
      held.push({ ...entry, value: unchangedMarker ? undefined : (value as SecretScalar) })
    }
    let moved = 0
    if (!store) return { raw, held, dropped, moved }
    const taken = new Set(before.map((entry) => pathText(entry.path)))
    for (const path of this.options.secretPaths(change.ns, section)) {
      const value = valueAtPath(section, path)
      if (taken.has(pathText(path)) || !this.storable(value)) continue
      // An inline secret this write leaves as it was stays where it is: a write changes only what it writes (`moveSecrets` moves the rest).
      if (dataEqual(valueAtPath(was, path), value)) continue
      const reference: SecretReference = { kind: 'secret', name: secretName(change.ns, path, change.scope) }
      await this.put(reference.name, value)
      raw = withValueAt(raw, path, referenceValue(reference, this.options.format))
      held.push({ path, reference, value })
      moved++
    }
    return { raw, held, dropped, moved }
  }

  /** The `!secret` names `document` (raw) still uses. */
  static namesIn(document: SettingsDocument): Set<string> {
    const names = new Set<string>()
    for (const { section } of sectionsOf(document)) for (const { reference } of referencesIn(section)) if (reference.kind === 'secret') names.add(reference.name)
    return names
  }

  /** Remove the `unused` names `document` (raw, just written) no longer names; a failure is warned about (an unused name harms nothing). */
  async removeUnused(document: SettingsDocument, unused: readonly string[]): Promise<void> {
    const store = this.options.store
    if (!store || !unused.length) return
    const still = DocumentSecrets.namesIn(document)
    for (const name of new Set(unused)) {
      if (still.has(name)) continue
      await store.delete(name).catch((error: unknown) => this.options.warn(`settings: removing an unused secret name from the ${store.kind} store failed: ${(error as Error).name}`))
    }
  }
}
