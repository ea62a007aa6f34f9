/**
 * Where a secret went, read from disk as a person (or `grep`) would, for a
 * deployment on the file provider's default secret store (`secrets: file`):
 * `secrets.yaml` beside the document (a flat map of names to values, mode
 * 0600), the document's `!secret <name>` references, and the versions kept
 * under `history/`. The page's specs check a typed secret's path with these.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { isTaggedScalar, parseYaml } from 'dsh-settings-file/codec'
import { expect } from 'vitest'

/** The file name of the secret store, beside the document. */
export const SECRETS_FILE = 'secrets.yaml'

/** The reference tags a document may hold; parsed as tagged scalars, never as their text. */
const REFERENCE_TAGS = ['!secret', '!env', '!file']

/** `secrets.yaml` beside `document`, as the file holds it; `exists: false` (and nothing in it) when there is none. */
export interface SecretStoreOnDisk {
  exists: boolean
  text: string
  values: Record<string, unknown>
  /** Permission bits (`0o600` expected). */
  mode: number | undefined
}

/** Read the secret store beside `document` (the document's path). */
export async function readSecretStore(document: string): Promise<SecretStoreOnDisk> {
  const file = join(dirname(document), SECRETS_FILE)
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (text === undefined) return { exists: false, text: '', values: {}, mode: undefined }
  const values = (parseYaml(text).doc.toJS() ?? {}) as Record<string, unknown>
  return { exists: true, text, values, mode: (await stat(file)).mode & 0o777 }
}

/** A reference as the document holds it: `{ tag: '!secret', text: 'search.apiKey' }`. */
export interface HeldReference {
  tag: string
  text: string
}

/** Whether `value` is a reference read by {@link readStoredDocument}. */
export function isHeldReference(value: unknown): value is HeldReference {
  return isTaggedScalar(value)
}

/** The document at `file` (its text and its data), each reference kept as a {@link HeldReference} rather than read as its name. */
export async function readStoredDocument(file: string): Promise<{ text: string; data: Record<string, unknown> }> {
  const text = await readFile(file, 'utf8')
  return { text, data: (parseYaml(text, REFERENCE_TAGS).doc.toJS() ?? {}) as Record<string, unknown> }
}

/**
 * `value` with every `!secret <name>` replaced by what `store` holds under
 * `name`, as the provider resolves it for a plugin. A name the store lacks,
 * and an `!env`/`!file` reference, stay references: a comparison with the
 * plain value then fails, naming them.
 */
export function resolveStored(value: unknown, store: Readonly<Record<string, unknown>>): unknown {
  if (isHeldReference(value)) return value.tag === '!secret' && Object.hasOwn(store, value.text) ? store[value.text] : value
  if (Array.isArray(value)) return value.map((item) => resolveStored(item, store))
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, resolveStored(child, store)]))
}

/** Keys that secret names write bare: anything else is bracketed and quoted (see dsh-settings-secrets' `secretName`). */
const PLAIN_SEGMENT = /^[^./[\]"\\\s\p{C}]+$/u

/**
 * The store name of the secret at `path` of namespace `ns` (in `scope`, if
 * any), for paths of plain keys and list indexes: `search.apiKey`,
 * `search.mirrors.0.token`, `preset/coder/search.apiKey`. Written out here, not
 * borrowed, so a spec states the naming it expects.
 * @throws {Error} for a key the name would bracket (a dot, a space, …): give that name literally.
 */
export function storedSecretName(ns: string, path: readonly string[], scope?: string): string {
  const odd = path.find((key) => !PLAIN_SEGMENT.test(key))
  if (odd !== undefined) throw new Error(`storedSecretName names plain keys only, not ${JSON.stringify(odd)}`)
  return `${scope === undefined ? '' : `${scope}/`}${[ns, ...path].join('.')}`
}

/** The text of every version kept under `history/` beside `document` (none when there is no folder). */
export async function keptVersionTexts(document: string): Promise<string[]> {
  const folder = join(dirname(document), 'history')
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[]
    throw error
  })
  return Promise.all(names.map((name) => readFile(join(folder, name), 'utf8')))
}

/** The value at `path` of `data`, or undefined. */
function valueAt(data: unknown, path: readonly string[]): unknown {
  let current = data
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

/** Where a secret was written: its namespace, its path in the section, and its scope, if any. */
export interface SecretPlace {
  ns: string
  path: readonly string[]
  scope?: string
}

/**
 * Check that `value`, written at `place`, went to the secret store: the
 * document holds `!secret <derived name>` there, `secrets.yaml` (mode 0600)
 * holds `value` under that name, and the document's text holds no `value`.
 * Answers the name. (Kept versions: {@link expectNotKept}.)
 */
export async function expectSecretInStore(document: string, place: SecretPlace, value: string | number | boolean, label = ''): Promise<string> {
  const name = storedSecretName(place.ns, place.path, place.scope)
  const { text, data } = await readStoredDocument(document)
  const section = place.scope === undefined ? data[place.ns] : valueAt(data, ['scopes', place.scope, place.ns])
  const where = `${label}${label ? ': ' : ''}${name}`
  expect(valueAt(section, place.path), `${where}: the document holds the reference`).toEqual(expect.objectContaining({ tag: '!secret', text: name }))
  const store = await readSecretStore(document)
  expect(store.values[name], `${where}: secrets.yaml holds the value`).toEqual(value)
  expect(store.mode, `${where}: secrets.yaml is private`).toBe(0o600)
  expect(text.includes(String(value)), `${where}: the document holds no value`).toBe(false)
  return name
}

/** Check that no version kept under `history/` beside `document` holds any of `values`. */
export async function expectNotKept(document: string, values: readonly (string | number | boolean)[]): Promise<void> {
  const kept = await keptVersionTexts(document)
  for (const value of values) expect(kept.filter((text) => text.includes(String(value))), `kept versions holding ${String(value)}`).toEqual([])
}
