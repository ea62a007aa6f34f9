/**
 * Planning a deployment's data (its file already parsed) into entries: the
 * `plugins:` map, or cordis 4's own list form. No YAML parser here, so a tool
 * that reads the file its own way (the `dsh` command's fast reader) plans it
 * without loading one.
 */
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { interpolate } from './interpolate.ts'
import { DeploymentError, type Entry } from './entries.ts'
import { planListEntries } from './list-form.ts'

export { DeploymentError, type Entry, type PluginEntry, type ScopeEntry } from './entries.ts'

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
 * Plan a deployment file's parsed data: a map with a `plugins:` key (ours), a
 * list of entries (cordis 4's own form, see `list-form.ts`), or nothing.
 * @throws {DeploymentError} for a malformed layout.
 */
export function planData(data: unknown, env: NodeJS.ProcessEnv = process.env): Entry[] {
  if (data === null || data === undefined) return []
  if (Array.isArray(data)) return planListEntries(data, env)
  if (typeof data !== 'object') throw new DeploymentError('the deployment file must be a map with a plugins key, or a list of cordis loader entries')
  return planEntries((data as { plugins?: unknown }).plugins, env)
}
