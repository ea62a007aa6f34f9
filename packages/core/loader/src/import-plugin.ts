import { existsSync, readFileSync, statSync } from 'node:fs'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Plugin } from 'cordis'
import { moduleResolve } from 'import-meta-resolve'
import { processConditions } from './conditions.ts'
import { prepareTypeScript } from './typescript.ts'

export { processConditions } from './conditions.ts'

/** Options of {@link resolveSpecifier} and {@link importPlugin}. */
export interface ResolveOptions {
  /**
   * The export conditions to match besides the ones every ESM import matches
   * (`node`, `import`, `default`, and `module-sync` where Node has it).
   * Defaults to the process's own, from {@link processConditions}.
   */
  conditions?: readonly string[]
}


/** The full condition set an ESM import in this process matches, with `extra` as the user conditions. */
function importConditions(extra: readonly string[]): Set<string> {
  const builtIn = ['node', 'import']
  // Node 20.19+ matches `module-sync` whenever it can require() ES modules.
  if ((process.features as { require_module?: boolean }).require_module) builtIn.push('module-sync')
  return new Set([...builtIn, ...extra])
}

/** Resolve `specifier` as an ESM `import` written in a module that lives in `dir`. */
function resolveImport(specifier: string, dir: string, conditions: Set<string>): string {
  const url = moduleResolve(specifier, pathToFileURL(join(dir, '/')), conditions, false)
  if (url.protocol !== 'file:') throw new Error(`"${specifier}" resolves to ${url.href}, which is not a plugin module file`)
  return fileURLToPath(url)
}

/**
 * The file a plugin specifier names, resolved from `baseDir` the way an ESM
 * `import` there would: package `exports` pick their `import` branch (never
 * `require`), and the process's `--conditions` (such as the workspace's
 * `source`) take part unless `options.conditions` says otherwise. A `./` or
 * absolute path to a folder with a `package.json` resolves through that
 * package's `exports` (or its `main`, else `index.js`).
 * @throws an error with code `ERR_MODULE_NOT_FOUND` (and a "Cannot find module"
 * message) when nothing is there.
 */
export function resolveSpecifier(specifier: string, baseDir: string, options: ResolveOptions = {}): string {
  const conditions = importConditions(options.conditions ?? processConditions())
  const relative = specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..'
  if (!relative && !isAbsolute(specifier)) return resolveImport(specifier, baseDir, conditions)
  const path = resolve(baseDir, specifier)
  const manifest = join(path, 'package.json')
  if (existsSync(path) && statSync(path).isDirectory() && existsSync(manifest)) {
    const { name, exports, main } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; exports?: unknown; main?: string }
    // A package folder: with an exports map, import it by its own name from inside it, so the map applies.
    if (exports !== undefined && name) return resolveImport(name, path, conditions)
    return resolveImport(`./${main ?? 'index.js'}`, path, conditions)
  }
  return resolveImport(pathToFileURL(path).href, baseDir, conditions)
}

/**
 * Import a plugin module, resolved by {@link resolveSpecifier}: its default
 * export, or the module itself when it has none (a module that exports
 * `apply`, `inject`, … as a plugin object). A TypeScript file is loaded through
 * the project's `tsx` when this process cannot load it by itself.
 * @throws {TypeScriptLoaderError} for a TypeScript file with no way to load it.
 */
export async function importPlugin(specifier: string, baseDir: string, options: ResolveOptions = {}): Promise<Plugin> {
  const file = resolveSpecifier(specifier, baseDir, options)
  await prepareTypeScript(file, baseDir)
  const module = (await import(pathToFileURL(file).href)) as { default?: Plugin }
  return (module.default ?? module) as Plugin
}
