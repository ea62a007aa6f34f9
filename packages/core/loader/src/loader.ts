import type { Context, Fiber, Plugin } from 'cordis'
import equal from 'fast-deep-equal'
import { createScope, type Scope } from 'dsh-scope'
import { importPlugin } from './import-plugin.ts'
import type { Entry, PluginEntry, ScopeEntry } from './plan.ts'
import { isWaitingForSetup } from './waiting.ts'

/** A plugin entry as it runs: its fiber, or none when it could not be loaded. */
interface RunningPlugin {
  entry: PluginEntry
  fiber: Fiber | undefined
}

/** A scope group as it runs. */
interface RunningScope {
  entry: ScopeEntry
  scope: Scope
  children: Running[]
}

type Running = RunningPlugin | RunningScope

/** Options of {@link DeploymentLoader}. */
export interface DeploymentLoaderOptions {
  /** The deployment file's folder: `./` specifiers and package names resolve from here. */
  baseDir: string
  /** How a specifier becomes a plugin; the default imports it. */
  load?: (specifier: string, baseDir: string) => Promise<Plugin>
}

function unchanged(running: Running, entry: Entry): boolean {
  if (running.entry.kind !== entry.kind) return false
  if (entry.kind === 'scope') return (running.entry as ScopeEntry).name === entry.name
  const current = running.entry as PluginEntry
  return (running as RunningPlugin).fiber !== undefined && current.specifier === entry.specifier && equal(current.config, entry.config)
}

/**
 * Plugs a deployment's entries into a root context and keeps them in step
 * with later versions of the file: an entry whose config changed is disposed
 * (and its disposal awaited) before its replacement is plugged; untouched
 * entries keep running; removed or disabled ones are disposed. "Changed" is
 * judged against a private copy of the config the entry was plugged with; the
 * plugin gets a copy of its own, so what its schema or code does to that
 * object never counts as an edit. Configs are plain data (what YAML parses to),
 * copied with `structuredClone`.
 */
export class DeploymentLoader {
  private running: Running[] = []
  private readonly load: (specifier: string, baseDir: string) => Promise<Plugin>

  constructor(private readonly root: Context, private readonly options: DeploymentLoaderOptions) {
    this.load = options.load ?? importPlugin
  }

  /** Bring the running plugins in line with `entries`. */
  async apply(entries: Entry[]): Promise<void> {
    this.running = await this.reconcile(this.root, this.running, entries)
  }

  /** Dispose every entry, last plugged first. */
  async dispose(): Promise<void> {
    for (const running of [...this.running].reverse()) await this.stop(running)
    this.running = []
  }

  private async reconcile(ctx: Context, running: Running[], entries: Entry[]): Promise<Running[]> {
    const byKey = new Map(running.map((item) => [item.entry.key, item]))
    const kept = new Set(entries.map((entry) => byKey.get(entry.key)).filter((item, index): item is Running => !!item && unchanged(item, entries[index]!)))
    for (const item of [...running].reverse()) if (!kept.has(item)) await this.stop(item)
    const next: Running[] = []
    for (const entry of entries) {
      const item = byKey.get(entry.key)
      if (item && kept.has(item)) {
        if (item.entry.kind === 'scope') {
          const group = item as RunningScope
          group.children = await this.reconcile(group.scope.ctx, group.children, (entry as ScopeEntry).entries)
          group.entry = entry as ScopeEntry
        }
        next.push(item)
      } else {
        next.push(await this.start(ctx, entry))
      }
    }
    return next
  }

  private async start(ctx: Context, entry: Entry): Promise<Running> {
    const logger = this.root.logger('loader')
    if (entry.kind === 'scope') {
      const scope = createScope(ctx, { name: entry.name })
      return { entry, scope, children: await this.reconcile(scope.ctx, [], entry.entries) }
    }
    // What the file said, kept apart from the copy the plugin gets: a plugin's Config schema may
    // convert its config in place (`port: "5140"` becoming 5140), and the next reload compares
    // against this copy, so a conversion alone must not look like an edit.
    const declared: PluginEntry = { ...entry, config: structuredClone(entry.config) }
    try {
      const plugin = await this.load(entry.specifier, this.options.baseDir)
      const fiber = ctx.plugin(plugin, structuredClone(declared.config) as never)
      fiber.await().catch((error: unknown) => {
        // Waiting for setup is a state, not a failure: cordis's own record of it is the one line (see waiting.ts).
        if (!isWaitingForSetup(error)) logger.error('plugin %s failed: %s', entry.key, (error as Error)?.message ?? error)
      })
      return { entry: declared, fiber }
    } catch (error) {
      logger.error('plugin %s could not be loaded: %s', entry.key, (error as Error)?.message ?? error)
      return { entry: declared, fiber: undefined }
    }
  }

  private async stop(running: Running): Promise<void> {
    if (running.entry.kind === 'scope') await (running as RunningScope).scope.dispose()
    else await (running as RunningPlugin).fiber?.dispose()
  }
}
