/**
 * The server half of the settings page's end-to-end tests: the page's assets
 * built into a temp folder, and a real deployment (YAML file provider, remote
 * server, settings controller, the spec's own plugins) in a temp home, as
 * `pnpm start` would run it but on a free port and with nothing left behind.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { Context, Logger, type Fiber } from 'cordis'
import { RemoteServer, TOKEN_FILE } from 'dsh-remote'
import { createRemote, type Remote } from 'dsh-remote/client'
import { createScope, type Scope } from 'dsh-scope'
import { SettingsController, type PresetRoot, type SettingsRemote } from 'dsh-settings-controller'
import { FileSettingsProvider } from 'dsh-settings-file'
import { buildPage } from '../../../src/build.ts'

/** The page's built assets in a temp folder of their own. */
export interface BuiltAssets {
  /** The folder holding `index.html` and `assets/`; hand it to {@link startDeployment} as `assets`. */
  dir: string
  /** Delete the folder. */
  remove(): Promise<void>
}

/** A fresh temp folder, symlinks resolved so paths compare equal to what the servers report. */
export async function tempFolder(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)))
}

/**
 * Build the page with the package's own Vite settings into a fresh temp
 * folder. Call it once per spec file, in `beforeAll`; a build takes a second or two.
 * @throws whatever Vite throws when the page's sources do not build (the temp folder is removed first).
 */
export async function buildAssets(): Promise<BuiltAssets> {
  const dir = await tempFolder('dsh-page-assets-')
  const remove = () => rm(dir, { recursive: true, force: true })
  try {
    await buildPage(dir)
  } catch (error) {
    await remove()
    throw error
  }
  return { dir, remove }
}

/** A plugin body from a spec; it is plugged with `inject: ['settings']`, so `ctx.settings` is ready. */
export type DeploymentPlugin = (ctx: Context) => void | Promise<void>

/** What {@link startDeployment} boots. */
export interface DeploymentOptions {
  /** The folder of page assets the remote server serves at `/` (from {@link buildAssets}). */
  assets: string
  /** The initial text of `settings.yaml`; without it the document does not exist at start. */
  document?: string
  /** Plugins plugged in the global scope once the services are up, in order. */
  plugins?: DeploymentPlugin[]
  /**
   * Plugins plugged in the global scope after `plugins`, whose start may wait for
   * setup (their `register` refused for missing values): plugged without waiting.
   */
  waiting?: DeploymentPlugin[]
  /** Plugins plugged inside named scopes, keyed by scope id (`preset/coder`), after the global ones. */
  scoped?: Record<string, DeploymentPlugin[]>
  /** The controller's native opener; `false` (no opener) unless given, so no test ever opens a desktop app. */
  opener?: string[] | false
  /** The controller's preset roots; its default (`<home>/presets`, writable) unless given. */
  presets?: PresetRoot[]
  /** The settings provider class: the YAML file provider, or a subclass of it with rules of its own. */
  provider?: typeof FileSettingsProvider
  /** Where the provider puts secrets written through the settings: its default (`file`, `secrets.yaml` beside the document) unless given. */
  secrets?: 'file' | 'inline'
}

/** A running deployment and the handles a spec needs to drive and inspect it. */
export interface Deployment {
  /** The root cordis context everything is plugged into. */
  root: Context
  /** The temp home (token file, default preset root, `settings.yaml`, and beside it `secrets.yaml` and `history/`). */
  home: string
  /** The absolute path of `settings.yaml`. */
  file: string
  /** The remote server's base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string
  /** The page's address with the token in its fragment, as the server prints it. */
  pageUrl: string
  /** The remote server's bearer token. */
  token: string
  /** A Node client of the `settings` service on this deployment. */
  remote: Remote<{ settings: SettingsRemote }>
  /** The named scopes the scoped plugins were plugged into, by id. */
  scopes: ReadonlyMap<string, Scope>
  /** Every log line so far, formatted as a console would print it (no colors, no truncation). */
  logs(): string[]
  /** The current text of `settings.yaml`. */
  readFile(): Promise<string>
  /** Replace `settings.yaml` as an editor would: write a temp sibling, then rename it over the document. */
  writeFile(text: string): Promise<void>
  /** Dispose every fiber (newest first) and delete the temp home. Calling it again returns the same settlement. */
  dispose(): Promise<void>
}

/** Collect every log line of `root`, at every level, formatted in full. */
function captureLogs(root: Context): string[] {
  const lines: string[] = []
  const exporter = {
    colors: false as const,
    levels: { default: 3 },
    maxLength: Number.POSITIVE_INFINITY,
    export: (message: Parameters<typeof Logger.format>[1]) => void lines.push(`[${message.type}] ${message.name} ${Logger.format(exporter, message)}`),
  }
  root.logger.exporter(exporter)
  return lines
}

/** Wait for a freshly plugged fiber, so a failing apply rejects here rather than staying silent. */
async function settled(fiber: Fiber): Promise<Fiber> {
  await fiber.await()
  return fiber
}

/** Plug one spec plugin, with `settings` injected, and wait for its apply (and a returned promise) to finish. */
async function plugSpecPlugin(ctx: Context, apply: DeploymentPlugin, label: string): Promise<Fiber> {
  return settled(ctx.plugin({ name: label, inject: ['settings'], apply }))
}

/** Resolve with a service once cordis makes it available on `root`. */
export async function serviceOf<K extends 'remoteServer' | 'settings' | 'settingsController'>(root: Context, name: K): Promise<Context[K]> {
  let found!: Context[K]
  const probe = root.inject([name], (ctx) => {
    found = ctx[name]
  })
  await probe
  await probe.dispose()
  return found
}

/** Write `text` to `file` through a temp sibling and a rename, so a watcher never sees half a document. */
async function replaceFile(file: string, text: string): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(4).toString('hex')}.edit`)
  try {
    await writeFile(temp, text, { mode: 0o600 })
    await rename(temp, file)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** Plug the three services of a deployment in the order `cordis.yml` lists them. */
async function plugServices(root: Context, home: string, file: string, options: DeploymentOptions): Promise<Fiber[]> {
  const controller: ConstructorParameters<typeof SettingsController>[1] = { home, opener: options.opener ?? false }
  if (options.presets) controller.presets = options.presets
  return [
    await settled(root.plugin(options.provider ?? FileSettingsProvider, { path: file, debounceMs: 50, recheckMs: 500, ...(options.secrets ? { secrets: options.secrets } : {}) })),
    await settled(root.plugin(RemoteServer, { home, port: 0, static: options.assets })),
    await settled(root.plugin(SettingsController, controller)),
  ]
}

/** Plug the spec's global plugins, then its scoped ones (one named scope per key). */
async function plugSpecPlugins(root: Context, options: DeploymentOptions, fibers: Fiber[], scopes: Map<string, Scope>): Promise<void> {
  for (const [index, apply] of (options.plugins ?? []).entries()) fibers.push(await plugSpecPlugin(root, apply, `e2e-plugin-${index}`))
  for (const [index, apply] of (options.waiting ?? []).entries()) fibers.push(root.plugin({ name: `e2e-waiting-${index}`, inject: ['settings'], apply }))
  for (const [id, plugins] of Object.entries(options.scoped ?? {})) {
    const scope = createScope(root, { name: id })
    scopes.set(id, scope)
    for (const [index, apply] of plugins.entries()) fibers.push(await plugSpecPlugin(scope.ctx, apply, `e2e-plugin-${id}-${index}`))
  }
}

/** Dispose `fibers` newest first, then the scopes, tolerating fibers that already failed. */
async function disposeAll(fibers: readonly Fiber[], scopes: ReadonlyMap<string, Scope>): Promise<void> {
  for (const fiber of [...fibers].reverse()) await fiber.dispose().catch(() => {})
  for (const scope of scopes.values()) await scope.dispose()
}

/**
 * Boot a deployment in a fresh temp home: the file provider on
 * `<home>/settings.yaml` (50 ms debounce, 500 ms re-check), the remote server
 * on 127.0.0.1 with a free port serving `assets`, the controller (exposed as
 * `settings`), then the spec's plugins. Every fiber is awaited, so a plugin
 * that fails to apply rejects this call (after everything booted so far is
 * disposed and the home removed).
 */
export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const home = await tempFolder('dsh-page-home-')
  const file = join(home, 'settings.yaml')
  const root = new Context()
  const lines = captureLogs(root)
  const fibers: Fiber[] = []
  const scopes = new Map<string, Scope>()
  let disposal: Promise<void> | undefined
  const dispose = () => (disposal ??= disposeAll(fibers, scopes).finally(() => rm(home, { recursive: true, force: true })))
  try {
    if (options.document !== undefined) await writeFile(file, options.document, { mode: 0o600 })
    fibers.push(...(await plugServices(root, home, file, options)))
    await serviceOf(root, 'settingsController')
    const { url } = await serviceOf(root, 'remoteServer')
    const token = (await readFile(join(home, TOKEN_FILE), 'utf8')).trim()
    await plugSpecPlugins(root, options, fibers, scopes)
    return {
      root,
      home,
      file,
      url,
      token,
      pageUrl: `${url}/#token=${token}`,
      remote: createRemote<{ settings: SettingsRemote }>({ url, token }),
      scopes,
      logs: () => [...lines],
      readFile: () => readFile(file, 'utf8'),
      writeFile: (text) => replaceFile(file, text),
      dispose,
    }
  } catch (error) {
    await dispose()
    throw error
  }
}
