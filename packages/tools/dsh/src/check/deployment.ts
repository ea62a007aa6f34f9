/**
 * The deployment side of `dsh settings check`: plan the deployment file as
 * `pnpm start` does, set its settings provider and its network entries aside,
 * and run the other plugins over a read-only in-memory copy of the document,
 * recording every namespace they register.
 */
import { Context, type Fiber, type Plugin } from 'cordis'
import { dirname } from 'node:path'
import { importPlugin, planDeployment, type Entry, type PluginEntry } from 'dsh-loader'
import { createScope } from 'dsh-scope'
import { SettingsProvider, type SettingsDocument } from 'dsh-settings'
import { FileSettingsProvider, resolveDocumentPath } from 'dsh-settings-file'
import { NotAFileError, readDocumentText } from 'dsh-settings-file/store'
import { CheckProvider, type Registration } from './provider.ts'
import { UsageError } from '../usage-error.ts'

export type { Registration }

// One class wherever a command is refused as asked: a value command imports it without the check's imports.
export { UsageError }

/** Entries left out: they serve the settings over the network, which a check has no use for. */
const LEFT_OUT = new Set(['dsh-remote', 'dsh-settings-controller'])
/** Settings providers known by name, so they are replaced without being imported. */
const PROVIDERS = new Set(['dsh-settings-file', 'dsh-settings-postgres', 'dsh-settings/memory'])

/** A plugin entry of the deployment, with where it sits in the file. */
export interface EntryRef {
  entry: PluginEntry
  /** The named scope groups around it, outermost first. */
  groups: string[]
  /** Its key's path in the deployment file's data (`plugins`, group keys, its own key). */
  path: string[]
}

/** The deployment as the check plugs it: plugins to plug, and scope groups holding more. */
export type Planned = { kind: 'plugin'; ref: EntryRef; plugin: Plugin } | { kind: 'scope'; name: string; children: Planned[] }

/** The file provider's config fields the check reads. */
export interface FileProviderConfig {
  path?: unknown
  home?: unknown
  maxDocumentBytes?: unknown
}

/** What reading the deployment found. */
export interface Deployment {
  /** The deployment file's text, as read. */
  text: string
  planned: Planned[]
  /** The settings provider entry, if any (the first in file order), and whether it is the file provider. */
  provider: { ref: EntryRef; file: boolean } | undefined
  /** Entries that could not be imported. */
  unloaded: { ref: EntryRef; error: unknown }[]
  /** Every plugin entry's config (after `${VAR}` interpolation), so no message echoes one of its values. */
  configs: unknown[]
  /** The entries left out because they serve the settings over the network (the first of each), by specifier. */
  network: Map<string, EntryRef>
}

/** `plugin <key>`, with the innermost scope group when it sits in one. */
export function pluginSubject(ref: EntryRef): string {
  const scope = ref.groups.at(-1)
  return `plugin ${ref.entry.key}${scope === undefined ? '' : ` in ${scope}`}`
}

/** Whether a plugin is a settings provider class: a `SettingsProvider` subclass, checked along its prototype chain. */
function isSettingsProvider(plugin: unknown): boolean {
  return typeof plugin === 'function' && plugin.prototype instanceof SettingsProvider
}

/**
 * Plan the deployment file and import its plugins (from the file's folder, as the loader does).
 * @throws {UsageError} when the file cannot be read or does not plan.
 */
export async function readDeployment(file: string, env: NodeJS.ProcessEnv, conditions: readonly string[]): Promise<Deployment> {
  let text: string | undefined
  try {
    // Never a blocking open: a FIFO there is refused at once.
    text = await readDocumentText(file)
  } catch (error) {
    const why = error instanceof NotAFileError ? `it is a ${error.kind}, not a regular file` : ((error as NodeJS.ErrnoException).code ?? (error as Error).message)
    throw new UsageError(`cannot read the deployment file ${file}: ${why}`)
  }
  if (text === undefined) throw new UsageError(`cannot read the deployment file ${file}: ENOENT`)
  let entries: Entry[]
  try {
    entries = planDeployment(text, env)
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`)
  }
  const baseDir = dirname(file)
  const deployment: Deployment = { text, planned: [], provider: undefined, unloaded: [], configs: [], network: new Map() }
  const walk = async (items: Entry[], groups: string[], path: string[]): Promise<Planned[]> => {
    const planned: Planned[] = []
    for (const item of items) {
      if (item.kind === 'scope') {
        planned.push({ kind: 'scope', name: item.name, children: await walk(item.entries, [...groups, item.name], [...path, item.key]) })
        continue
      }
      deployment.configs.push(item.config)
      const ref: EntryRef = { entry: item, groups, path: [...path, item.key] }
      if (LEFT_OUT.has(item.specifier)) {
        if (!deployment.network.has(item.specifier)) deployment.network.set(item.specifier, ref)
        continue
      }
      if (PROVIDERS.has(item.specifier)) {
        deployment.provider ??= { ref, file: item.specifier === 'dsh-settings-file' }
        continue
      }
      let plugin: Plugin
      try {
        plugin = await importPlugin(item.specifier, baseDir, { conditions })
      } catch (error) {
        deployment.unloaded.push({ ref, error })
        continue
      }
      if (isSettingsProvider(plugin)) {
        deployment.provider ??= { ref, file: plugin === FileSettingsProvider }
        continue
      }
      planned.push({ kind: 'plugin', ref, plugin })
    }
    return planned
  }
  deployment.planned = await walk(entries, [], ['plugins'])
  return deployment
}

/**
 * The document the deployment's file provider would use: its `path`, else `settings.yaml` under
 * its `home`, `$DSH_HOME` or `~/.dsh` (relative paths from the working folder, as `pnpm start` reads them).
 * @throws {UsageError} when the deployment keeps its settings elsewhere, or mounts no provider.
 */
export function defaultDocument(deployment: Deployment, env: NodeJS.ProcessEnv): string {
  const provider = deployment.provider
  if (!provider) throw new UsageError('the deployment mounts no settings provider: name the document to check as the second argument')
  if (!provider.file) {
    throw new UsageError(`the deployment keeps its settings with ${provider.ref.entry.specifier}, not in a file: name the document to check as the second argument`)
  }
  const config = (provider.ref.entry.config ?? {}) as FileProviderConfig
  return resolveDocumentPath(typeof config.path === 'string' ? config.path : undefined, typeof config.home === 'string' ? config.home : undefined, env)
}

/** What one run of the deployment showed. */
export interface Pass {
  registrations: Registration[]
  /** Plugins that failed to start, with what they threw. */
  failed: { ref: EntryRef; error: unknown }[]
  /** Plugins that did not start: waiting for services nobody provided (`waitsFor`), or still starting at the deadline (`slow`). */
  idle: { ref: EntryRef; waitsFor: string[]; slow: boolean }[]
}

/** `FiberState.PENDING` (cordis declares `FiberState` as a const enum, which isolated modules cannot read). */
const PENDING = 0

/** `task`, or `'timeout'` once `ms` passed; the timer never outlives the race. */
export async function within<T>(task: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([task, new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), ms)))])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Run the deployment's plugins over `document` in a root of their own, whose settings
 * service is a read-only {@link CheckProvider} recording every registration; wait
 * until they came to rest (or `deadline` passed), note how each fared, hand the running
 * service and the pass to `inspect` (to describe what the plugins registered while
 * they still hold it), then dispose the root.
 * @param document - given to the seam as it is (`transferToSeam`): never change it afterwards.
 */
export async function runPass<T = undefined>(
  planned: Planned[],
  document: SettingsDocument,
  deadline: number,
  inspect?: (provider: SettingsProvider, pass: Pass) => T | Promise<T>,
): Promise<Pass & { inspected: T | undefined }> {
  const root = new Context()
  const registrations: Registration[] = []
  const providerFiber = root.plugin(CheckProvider, { document, registrations })
  await providerFiber.await()
  const pass: Pass = { registrations, failed: [], idle: [] }
  const { plugged, disposers } = plugPlanned(root, planned, pass.failed)
  let inspected: T | undefined
  try {
    const fared = await waitForPlugged(plugged, deadline)
    pass.failed.push(...fared.failed)
    pass.idle.push(...fared.idle)
    if (inspect) {
      const provider = root.get('settings') as SettingsProvider | undefined
      if (provider) inspected = await inspect(provider, pass)
    }
  } finally {
    // Last plugged first; a plugin still starting is given a second, not waited for.
    for (const dispose of disposers.reverse()) await within(dispose(), 1000)
    await within(providerFiber.dispose(), 1000)
  }
  return { ...pass, inspected }
}

/** A plugin entry plugged into a root, with its fiber. */
export interface PluggedEntry {
  ref: EntryRef
  fiber: Fiber
}

/**
 * Plug the planned entries into `ctx` in file order, each scope group inside
 * a named scope of its own, each plugin with its own copy of its config (as
 * the loader hands it). A plugin whose `plugin()` call throws goes to `failed`.
 * @returns what was plugged, and the disposers to run last first.
 */
export function plugPlanned(ctx: Context, planned: Planned[], failed: { ref: EntryRef; error: unknown }[]): { plugged: PluggedEntry[]; disposers: (() => Promise<void>)[] } {
  const plugged: PluggedEntry[] = []
  const disposers: (() => Promise<void>)[] = []
  const plug = (ctx: Context, items: Planned[]) => {
    for (const item of items) {
      if (item.kind === 'scope') {
        const scope = createScope(ctx, { name: item.name })
        disposers.push(() => scope.dispose())
        plug(scope.ctx, item.children)
        continue
      }
      try {
        const fiber = ctx.plugin(item.plugin, structuredClone(item.ref.entry.config) as never)
        plugged.push({ ref: item.ref, fiber })
        disposers.push(() => fiber.dispose())
      } catch (error) {
        failed.push({ ref: item.ref, error })
      }
    }
  }
  plug(ctx, planned)
  return { plugged, disposers }
}

/**
 * Wait until the plugged entries came to rest (a plugin that provides a service
 * starts the ones waiting for it), or `deadline` (a `Date.now()` time) passed;
 * then say which failed, which wait for services nobody provides, and which were still starting.
 */
export async function waitForPlugged(plugged: readonly PluggedEntry[], deadline: number): Promise<Pick<Pass, 'failed' | 'idle'>> {
  const result: Pick<Pass, 'failed' | 'idle'> = { failed: [], idle: [] }
  for (let round = 0; round < 1000; round++) {
    const left = deadline - Date.now()
    if (left <= 0) break
    if ((await within(Promise.allSettled(plugged.map(({ fiber }) => fiber.await())), left)) === 'timeout') break
    await new Promise((done) => setImmediate(done))
    if (plugged.every(({ fiber }) => !fiber.inertia)) break
  }
  for (const { ref, fiber } of plugged) {
    if (fiber.inertia) {
      result.idle.push({ ref, waitsFor: [], slow: true })
      continue
    }
    // A config its Config schema refuses fails the fiber without changing its state: ask `await`, not `state`.
    const failure = await fiber.await().then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
    if (failure) result.failed.push({ ref, error: failure.error })
    else if (fiber.state === PENDING) result.idle.push({ ref, waitsFor: Object.keys(fiber.inject).filter((name) => fiber.ctx.get(name) === undefined), slow: false })
  }
  return result
}
