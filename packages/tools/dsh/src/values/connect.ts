/**
 * Reach a deployment's settings for a `dsh settings` command: a running host
 * of the deployment when one answers (found through the record its remote
 * server keeps in the home, and its token there), else the deployment's own
 * provider started in this process with the deployment's plugins, so the
 * namespaces are registered and every write is judged as a host judges it.
 */
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Context, type Fiber } from 'cordis'
import { resolveHome } from 'dsh-settings-home'
import { importPlugin, planDeployment, type Entry, type PluginEntry } from 'dsh-loader'
import { readDocumentText } from 'dsh-settings-file/codec'
import { createRemote } from 'dsh-remote/client'
import { HOST_FILE, TOKEN_FILE } from 'dsh-remote'
import SettingsController, { type SettingsRemote } from 'dsh-settings-controller'
import type { SettingsProvider } from 'dsh-settings'
import { plugPlanned, readDeployment, settlePlugged, type Deployment, type EntryRef } from '../check/deployment.ts'
import type { CliIo } from '../io.ts'
import type { SettingsAccess } from './access.ts'

/** The deployment cannot be reached: no provider, or it failed to start. Exit code 3. */
export class UnavailableError extends Error {
  override readonly name = 'UnavailableError'
}

/** How long one call to a running host may take. */
const HOST_CALL_MS = 30_000
/** How long a host that answers may take to put `settings` on its wire after it started. */
const SETTINGS_EXPOSED_MS = 5_000
/** How long the deployment's plugins get to start in this process before a command goes on without the slow ones. */
const START_MS = 15_000

/** A string config field, or `undefined`. */
function field(config: unknown, key: string): string | undefined {
  const value = config && typeof config === 'object' ? (config as Record<string, unknown>)[key] : undefined
  return typeof value === 'string' ? value : undefined
}

/** Whether a process with this id is alive (and ours to signal, or at least there). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The deployment's `dsh-remote` entry, when it also mounts the controller (so
 * a host of it serves `settings`): read from the plan alone, without importing
 * any plugin, so a command that finds a host never loads the deployment's code.
 * A file that does not plan answers nothing here; reading the deployment
 * properly then reports why.
 */
async function remoteEntry(file: string, env: NodeJS.ProcessEnv): Promise<PluginEntry | undefined> {
  let entries: Entry[]
  try {
    const text = await readDocumentText(file)
    if (text === undefined) return undefined
    entries = planDeployment(text, env)
  } catch {
    return undefined
  }
  const plugins: PluginEntry[] = []
  const walk = (items: Entry[]) => {
    for (const item of items) {
      if (item.kind === 'scope') walk(item.entries)
      else plugins.push(item)
    }
  }
  walk(entries)
  const remote = plugins.find((entry) => entry.specifier === 'dsh-remote')
  return remote && plugins.some((entry) => entry.specifier === 'dsh-settings-controller') ? remote : undefined
}

/**
 * The running host of the deployment, if one answers: its remote server's
 * record in the home names its URL and process; the token is the config's or
 * the home's. Nothing is sent anywhere unless the record's process is alive.
 */
async function findHost(file: string, env: NodeJS.ProcessEnv): Promise<SettingsAccess | undefined> {
  const remote = await remoteEntry(file, env)
  if (!remote) return undefined
  const home = resolveHome(field(remote.config, 'home'), env)
  let record: { url?: unknown; pid?: unknown }
  try {
    record = JSON.parse(await readFile(join(home, HOST_FILE), 'utf8')) as typeof record
  } catch {
    return undefined
  }
  if (typeof record.url !== 'string' || typeof record.pid !== 'number' || !alive(record.pid)) return undefined
  const token = field(remote.config, 'token') ?? (await readFile(join(home, TOKEN_FILE), 'utf8').catch(() => undefined))?.trim()
  if (!token) return undefined
  const url = record.url
  const remoteApi = createRemote<{ settings: SettingsRemote }>({ url, token, fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(HOST_CALL_MS) }) })
  const settings = remoteApi.settings
  // A host that just started prints its address before its controller has put `settings` on the wire: give it a moment.
  const deadline = Date.now() + SETTINGS_EXPOSED_MS
  for (;;) {
    try {
      await settings.describe()
      break
    } catch (error) {
      if ((error as { code?: unknown }).code === 'remote/not-found' && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 100))
        continue
      }
      // Not answering (stopped without removing its record, or another deployment's token): the provider way is as safe.
      return undefined
    }
  }
  return {
    via: 'host',
    where: url,
    describe: (scope) => settings.describe(scope),
    mutate: (ns, ops, expectedRevision, scope) => settings.mutate(ns, ops, expectedRevision, scope),
    replace: (ns, section, expectedRevision, scope) => settings.replace(ns, section, expectedRevision, scope),
    history: (query) => settings.history(query ?? {}),
    compare: (version) => settings.compare(version),
    restore: (version, options) => settings.restore(version, options ?? {}),
    close: async () => {},
  }
}

/**
 * Start the deployment's provider, the controller and the deployment's
 * plugins (without its remote server) in a root of this process.
 * @throws {UnavailableError} when the deployment mounts no provider or it fails to start.
 */
async function startLocally(file: string, deployment: Deployment, io: CliIo): Promise<SettingsAccess> {
  const provider = deployment.provider
  if (!provider) throw new UnavailableError(`${file} mounts no settings provider`)
  const root = new Context()
  const fibers: Fiber[] = []
  const close = async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose().catch(() => {})
  }
  try {
    const plugin = await importPlugin(provider.ref.entry.specifier, dirname(file), { conditions: io.conditions })
    const providerFiber = root.plugin(plugin, structuredClone(provider.ref.entry.config) as never)
    fibers.push(providerFiber)
    await providerFiber.await()
  } catch (error) {
    await close()
    throw new UnavailableError(`the settings provider ${provider.ref.entry.specifier} did not start: ${(error as Error)?.message ?? String(error)}`)
  }
  const controllerConfig = structuredClone(deployment.network.get('dsh-settings-controller')?.entry.config ?? {})
  const controllerFiber = root.plugin(SettingsController, controllerConfig as never)
  fibers.push(controllerFiber)
  const failed: { ref: EntryRef; error: unknown }[] = []
  const { plugged, disposers } = plugPlanned(root, deployment.planned, failed)
  const settled = await settlePlugged(plugged, Date.now() + START_MS)
  // Only the plugin's key and the error's kind: a plugin's message may quote its config.
  for (const { ref, error } of [...failed, ...settled.failed]) io.err(`note: plugin ${ref.entry.key} did not start (${(error as Error)?.name ?? 'error'})`)
  await controllerFiber.await()
  const controller = root.get('settingsController') as SettingsController
  const settings = root.get('settings') as SettingsProvider
  return {
    via: 'provider',
    where: settings.documentPath ?? provider.ref.entry.specifier,
    describe: async (scope) => controller.describe(scope),
    mutate: (ns, ops, expectedRevision, scope) => controller.mutate(ns, ops, expectedRevision, scope),
    replace: (ns, section, expectedRevision, scope) => controller.replace(ns, section, expectedRevision, scope),
    history: (query) => controller.history(query ?? {}),
    compare: (version) => controller.compare(version),
    restore: (version, options) => controller.restore(version, options ?? {}),
    reveal: (ns, scope) => settings.describe({ ns, scope })[0]?.value,
    close: async () => {
      for (const dispose of disposers.reverse()) await dispose().catch(() => {})
      await close()
    },
  }
}

/**
 * Reach the settings of the deployment in `file`: a running host of it when
 * one answers (unless `reveal` asks for secrets, which no host sends), else
 * its provider in this process.
 * @throws {UsageError} when the deployment file cannot be read or planned.
 * @throws {UnavailableError} when neither way works.
 */
export async function connect(file: string, io: CliIo, { reveal = false }: { reveal?: boolean } = {}): Promise<SettingsAccess> {
  const env = io.env ?? process.env
  if (!reveal) {
    const host = await findHost(file, env)
    if (host) return host
  }
  return startLocally(file, await readDeployment(file, env, io.conditions ?? []), io)
}

