import { parse } from 'yaml'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { interpolate } from './interpolate.ts'

/** One plugin to plug, as a deployment file declares it. */
export interface PluginEntry {
  kind: 'plugin'
  /** The entry's key: its identity across reloads. */
  key: string
  /** Module specifier: a package name, or a path starting with `./` (relative to the deployment file). */
  specifier: string
  /** The optional `:label` that lets one plugin be plugged twice. */
  label?: string
  /** The config after environment interpolation. */
  config: unknown
}

/** A named scope holding its own entries. */
export interface ScopeEntry {
  kind: 'scope'
  key: string
  /** The scope id (`preset/coder`). */
  name: string
  entries: Entry[]
}

/** One item of a deployment. */
export type Entry = PluginEntry | ScopeEntry

/** A deployment file is wrong; the message names the entry. */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError'
  readonly code = 'DEPLOYMENT_INVALID'
}

const LABEL = /^[a-z0-9][a-z0-9-]*$/

/** Split `specifier[:label]`; a colon followed by anything but a label is part of the specifier. */
function splitLabel(key: string): { specifier: string; label?: string } {
  const colon = key.lastIndexOf(':')
  if (colon > 0 && LABEL.test(key.slice(colon + 1))) return { specifier: key.slice(0, colon), label: key.slice(colon + 1) }
  return { specifier: key }
}

/**
 * Read a `plugins:`-style map into entries, in file order. A key starting with
 * `~` is disabled and left out; `scope:<id>` opens a named scope whose value is
 * another such map; any other key is a plugin specifier, optionally with `:label`.
 * @throws {DeploymentError} for a malformed key or group.
 */
export function planEntries(map: unknown, env: NodeJS.ProcessEnv, where = 'plugins'): Entry[] {
  if (map === null || map === undefined) return []
  if (typeof map !== 'object' || Array.isArray(map)) throw new DeploymentError(`${where} must be a map of plugin entries`)
  const entries: Entry[] = []
  for (const [key, value] of Object.entries(map)) {
    if (key.startsWith('~')) continue
    if (key.startsWith('scope:')) {
      const name = key.slice('scope:'.length)
      if (!SCOPE_ID_PATTERN.test(name)) throw new DeploymentError(`${where}: "${key}" does not name a valid scope id (<kind>/<id>)`)
      entries.push({ kind: 'scope', key, name, entries: planEntries(value, env, `${where}.${key}`) })
      continue
    }
    const { specifier, label } = splitLabel(key)
    if (!specifier) throw new DeploymentError(`${where}: an entry needs a module specifier`)
    let config: unknown
    try {
      config = interpolate(value ?? {}, env)
    } catch (error) {
      throw new DeploymentError(`${where}.${key}: ${(error as Error).message}`)
    }
    entries.push({ kind: 'plugin', key, specifier, ...(label ? { label } : {}), config })
  }
  return entries
}

/**
 * Parse a deployment file's text into its entries.
 * @throws {DeploymentError} for unparsable YAML (with its position) or a malformed layout.
 */
export function planDeployment(text: string, env: NodeJS.ProcessEnv = process.env): Entry[] {
  let data: unknown
  try {
    data = parse(text) ?? {}
  } catch (error) {
    // The position only: yaml's own message quotes the source line.
    const position = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0]
    const code = (error as { code?: string }).code
    throw new DeploymentError(`the deployment file is not valid YAML${position ? ` at line ${position.line}, column ${position.col}` : ''}${code ? ` (${code})` : ''}`)
  }
  if (typeof data !== 'object' || Array.isArray(data)) throw new DeploymentError('the deployment file must be a map with a plugins key')
  return planEntries((data as { plugins?: unknown }).plugins, env)
}
