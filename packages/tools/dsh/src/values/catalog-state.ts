/**
 * What a value command with no host running knows of the deployment's
 * schemas: the catalog its host last wrote (`dsh-settings-controller/catalog`),
 * trusted only as the user's own private file naming this very deployment,
 * with each kind's schema revived as data (`dsh-settings/revive`: no plugin
 * code runs), and the plugins whose installed version is not the one the
 * host ran. Without a usable catalog every namespace is unchecked, and the
 * state says why.
 */
import { existsSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { resolveHome } from 'dsh-settings-home'
import { readCatalog, type CatalogKind, type SettingsCatalog } from 'dsh-settings-controller/catalog'
import { configField, manifestAbove, type ValuePlan } from './deployment-plan.ts'

/** The catalog, when one can be used, and why not otherwise. */
export type CatalogState =
  | { catalog: SettingsCatalog; kinds: Map<string, CatalogKind>; path: string; stale: string[] }
  | { catalog?: undefined; why: string }

/**
 * The version of the package a plugin specifier most likely names, found the
 * way Node finds a package (`node_modules/<name>` up from the deployment's
 * folder; a relative path's nearest `package.json`), without resolving it.
 * Only a shortcut: where it does not find the recorded version, the loader's
 * own resolution (what the host recorded with) decides.
 */
function likelyVersion(specifier: string, baseDir: string): string | undefined {
  let manifest: Record<string, unknown> | undefined
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const path = resolve(baseDir, specifier)
    manifest = manifestAbove(existsSync(path) && statSync(path).isDirectory() ? join(path, 'package.json') : path)
  } else {
    const name = specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
    for (let folder = baseDir; !manifest; folder = dirname(folder)) {
      if (existsSync(join(folder, 'node_modules', name, 'package.json'))) manifest = manifestAbove(join(folder, 'node_modules', name, 'package.json'))
      if (dirname(folder) === folder) break
    }
  }
  return typeof manifest?.version === 'string' ? manifest.version : undefined
}

/**
 * Each plugin whose installed version is not the one the host ran, as
 * `name (recorded → installed)`, and each the deployment names that the host
 * did not run, as `name (not recorded)`.
 */
async function stalePlugins(catalog: SettingsCatalog, plan: ValuePlan, conditions: readonly string[]): Promise<string[]> {
  const recorded = catalog.deployment.packages
  const stale: string[] = []
  for (const specifier of new Set(plan.plugins.map((entry) => entry.specifier))) {
    if (Object.hasOwn(recorded, specifier) && likelyVersion(specifier, plan.baseDir) === recorded[specifier]) continue
    // The resolver is loaded only when the shortcut does not settle it.
    const { pluginVersion } = await import('dsh-loader/facts')
    const installed = pluginVersion(specifier, plan.baseDir, { conditions })
    if (installed === undefined) continue
    if (!Object.hasOwn(recorded, specifier)) stale.push(`${specifier} (not recorded)`)
    else if (recorded[specifier] !== installed) stale.push(`${specifier} (${recorded[specifier]} → ${installed})`)
  }
  return stale
}

/** The catalog of the deployment `plan` describes, as far as it can be trusted. */
export async function catalogState(plan: ValuePlan, env: NodeJS.ProcessEnv, conditions: readonly string[]): Promise<CatalogState> {
  if (!plan.controller) return { why: `${plan.file} mounts no dsh-settings-controller, whose host would record the plugins' schemas` }
  const found = readCatalog(resolveHome(configField(plan.controller, 'home'), env))
  if ('refused' in found) return { why: found.why }
  const { catalog } = found
  if (catalog.deployment.file !== plan.real) return { why: `${found.path} was written by the host of ${catalog.deployment.file}, not of ${plan.real}` }
  return { catalog, kinds: new Map(catalog.kinds.map((kind) => [kind.ns, kind])), path: found.path, stale: await stalePlugins(catalog, plan, conditions) }
}

/** The line that says a namespace is read or written without a schema, and why. */
export function uncheckedLine(namespaces: readonly string[], why: string): string {
  return `(unchecked: no schema recorded for ${namespaces.join(', ')}: ${why}; its values are read and written as stored, unjudged. Start the host once to record the schemas)`
}

/** The one note line naming plugins changed since the host last ran, or `undefined`. */
export function staleLine(state: CatalogState): string | undefined {
  if (!state.catalog || !state.stale.length) return undefined
  return `note: plugins changed since the host last ran, so their recorded schemas may be out of date (start the host once to record them): ${state.stale.join(', ')}`
}
