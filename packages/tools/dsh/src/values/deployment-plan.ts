/**
 * A deployment as a value command reads it with no host running: the plan of
 * its file alone (no plugin is imported, so no plugin code runs, not even a
 * module's top level), with the three entries a command needs: the settings
 * provider, the controller (whose home holds the catalog) and the remote
 * server (whose home holds a running host's record).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { planData, type Entry, type PluginEntry } from 'dsh-loader/plan'
import { readPlainText, readYamlData } from 'dsh-settings-file/fast-read'
import { UsageError } from '../usage-error.ts'

/** Settings providers known by name: the command starts them without asking their package. */
const KNOWN_PROVIDERS = new Set(['dsh-settings-file', 'dsh-settings-postgres', 'dsh-settings/memory'])

/** What a value command knows of a deployment before it reaches its settings. */
export interface ValuePlan {
  /** The deployment file as named (absolute). */
  file: string
  /** Its realpath: what a host's record and catalog name. */
  real: string
  /** Where its plugin specifiers are resolved from. */
  baseDir: string
  /** Every plugin entry, scope groups opened, in file order. */
  plugins: PluginEntry[]
  /** The first entry that provides `settings`. */
  provider?: PluginEntry
  /** The first `dsh-settings-controller` entry. */
  controller?: PluginEntry
  /** The first `dsh-remote` entry. */
  remote?: PluginEntry
}

/** A string field of an entry's config, or `undefined`. */
export function configField(entry: PluginEntry | undefined, key: string): string | undefined {
  const config = entry?.config
  const value = config && typeof config === 'object' ? (config as Record<string, unknown>)[key] : undefined
  return typeof value === 'string' ? value : undefined
}

/** The `package.json` nearest above `file`, parsed, if any. */
export function manifestAbove(file: string): Record<string, unknown> | undefined {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json')
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>
    if (dirname(folder) === folder) return undefined
  }
}

/**
 * Whether an entry's plugin provides `settings`, read from what its package
 * declares (`cordis.service.implements`, the manifest cordis plugins publish)
 * without importing it; providers of ours are known by name.
 */
export async function providesSettings(specifier: string, baseDir: string, conditions: readonly string[]): Promise<boolean> {
  if (KNOWN_PROVIDERS.has(specifier)) return true
  // The resolver is loaded only for a provider not known by name.
  const { resolveSpecifier } = await import('dsh-loader/resolve')
  try {
    const manifest = manifestAbove(resolveSpecifier(specifier, baseDir, { conditions }))
    const implemented = (manifest?.cordis as { service?: { implements?: unknown } } | undefined)?.service?.implements
    return Array.isArray(implemented) && implemented.includes('settings')
  } catch {
    return false
  }
}

/** Every plugin entry of `entries`, scope groups opened, in file order. */
function pluginsOf(entries: readonly Entry[]): PluginEntry[] {
  return entries.flatMap((entry) => (entry.kind === 'scope' ? pluginsOf(entry.entries) : [entry]))
}

/**
 * The deployment file's text, read as a document is (never a blocking open);
 * the full read only where the quick one cannot settle it, for its refusal.
 */
async function deploymentText(file: string): Promise<string> {
  const quick = readPlainText(file)
  if (quick && 'text' in quick) return quick.text
  if (quick) throw new UsageError(`cannot read the deployment file ${file}: ENOENT`)
  const { readDocumentText, NotAFileError } = await import('dsh-settings-file/fast-read')
  try {
    const text = await readDocumentText(file)
    if (text !== undefined) return text
  } catch (error) {
    const why = error instanceof NotAFileError ? `it is a ${error.kind}, not a regular file` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
    throw new UsageError(`cannot read the deployment file ${file}: ${why}`)
  }
  throw new UsageError(`cannot read the deployment file ${file}: ENOENT`)
}

/** The deployment's entries: planned from the fast reader's data when it takes the text, else by the loader's own parse. */
async function entriesOf(text: string, env: NodeJS.ProcessEnv): Promise<Entry[]> {
  const data = readYamlData(text)
  if (data !== undefined) return planData(data, env)
  const { planDeployment } = await import('dsh-loader')
  return planDeployment(text, env)
}

/**
 * Read and plan the deployment in `file` (`${VAR}` taken from `env`) without importing a plugin.
 * @throws {UsageError} when the file cannot be read or does not plan.
 */
export async function planValues(file: string, env: NodeJS.ProcessEnv, conditions: readonly string[]): Promise<ValuePlan> {
  const text = await deploymentText(file)
  let entries: Entry[]
  try {
    entries = await entriesOf(text, env)
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`)
  }
  const baseDir = dirname(file)
  const plugins = pluginsOf(entries)
  let provider: PluginEntry | undefined
  for (const entry of plugins) {
    if (!(await providesSettings(entry.specifier, baseDir, conditions))) continue
    provider = entry
    break
  }
  return {
    file,
    real: realpathSync(file),
    baseDir,
    plugins,
    provider,
    controller: plugins.find((entry) => entry.specifier === 'dsh-settings-controller'),
    remote: plugins.find((entry) => entry.specifier === 'dsh-remote'),
  }
}
