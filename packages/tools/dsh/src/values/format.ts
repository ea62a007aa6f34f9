/**
 * How `dsh settings` prints what it read: values as YAML (or JSON), a secret
 * as `(set)` in its place, kept versions one per line, and differences one
 * field per line. Nothing here ever prints a value a redacted answer withheld.
 */
import { stringify } from 'yaml'
import type { SettingsCompareValue, SettingsHistoryValue, SettingsNamespaceView } from 'dsh-settings-controller'

/** What stands for a secret that holds a value. */
export const SECRET_SET = '(set)'

/** A copy of `value` with `(set)` at each secret path the view says holds a value (the redacted value left them out). */
export function withSecretMarks(view: SettingsNamespaceView): unknown {
  let value: unknown = view.value === undefined ? undefined : structuredClone(view.value)
  for (const secret of view.secrets ?? []) {
    if (!secret.set) continue
    if (!secret.path.length) {
      value = SECRET_SET
      continue
    }
    let node = value as Record<string, unknown>
    for (const key of secret.path.slice(0, -1)) {
      if (!node || typeof node !== 'object') break
      node = node[key] as Record<string, unknown>
    }
    if (node && typeof node === 'object') node[secret.path.at(-1)!] = SECRET_SET
  }
  return value
}

/** The value at `path` inside `value`, and whether anything is there. */
export function valueAt(value: unknown, path: readonly string[]): { found: boolean; value?: unknown } {
  let node = value
  for (const key of path) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return { found: false }
    node = (node as Record<string, unknown>)[key]
  }
  return { found: true, value: node }
}

/** A value as `get` prints it: a scalar as itself, anything else as YAML (or everything as JSON). */
export function showValue(value: unknown, json: boolean): string {
  if (json) return JSON.stringify(value, null, 2)
  if (typeof value === 'string') return value
  if (value === null || typeof value !== 'object') return String(value)
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
