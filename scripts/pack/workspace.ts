/**
 * What the pack checks read from the workspace: its packages, their manifests
 * and sources, and the third-party packages the lockfile installed for them.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT: string = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** The repository URL every manifest names (`repository.url`). */
export const REPOSITORY_URL = 'git+https://github.com/dsh-settings/dsh-settings.git'

/** The dependency fields of a manifest that may carry ranges. */
export const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'devDependencies', 'optionalDependencies'] as const

/** The part of a package.json the checks read. */
export interface Manifest {
  name: string
  version: string
  private?: boolean
  description?: string
  keywords?: string[]
  license?: string
  repository?: { type?: string; url?: string; directory?: string }
  engines?: Record<string, string>
  sideEffects?: boolean | string[]
  main?: string
  types?: string
  bin?: string | Record<string, string>
  exports?: ExportsMap
  publishConfig?: { exports?: ExportsMap }
  files?: string[]
  scripts?: Record<string, string>
  cordis?: CordisMetadata
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

/** An `exports` map: subpaths to targets, targets nested under conditions. */
export type ExportsMap = { [key: string]: string | ExportsMap }

/** A cordis plugin's metadata, as the package.json `cordis` field carries it. */
export interface CordisMetadata {
  /** The services the plugin needs, may use and provides, as cordis's and Koishi's manifest readers read them. */
  service?: { required?: string[]; optional?: string[]; implements?: string[] }
  /** The plugin's description per locale (`en`, `zh`). */
  description?: Record<string, string>
}

/** One workspace package under `packages/<area>/<name>`. */
export interface WorkspacePackage {
  /** Its folder relative to the root, `packages/<area>/<name>`. */
  dir: string
  /** Its absolute folder. */
  path: string
  manifest: Manifest
}

/** Read and parse a JSON file. */
export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

/** Every package under `packages/<area>/<name>`, ordered by folder. */
export function workspacePackages(): WorkspacePackage[] {
  const found: WorkspacePackage[] = []
  const packagesDir = join(ROOT, 'packages')
  for (const area of readdirSync(packagesDir).sort()) {
    if (!statSync(join(packagesDir, area)).isDirectory()) continue
    for (const name of readdirSync(join(packagesDir, area)).sort()) {
      const path = join(packagesDir, area, name)
      const manifestPath = join(path, 'package.json')
      if (!existsSync(manifestPath)) continue
      found.push({ dir: relative(ROOT, path), path, manifest: readJson<Manifest>(manifestPath) })
    }
  }
  return found
}

/** The packages meant for the registry (not `private`). */
export function publishedPackages(): WorkspacePackage[] {
  return workspacePackages().filter((pkg) => !pkg.manifest.private)
}

/** `exports` as a consumer gets it: every `source` condition (the workspace's TypeScript entry) removed. */
export function withoutSource(exports: ExportsMap): ExportsMap {
  const result: ExportsMap = {}
  for (const [key, value] of Object.entries(exports)) {
    if (key === 'source') continue
    result[key] = typeof value === 'string' ? value : withoutSource(value)
  }
  return result
}

/** Every string target of an exports map, with the condition path that leads to it. */
export function exportTargets(exports: ExportsMap, at: string[] = []): { conditions: string[]; target: string }[] {
  return Object.entries(exports).flatMap(([key, value]) =>
    typeof value === 'string' ? [{ conditions: [...at, key], target: value }] : exportTargets(value, [...at, key]),
  )
}

/** Every file under `dir`, as paths relative to it with `/` separators. */
export function listFiles(dir: string, prefix = ''): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) files.push(...listFiles(join(dir, entry.name), rel))
    else files.push(rel)
  }
  return files.sort()
}

/** The TypeScript sources of a package (`src/**`), as absolute paths. */
export function sourceFiles(pkg: WorkspacePackage): string[] {
  const src = join(pkg.path, 'src')
  if (!existsSync(src)) return []
  return listFiles(src)
    .filter((file) => /\.tsx?$/.test(file))
    .map((file) => join(src, file))
}

/** The package a bare specifier names: `a` of `a/b`, `@s/a` of `@s/a/b`; `undefined` for relative paths and Node built-ins. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

/** The packages a package's sources import (values and types alike, static and dynamic). */
export function importedPackages(pkg: WorkspacePackage): Set<string> {
  const names = new Set<string>()
  const patterns = [/\bfrom\s+'([^']+)'/g, /\bimport\s*\(\s*'([^']+)'\s*\)/g, /^\s*import\s+'([^']+)'/gm, /declare module '([^']+)'/g]
  for (const file of sourceFiles(pkg)) {
    const text = readFileSync(file, 'utf8')
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const name = packageOfSpecifier(match[1]!)
        if (name !== undefined) names.add(name)
      }
    }
  }
  return names
}

/** Whether `name` is one of this workspace's own packages. */
export function isWorkspaceName(name: string): boolean {
  return workspacePackages().some((pkg) => pkg.manifest.name === name)
}

/**
 * Where the install put a third-party dependency of a workspace package: the real
 * folder of `<package>/node_modules/<name>` (pnpm links each declared dependency
 * there), falling back to the root's `node_modules`.
 */
export function installedDependency(pkg: WorkspacePackage, name: string): string | undefined {
  for (const base of [pkg.path, ROOT]) {
    const link = join(base, 'node_modules', name)
    if (existsSync(join(link, 'package.json'))) return realpathSync(link)
  }
  return undefined
}

/** The numeric core and prerelease tags of a version, for {@link satisfiesCaret}. */
function parseVersion(version: string): { core: number[]; pre: string[] } | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$/.exec(version)
  if (!match) return undefined
  return { core: [Number(match[1]), Number(match[2]), Number(match[3])], pre: match[4] ? match[4].split('.') : [] }
}

/** Semver precedence: negative when `a` comes before `b`. */
function compareVersions(a: { core: number[]; pre: string[] }, b: { core: number[]; pre: string[] }): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return a.core[i]! - b.core[i]!
  if (!a.pre.length || !b.pre.length) return (a.pre.length ? -1 : 0) + (b.pre.length ? 1 : 0)
  for (let i = 0; i < Math.max(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]
    const y = b.pre[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    if (x === y) continue
    const nx = /^\d+$/.test(x)
    const ny = /^\d+$/.test(y)
    if (nx && ny) return Number(x) - Number(y)
    if (nx !== ny) return nx ? -1 : 1
    return x < y ? -1 : 1
  }
  return 0
}

/**
 * Whether `version` satisfies the caret range `range` (`^1.2.3`, `^0.1.0`,
 * `^4.0.0-rc.10`), as npm reads one: at least the base, below the next
 * breaking release, prereleases only of the base's own major.minor.patch.
 * Any range that is not a plain caret range answers `false`.
 */
export function satisfiesCaret(version: string, range: string): boolean {
  if (!range.startsWith('^')) return false
  const base = parseVersion(range.slice(1))
  const actual = parseVersion(version)
  if (!base || !actual) return false
  if (compareVersions(actual, base) < 0) return false
  if (actual.pre.length && actual.core.join('.') !== base.core.join('.')) return false
  const [major, minor, patch] = base.core as [number, number, number]
  const limit = major > 0 ? [major + 1, 0, 0] : minor > 0 ? [0, minor + 1, 0] : [0, 0, patch + 1]
  return compareVersions({ core: actual.core, pre: [] }, { core: limit, pre: [] }) < 0
}
