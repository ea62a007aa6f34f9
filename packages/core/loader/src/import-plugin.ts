import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Plugin } from 'cordis'

/** The file a specifier names, resolved from `baseDir` as Node would (with the process's `--conditions`). */
export function resolveSpecifier(specifier: string, baseDir: string): string {
  const require = createRequire(join(baseDir, 'package.json'))
  if (!specifier.startsWith('.') && !isAbsolute(specifier)) return require.resolve(specifier)
  const path = resolve(baseDir, specifier)
  const manifest = join(path, 'package.json')
  if (existsSync(path) && statSync(path).isDirectory() && existsSync(manifest)) {
    // A package folder: resolve it by its own name, so its `exports` map applies.
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }
    return createRequire(manifest).resolve(name)
  }
  return require.resolve(path)
}

/** Import a plugin module: its default export, or the module itself when it is a plugin object. */
export async function importPlugin(specifier: string, baseDir: string): Promise<Plugin> {
  const module = (await import(pathToFileURL(resolveSpecifier(specifier, baseDir)).href)) as { default?: Plugin }
  return (module.default ?? module) as Plugin
}
