/** Small display helpers shared by the components. */
import { m, pageLocale } from './i18n.ts'

/** A value as one short line of text, for hints such as "inherits …". */
export function showValue(value: unknown, limit = 80): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'nothing')
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text
}

/** A DOM id for a field, unique per namespace and path, made of characters every selector accepts. */
export function fieldId(ns: string, path: readonly string[]): string {
  const safe = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, (ch) => `_${ch.codePointAt(0)!.toString(16)}_`)
  return `f-${safe(ns)}${path.map((key) => `--${safe(key)}`).join('')}`
}

/** A path as people read it: `results.0.url` becomes `results › 1 › url`. */
export function showPath(path: readonly string[]): string {
  return path.length === 0 ? m.wholeSection : path.map((key) => (/^\d+$/.test(key) ? String(Number(key) + 1) : key)).join(' › ')
}

/** Where a secret comes from, in words. */
export function layerName(layer: 'base' | 'global' | 'scope' | undefined, scoped: boolean): string {
  if (layer === 'scope') return m.layer.scope
  if (layer === 'global') return scoped ? m.layer.inherited : m.layer.global
  if (layer === 'base') return m.layer.base
  return m.layer.defaults
}

/**
 * Where a set secret's value comes from, in words, when the document does not
 * hold it: an environment variable or a file (the value is read-only here), or
 * the secret store. `undefined` for a secret written in the document, or unset.
 */
export function secretOrigin(secret: { set: boolean; source?: string; reference?: string } | undefined): string | undefined {
  if (!secret?.set) return undefined
  const reference = secret.reference ?? ''
  if (secret.source === 'env') return m.secretFromEnv(reference)
  if (secret.source === 'file') return m.secretFromFile(reference)
  if (secret.source === 'store') return m.secretInStore
  return undefined
}

/** A moment (ISO 8601) as people read it, to the second, in the page's language and the browser's time zone. */
export function showTime(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return date.toLocaleString(pageLocale(), { dateStyle: 'medium', timeStyle: 'medium' })
}
