/**
 * How `dsh settings` prints what it read: values as YAML (or JSON), a secret
 * as `(set)` in its place (in JSON a `{ "secret": true, "set": … }` mark),
 * kept versions one per line, and differences one field per line. Nothing
 * here ever prints a value a redacted answer withheld.
 */
import { valueAt } from 'dsh-settings/data'
import type { SettingsCompareValue, SettingsHistoryValue, SettingsNamespaceView } from 'dsh-settings-controller'

/** What stands for a secret that holds a value, in text. */
export const SECRET_SET = '(set)'
/** What stands for a secret that holds no value, in text. */
export const SECRET_NOT_SET = '(not set)'

/**
 * What stands for a secret in JSON: an object no string can be mistaken for.
 * A secret a reference holds says where its value comes from (`store`, `env`,
 * `file`) and the reference's name (the store's name, the variable, the path).
 */
export interface SecretMark {
  secret: true
  set: boolean
  source?: 'store' | 'env' | 'file'
  reference?: string
}

/** Where a set secret's value comes from, when a reference holds it. */
export type SecretOrigin = Pick<SecretMark, 'source' | 'reference'>

/** The tag each reference source is written with, for the text form. */
const ORIGIN_TAGS = { store: '!secret', env: '!env', file: '!file' } as const

/** The origin of a described secret slot, when a reference holds it (a secret written in the document has none). */
export function originOf(slot: { source?: string; reference?: string }): SecretOrigin | undefined {
  const { source, reference } = slot
  return (source === 'store' || source === 'env' || source === 'file') && typeof reference === 'string' ? { source, reference } : undefined
}

/**
 * How a secret is shown: `(set)` / `(not set)` in text (`(set: !env NAME)`
 * when a reference holds it), a {@link SecretMark} in JSON.
 */
export function secretMark(set: boolean, json: boolean, origin?: SecretOrigin): string | SecretMark {
  const held = set && origin?.source !== undefined ? origin : undefined
  if (json) return held ? { secret: true, set, source: held.source, reference: held.reference! } : { secret: true, set }
  // Quoted as dsh-settings-secrets' formatReference quotes a name, so it reads as one token.
  if (held) return `(set: ${ORIGIN_TAGS[held.source!]} ${/^[\p{L}\p{N}_./:@+~-]+$/u.test(held.reference!) ? held.reference : JSON.stringify(held.reference)})`
  return set ? SECRET_SET : SECRET_NOT_SET
}

/**
 * A copy of the view's (redacted) value with a mark at each secret path the
 * view lists: in text, `(set)` where a secret holds a value (one that holds
 * none stays absent); in JSON, a {@link SecretMark} at every listed secret
 * whose parent is there, so a script tells a secret from a string reading `(set)`.
 */
export function withSecretMarks(view: SettingsNamespaceView, json = false): unknown {
  let value: unknown = view.value === undefined ? undefined : structuredClone(view.value)
  for (const secret of view.secrets ?? []) {
    if (!secret.set && !json) continue
    if (!secret.path.length) {
      value = secretMark(secret.set, json, originOf(secret))
      continue
    }
    const parent = valueAt(value, secret.path.slice(0, -1))
    if (parent !== null && typeof parent === 'object') (parent as Record<string, unknown>)[secret.path.at(-1)!] = secretMark(secret.set, json, originOf(secret))
  }
  return value
}

/** A value as `get` prints it: a scalar as itself, anything else as YAML (or everything as JSON). */
export async function showValue(value: unknown, json: boolean): Promise<string> {
  if (json) return JSON.stringify(value, null, 2)
  if (typeof value === 'string') return value
  if (value === null || typeof value !== 'object') return String(value)
  // yaml is loaded only for a structured value: reading one setting should not pay for it.
  const { stringify } = await import('yaml')
  return stringify(value).trimEnd()
}

/** `web-search` or `web-search in preset/coder`. */
export function sectionName(ns: string, scope?: string): string {
  return scope === undefined ? ns : `${ns} in ${scope}`
}

/**
 * One line per kept version: id, when it was written (what a person means by
 * "this version", and the time the settings page shows; not when a later
 * write replaced it), who made it, which sections it differs in.
 */
export function historyLines(history: SettingsHistoryValue): string[] {
  if (!history.versions.length) return ['no kept versions']
  return history.versions.map((version) => {
    const sections = version.sections.map((section) => sectionName(section.ns, section.scope)).join(', ') || '(no sections)'
    return `${version.id}  written ${version.writtenAt}  by ${version.by.join(', ')}  ${sections}`
  })
}

/** A field's value in a difference line: what the answer carries, or what kind of change a withheld one was. */
function shown(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value)
}

/** One line per changed field, from the kept version to now; secrets and undeclared keys by kind of change only. */
export function diffLines(diff: SettingsCompareValue): string[] {
  if (!diff.sections.length) return [`${diff.version}: no differences from the current settings`]
  const lines: string[] = []
  for (const section of diff.sections) {
    const name = sectionName(section.ns, section.scope)
    if (section.unregistered) {
      lines.push(`${name}: differs (no plugin registers it now, so its fields are not compared)`)
      continue
    }
    if (section.version) lines.push(`${name}: stored version ${section.version.before} → ${section.version.after}${section.version.steps?.length ? ` (${section.version.steps.join('; ')})` : ''}`)
    for (const field of section.fields) {
      const path = ['$', ...field.path].join('.')
      const kind = field.secret ? 'secret' : field.undeclared ? 'undeclared key' : field.withheld ? 'withheld' : undefined
      if (kind) lines.push(`${name} ${path}: ${field.change} (${kind}, value not shown)`)
      else lines.push(`${name} ${path}: ${shown(field.before)} → ${shown(field.after)}`)
    }
  }
  return lines
}
