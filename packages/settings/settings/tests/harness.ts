import { Context, type Fiber } from 'cordis'
import { createScope } from 'dsh-scope'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsDocument, SettingsProvider } from 'dsh-settings'
import { ControlledProvider } from './controlled-provider.ts'
import { logText, plugWithSettings, settle } from 'dsh-testing'

export { deferred, settle } from 'dsh-testing'

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
  root.logger.exporter({ export: (message) => logs.push({ type: message.type, text: message.args.map(logText).join(' ') }) })
  const providerFiber = root.plugin(plugin as any, config)
  await providerFiber
  let provider!: P
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as P
  })
  const mount = async <T>(apply: (ctx: Context) => T, parent: Context = root) => {
    try {
      return await plugWithSettings(parent, apply)
    } finally {
      await settle()
    }
  }
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
  }
}

/** A fresh document literal, typed for the provider config. */
export function doc(value: SettingsDocument): SettingsDocument {
  return value
}
