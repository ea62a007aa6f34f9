/**
 * Secrets in rows, per host: on the way in (load, notify) `$encrypted` boxes
 * are opened and `$env`/`$file` references resolved against this host, so the
 * seam sees plain values; on the way out every secret the schema declares is
 * sealed under the at-rest key and every reference the row held is written
 * back. What this host cannot read is replaced by a marker a secret's schema
 * refuses, and named in one warning (never a value, never a box).
 */
import { isAbsolute } from 'node:path'
import { formatPath, type SectionKey, type SettingsSecretOrigin, type SettingsStoreError } from 'dsh-settings'
import { valueAt } from 'dsh-settings/data'
import { dataEqual } from 'dsh-settings/equal'
import {
  formatReference,
  referenceOfJson,
  referenceToJson,
  resolveReference,
  SECRET_KEY_VARIABLE,
  SecretKeyError,
  SecretReferenceError,
  secretKeyFromEnv,
  type SecretReference,
} from 'dsh-settings-secrets'
import { sectionLabel, SettingsNoSecretKeyError, SettingsSecretReadOnlyError, SettingsSecretUnreadableError } from './errors.ts'
import { findPlaces, startsWith, withValueAt } from './places.ts'
import { keyOf, versionKey, type SectionRow } from './rows.ts'
import { boxOfJson, seal, unseal, type OpenFailure, type SealedPlace } from './sealed.ts'

/** A value the row takes from this host (`$env`, `$file`), with what it resolved to here (or the marker). */
interface Held {
  path: string[]
  reference: SecretReference & { kind: 'env' | 'file' }
  value: unknown
}

/** A place this host could not read, holding `marker` in the section the seam has. */
interface Unreadable {
  path: string[]
  marker: unknown
  problem: string
}

interface SectionSecrets {
  held: Held[]
  unreadable: Unreadable[]
}

/** What {@link RowSecrets} needs of its provider. */
export interface RowSecretsOptions {
  /** The settings document's id: part of every box's place. */
  document: string
  /** The database as messages name it. */
  database: string
  /** This host's environment: the at-rest key and `$env` references. */
  env: Readonly<Record<string, string | undefined>>
  warn(message: string): void
}

const OPEN_FAILURE: Record<OpenFailure, string> = {
  rejected: `the encrypted value does not open with this host's ${SECRET_KEY_VARIABLE} (a different key, or the row was altered)`,
  malformed: 'the encrypted value is not a box this provider writes',
  misplaced: 'the encrypted value was made for another row or place (copied there), so it is not taken',
}

/** The marker standing in for a value this host cannot read: an object, so a string schema refuses it. */
function marker(problem: string): Readonly<Record<string, string>> {
  return Object.freeze({ $unresolved: problem })
}

/**
 * The secrets of one provider's rows. Remembers, per section, which places
 * the row takes from this host and which it could not read, so writes keep
 * references, refuse to change them, and never overwrite what they could
 * not read.
 */
export class RowSecrets {
  private readonly key: Uint8Array | undefined
  /** Why there is no key: unset, or malformed (the variable named, never its value). */
  private readonly keyMissing: string
  private readonly sections = new Map<string, SectionSecrets>()

  constructor(private readonly options: RowSecretsOptions) {
    let key: Uint8Array | undefined
    let missing = `${SECRET_KEY_VARIABLE} is not set on this host`
    try {
      key = secretKeyFromEnv(options.env)
    } catch (error) {
      if (!(error instanceof SecretKeyError)) throw error
      missing = error.message
      options.warn(`settings: ${missing}; secrets in PostgreSQL at ${options.database} can be neither read nor written on this host`)
    }
    this.key = key
    this.keyMissing = missing
  }

  /** Rows as the seam takes them: boxes opened, references resolved on this host. Problems are warned about, once per row read. */
  async reveal(rows: readonly SectionRow[]): Promise<SectionRow[]> {
    return Promise.all(rows.map((row) => this.revealRow(row)))
  }

  private async revealRow(row: SectionRow): Promise<SectionRow> {
    const id = versionKey(row.ns, row.scope)
    this.sections.delete(id)
    if (row.data === null) return row
    const found: SectionSecrets = { held: [], unreadable: [] }
    const fail = (path: string[], problem: string): unknown => {
      const stand = marker(problem)
      found.unreadable.push({ path, marker: stand, problem })
      this.options.warn(`settings: ${sectionLabel(keyOf(row))} in PostgreSQL at ${this.options.database}: the value at ${formatPath(path)} cannot be read on this host: ${problem}; the section fails here until it can`)
      return stand
    }
    let data: unknown = row.data
    for (const { path, node } of findPlaces(data, (node) => boxOfJson(node) !== undefined)) {
      data = withValueAt(data, path, this.open(boxOfJson(node)!, { document: this.options.document, scope: row.scope, ns: row.ns, path }, (problem) => fail(path, problem)))
    }
    for (const { path, node } of findPlaces(data, (node) => referenceOfJson(node) !== undefined)) {
      const reference = referenceOfJson(node)!
      if (reference.kind === 'secret') {
        data = withValueAt(data, path, fail(path, `${formatReference(reference)} names a secret store, and a PostgreSQL deployment has none: use $env or $file, or write the value through the settings to have it stored encrypted`))
        continue
      }
      const value = await this.resolve(reference, (problem) => fail(path, problem))
      found.held.push({ path, reference: { kind: reference.kind, name: reference.name }, value })
      data = withValueAt(data, path, value)
    }
    if (found.held.length || found.unreadable.length) this.sections.set(id, found)
    return data === row.data ? row : { ...row, data }
  }

  private open(box: string, place: SealedPlace, fail: (problem: string) => unknown): unknown {
    if (!this.key) return fail(`it is encrypted and ${this.keyMissing}`)
    const opened = unseal(box, place, this.key)
    return 'value' in opened ? opened.value : fail(OPEN_FAILURE[opened.failure])
  }

  private async resolve(reference: SecretReference, fail: (problem: string) => unknown): Promise<unknown> {
    if (reference.kind === 'file' && !isAbsolute(reference.name)) {
      return fail(`${formatReference(reference)} is a relative path, which means a different file on every host: write an absolute path`)
    }
    try {
      return await resolveReference(reference, { env: this.options.env })
    } catch (error) {
      if (error instanceof SecretReferenceError) return fail(error.message)
      throw error
    }
  }

  /**
   * The refusal of a write that would store `section` at `key` (or remove it,
   * `undefined`): it changes a value taken from the host, keeps a value this
   * host could not read, or holds a secret while there is no at-rest key.
   */
  refusal(key: SectionKey, section: unknown, secretPaths: readonly string[][]): SettingsStoreError | undefined {
    const known = this.sections.get(versionKey(key.ns, key.scope))
    for (const held of known?.held ?? []) {
      if (section === undefined || !dataEqual(valueAt(section, held.path), held.value)) {
        return new SettingsSecretReadOnlyError(this.options.database, key, held.path, held.reference, formatReference(held.reference))
      }
    }
    for (const place of known?.unreadable ?? []) {
      if (section !== undefined && dataEqual(valueAt(section, place.path), place.marker)) return new SettingsSecretUnreadableError(this.options.database, key, place.path, place.problem)
    }
    const sealed = this.sealedPaths(known, secretPaths)
    if (section !== undefined && sealed.length && !this.key) return new SettingsNoSecretKeyError(this.options.database, key, sealed[0]!, this.keyMissing)
    return undefined
  }

  /** The secret paths to seal: not those a reference holds (the reference is what the row keeps). */
  private sealedPaths(known: SectionSecrets | undefined, secretPaths: readonly string[][]): string[][] {
    // A secret that holds a reference inside it is sealed with the reference (opened, it resolves again).
    return secretPaths.filter((path) => !known?.held.some((held) => startsWith(path, held.path)))
  }

  /**
   * The row as stored: each held reference written back where the value is
   * unchanged, then each secret sealed for its place. `row` is the seam's
   * plain row; it is not changed.
   * @throws {SettingsNoSecretKeyError} when a secret is to be sealed without a key (a write `refusal` let through).
   */
  conceal(row: SectionRow, secretPaths: readonly string[][]): SectionRow {
    if (row.data === null) return row
    const known = this.sections.get(versionKey(row.ns, row.scope))
    let data: unknown = row.data
    for (const held of known?.held ?? []) {
      if (dataEqual(valueAt(data, held.path), held.value)) data = withValueAt(data, held.path, referenceToJson(held.reference))
    }
    for (const path of this.sealedPaths(known, secretPaths)) {
      const value = valueAt(data, path)
      if (value === undefined) continue
      if (!this.key) throw new SettingsNoSecretKeyError(this.options.database, keyOf(row), path, this.keyMissing)
      data = withValueAt(data, path, seal(value, { document: this.options.document, scope: row.scope, ns: row.ns, path }, this.key))
    }
    return data === row.data ? row : { ...row, data }
  }

  /** After a write stored `rows`: a removed section holds nothing; a stored one keeps its references and now reads whole. */
  stored(rows: readonly SectionRow[]): void {
    for (const row of rows) {
      const id = versionKey(row.ns, row.scope)
      const held = row.data === null ? [] : (this.sections.get(id)?.held ?? [])
      if (held.length) this.sections.set(id, { held, unreadable: [] })
      else this.sections.delete(id)
    }
  }

  /** Where the secret at `path` of section `key` comes from, when the row takes it from this host. */
  source(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    const held = this.sections.get(versionKey(key.ns, key.scope))?.held.find((entry) => entry.path.length === path.length && startsWith(path, entry.path))
    return held && { source: held.reference.kind, reference: held.reference.name }
  }
}
