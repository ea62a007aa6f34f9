/**
 * The settings catalog, `<home>/settings-catalog.json`: what a running host's
 * controller writes down about every registered kind (its sanitized schema,
 * its settings version and steps, and each live instance's base with its
 * secrets taken out), so a command can judge and resolve values while no host
 * runs without importing a plugin. This module is the format and its reader;
 * it imports nothing but the home's file check, so a command pays only for it.
 */
import { join } from 'node:path'
import { readOwnFile, type OwnFileRefusal } from 'dsh-settings-home'

/** The catalog's file name inside the settings home. */
export const CATALOG_FILE = 'settings-catalog.json'

/** The format this package writes and reads; a catalog of another format is refused as unreadable. */
export const CATALOG_FORMAT = 1

/** One secret place of an instance's base, and whether the base gives it a value. */
export interface CatalogSecret {
  path: string[]
  set: boolean
}

/** One live instance of a kind: the global one (no `scope`) or a named scope's. */
export interface CatalogInstance {
  scope?: string
  /** The registrant's base with every secret and every key the schema does not declare taken out; absent when it declared none. */
  base?: unknown
  /** The secret places the schema declares at the instance's value, and whether its base sets each (its value never written). */
  secrets: CatalogSecret[]
  /** The registration waits for values nobody gave yet. */
  needsSetup?: true
}

/** One registered kind. */
export interface CatalogKind {
  ns: string
  /** The kind's schema envelope, sanitized (no secret defaults, no transform source): revive it with `dsh-settings/revive`. */
  schema: unknown
  /** The version of the kind's settings; sections stored at an older one are migrated by the plugin's steps when a host starts it. */
  version: number
  /** The name of each migration step: item `i` takes a section from version `i` to `i + 1`. */
  steps: string[]
  applies: 'live' | 'restart'
  /** Global first, then named scopes in the order they appeared. */
  instances: CatalogInstance[]
}

/** The whole catalog. */
export interface SettingsCatalog {
  format: typeof CATALOG_FORMAT
  /** When it was written (ISO 8601). */
  writtenAt: string
  /** The deployment the host ran (`dsh-loader`'s facts): its file (a realpath) and each plugin package's version. */
  deployment: { file: string; packages: Record<string, string> }
  kinds: CatalogKind[]
}

/** Why a catalog could not be used: the file check's refusals, or content that is not a catalog. */
export type CatalogRefusal = OwnFileRefusal | 'malformed'

/** What {@link readCatalog} found. */
export type CatalogRead = { catalog: SettingsCatalog; path: string } | { refused: CatalogRefusal; why: string; path: string }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string')

function isInstance(value: unknown): value is CatalogInstance {
  return (
    isRecord(value) &&
    (value.scope === undefined || typeof value.scope === 'string') &&
    Array.isArray(value.secrets) &&
    value.secrets.every((secret) => isRecord(secret) && isStrings(secret.path) && typeof secret.set === 'boolean')
  )
}

function isKind(value: unknown): value is CatalogKind {
  return (
    isRecord(value) &&
    typeof value.ns === 'string' &&
    isRecord(value.schema) &&
    Number.isSafeInteger(value.version) &&
    (value.version as number) >= 0 &&
    isStrings(value.steps) &&
    (value.applies === 'live' || value.applies === 'restart') &&
    Array.isArray(value.instances) &&
    value.instances.every(isInstance)
  )
}

/** Whether parsed JSON is a catalog of this format (its schemas are checked when revived, not here). */
export function isCatalog(value: unknown): value is SettingsCatalog {
  if (!isRecord(value) || value.format !== CATALOG_FORMAT || typeof value.writtenAt !== 'string' || !Array.isArray(value.kinds)) return false
  const { deployment } = value
  if (!isRecord(deployment) || typeof deployment.file !== 'string' || !isRecord(deployment.packages)) return false
  if (!Object.values(deployment.packages).every((version) => typeof version === 'string')) return false
  return value.kinds.every(isKind)
}

/**
 * Read the catalog in `home`, trusting it only as the home's own private file
 * (see `readOwnFile` of `dsh-settings-home`) holding a catalog of this format.
 */
export function readCatalog(home: string): CatalogRead {
  const path = join(home, CATALOG_FILE)
  const read = readOwnFile(path)
  if ('refused' in read) return { ...read, path }
  let parsed: unknown
  try {
    parsed = JSON.parse(read.text)
  } catch {
    return { refused: 'malformed', why: `${path} is not JSON`, path }
  }
  if (!isCatalog(parsed)) return { refused: 'malformed', why: `${path} is not a settings catalog of format ${CATALOG_FORMAT}`, path }
  return { catalog: parsed, path }
}
