/**
 * cordis 4's own deployment format: `cordis.yml` as a list of entries
 * `{ id, name, config, disabled, group }`, as the `cordis` command's loader
 * reads and writes it, where a group entry (`group: true`, named
 * `cordis/group`) holds its child entries as its `config`. Planned into the
 * same entries as the `plugins:` map, so both forms re-plug alike.
 */
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { interpolate } from './interpolate.ts'
import { DeploymentError, type Entry } from './entries.ts'

/** The keys dsh-loader reads in a list entry; `scope` is ours (a group that is a named dsh scope). */
const KNOWN_KEYS = new Set(['id', 'name', 'config', 'disabled', 'group', 'scope'])

/** cordis's own `${{ expression }}` in a config string, which only its loader evaluates. */
const CORDIS_EXPRESSION = /\$\{\{/

/** Every string of `value` that holds a cordis expression, as a path for the message. */
function expressionAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return CORDIS_EXPRESSION.test(value) ? path : undefined
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = expressionAt(value[index], `${path}[${index}]`)
      if (found) return found
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = expressionAt(item, `${path}.${key}`)
      if (found) return found
    }
  }
  return undefined
}

/**
 * Read a list of cordis loader entries, in file order. Disabled entries (and
 * everything inside a disabled group) are left out. A group's children join
 * the list where the group stands, each keyed `<group id>/<child id>` so its
 * identity across reloads stays its own; a group with `scope: <kind>/<id>`
 * (our addition, ignored by cordis's loader) mounts its children inside that
 * named scope instead. Configs take `${VAR:-fallback}` as in the map form.
 * @throws {DeploymentError} naming the entry, for a malformed entry, a key
 *   dsh-loader does not run (`intercept`, `isolate`, `inject`…), a duplicate
 *   id, or a cordis `${{ … }}` expression.
 */
export function planListEntries(list: unknown[], env: NodeJS.ProcessEnv, where = 'cordis.yml', prefix = '', ids = new Set<string>()): Entry[] {
  const entries: Entry[] = []
  list.forEach((item, index) => {
    const at = `${where}[${index}]`
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new DeploymentError(`${at}: an entry must be a map with id and name`)
    const options = item as Record<string, unknown>
    const unknown = Object.keys(options).find((key) => !KNOWN_KEYS.has(key))
    if (unknown !== undefined) throw new DeploymentError(`${at}: "${unknown}" is a cordis loader feature dsh-loader does not run; run this file with cordis's own loader, or leave it out`)
    const id = options.id ?? options.name
    if (typeof id !== 'string' || !id) throw new DeploymentError(`${at}: an entry needs an id (or at least a name)`)
    const label = `${where}[${index}] (id ${JSON.stringify(id)})`
    const key = `${prefix}${id}`
    if (ids.has(key)) throw new DeploymentError(`${label}: the id is used twice`)
    ids.add(key)
    if (options.disabled !== undefined && options.disabled !== null && typeof options.disabled !== 'boolean') throw new DeploymentError(`${label}: disabled must be true, false or null`)
    if (options.group === true) {
      const children = options.config ?? []
      if (!Array.isArray(children)) throw new DeploymentError(`${label}: a group's config must be the list of its entries`)
      if (options.disabled === true) return
      const nested = planListEntries(children, env, `${label}.config`, `${key}/`, ids)
      if (options.scope === undefined) {
        entries.push(...nested)
        return
      }
      if (typeof options.scope !== 'string' || !SCOPE_ID_PATTERN.test(options.scope)) throw new DeploymentError(`${label}: scope must be a valid scope id (<kind>/<id>)`)
      entries.push({ kind: 'scope', key, name: options.scope, entries: nested })
      return
    }
    if (options.scope !== undefined) throw new DeploymentError(`${label}: only a group (group: true) takes a scope`)
    if (options.group !== undefined && options.group !== null && options.group !== false) throw new DeploymentError(`${label}: group must be true, false or null`)
    if (typeof options.name !== 'string' || !options.name) throw new DeploymentError(`${label}: an entry needs a name (the plugin's package or ./path)`)
    if (options.disabled === true) return
    const expression = expressionAt(options.config, 'config')
    if (expression) throw new DeploymentError(`${label}: ${expression} holds a cordis \${{ … }} expression, which only cordis's loader evaluates; write \${VAR:-fallback}`)
    let config: unknown
    try {
      config = interpolate(options.config ?? {}, env)
    } catch (error) {
      throw new DeploymentError(`${label}: ${(error as Error).message}`)
    }
    entries.push({ kind: 'plugin', key, specifier: options.name, config })
  })
  return entries
}
