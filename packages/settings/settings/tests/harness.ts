import { Context, type Fiber } from 'cordis'
import { createScope } from 'dsh-scope'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsDocument, SettingsProvider } from 'dsh-settings'
import { ControlledProvider } from './controlled-provider.ts'
import { logText, plugWithSettings } from 'dsh-testing'

export { deferred, drainMicrotasks } from 'dsh-testing'

/** One captured log line. */
export interface LogLine {
  type: string
  text: string
}

/** A booted root context with a provider and captured logs. */
export interface Harness<P extends SettingsProvider = MemorySettingsProvider> {
  root: Context
  provider: P
  providerFiber: Fiber
  logs: LogLine[]
  /** Plug a plugin that needs `settings` and resolve with what `apply` returned and its fiber. */
  mount<T>(apply: (ctx: Context) => T, parent?: Context): Promise<{ value: T; fiber: Fiber }>
  /** Mount inside a named scope; resolves with the scope too. */
  mountInScope<T>(name: string | undefined, apply: (ctx: Context) => T): Promise<{ value: T; fiber: Fiber; scope: ReturnType<typeof createScope> }>
  /** Dispose the provider and wait for it. */
  dispose(): Promise<void>
  /** Resolve once `count` (default 1) captured log lines, already captured or still to come, match. */
  logged(match: (line: LogLine) => boolean, count?: number): Promise<void>
}

/** Boot a root context with `MemorySettingsProvider` and wait until the service is ready. */
export function boot(config: MemorySettingsProvider.Config = {}): Promise<Harness<MemorySettingsProvider>> {
  return bootWith(MemorySettingsProvider, config)
}

/** Boot with the test-controlled provider (gates, persist failures, silent storage changes). */
export function bootControlled(config: ConstructorParameters<typeof ControlledProvider>[1] = {}): Promise<Harness<ControlledProvider>> {
  return bootWith(ControlledProvider, config)
}

async function bootWith<P extends SettingsProvider>(plugin: new (ctx: Context, config: any) => P, config: unknown): Promise<Harness<P>> {
  const root = new Context()
  const logs: LogLine[] = []
  const waiting = new Set<(line: LogLine) => void>()
  root.logger.exporter({
    export: (message) => {
      const line = { type: message.type, text: message.args.map(logText).join(' ') }
      logs.push(line)
      for (const heard of [...waiting]) heard(line)
    },
  })
  const logged = (match: (line: LogLine) => boolean, count = 1) =>
    new Promise<void>((resolve) => {
      let seen = logs.filter(match).length
      if (seen >= count) return resolve()
      const heard = (line: LogLine) => {
        if (!match(line) || ++seen < count) return
        waiting.delete(heard)
        resolve()
      }
      waiting.add(heard)
    })
  const providerFiber = root.plugin(plugin as any, config)
  await providerFiber
  let provider!: P
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as P
  })
  const mount = <T>(apply: (ctx: Context) => T, parent: Context = root) => plugWithSettings(parent, apply)
  return {
    root,
    provider,
    providerFiber,
    logs,
    mount,
    async mountInScope(name, apply) {
      const scope = createScope(root, name === undefined ? {} : { name })
      const { value, fiber } = await mount(apply, scope.ctx)
      return { value, fiber, scope }
    },
    async dispose() {
      await providerFiber.dispose()
    },
    logged,
  }
}

/** A fresh document literal, typed for the provider config. */
export function doc(value: SettingsDocument): SettingsDocument {
  return value
}
