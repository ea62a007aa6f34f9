/**
 * What a running deployment says of itself on its root context, as the
 * `deployment` property: the deployment file it runs, and the version of each
 * plugin package its entries name. A host's remote server names the file to a
 * command that asks which deployment it serves, and the settings controller
 * records the versions beside the schemas it writes down, so a command can
 * tell which of them a plugin upgrade has made stale. Neither imports this
 * package: they read the property by its shape.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Context } from 'cordis'
import { resolveSpecifier, type ResolveOptions } from './import-plugin.ts'
import type { Entry } from './plan.ts'

/** The `deployment` property of a deployment's root context. */
export interface DeploymentFacts {
  /** The deployment file, absolute, symlinks resolved. */
  readonly file: string
  /** Each plugin specifier the deployment names, and the version of the package it resolves to (absent when it has none or does not resolve). */
  readonly packages: Readonly<Record<string, string>>
}

declare module 'cordis' {
  interface Context {
    /** What the deployment running this context says of itself (set by `runDeployment`). */
    deployment?: DeploymentFacts
  }
}

/** The version in the `package.json` nearest above `file`, if any. */
function versionAbove(file: string): string | undefined {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json')
    if (existsSync(manifest)) {
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }
      return typeof version === 'string' ? version : undefined
    }
    if (dirname(folder) === folder) return undefined
  }
}

/**
 * The version of the package a plugin specifier resolves to from `baseDir`,
 * read from its `package.json` without importing it; `undefined` when it does
 * not resolve or its package names no version.
 */
export function pluginVersion(specifier: string, baseDir: string, options: ResolveOptions = {}): string | undefined {
  try {
    return versionAbove(resolveSpecifier(specifier, baseDir, options))
  } catch {
    return undefined
  }
}

/** Every plugin specifier of `entries`, scope groups opened, in file order, each once. */
export function specifiersOf(entries: readonly Entry[]): string[] {
  const found = new Set<string>()
  const walk = (items: readonly Entry[]) => {
    for (const item of items) {
      if (item.kind === 'scope') walk(item.entries)
      else found.add(item.specifier)
    }
  }
  walk(entries)
  return [...found]
}

/** The facts of the deployment in `file` (absolute, real) planned as `entries`, its plugins resolved from `baseDir`. */
export function deploymentFacts(file: string, entries: readonly Entry[], baseDir: string, options: ResolveOptions = {}): DeploymentFacts {
  const packages: Record<string, string> = {}
  for (const specifier of specifiersOf(entries)) {
    const version = pluginVersion(specifier, baseDir, options)
    if (version !== undefined) packages[specifier] = version
  }
  return Object.freeze({ file, packages: Object.freeze(packages) })
}

/** Put `facts` on `root` as its `deployment` property (replacing earlier facts: the file was edited). */
export function provideFacts(root: Context, facts: DeploymentFacts): void {
  if (!Object.hasOwn(root, 'deployment') && root.get('deployment') === undefined) root.provide('deployment')
  root.set('deployment', facts)
}
