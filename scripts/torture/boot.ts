/**
 * The file provider booted in this (the parent) process: for the clean write
 * that ends a scenario, and for the fault scenarios.
 */
import { Context } from 'cordis'
import Schema from 'schemastery'
import type { SettingsProvider } from 'dsh-settings'
import FileSettingsProvider from 'dsh-settings-file'

/** Every torture namespace has this shape: counters by key under `k`. */
export const Section = Schema.object({ k: Schema.dict(Schema.natural()) })

/** A provider running here, with `namespaces` registered. */
export interface Here {
  settings: SettingsProvider
  /** What the settings logger warned about (there is no console exporter). */
  warnings: string[]
  dispose(): Promise<void>
}

/**
 * Boot the file provider on `file` (no watcher) and register `namespaces` with
 * {@link Section}. `plugin` may be a subclass that overrides the provider's step hook.
 */
export async function bootHere(file: string, namespaces: readonly string[], config: Partial<FileSettingsProvider.Config> = {}, plugin: typeof FileSettingsProvider = FileSettingsProvider): Promise<Here> {
  const root = new Context()
  const warnings: string[] = []
  root.logger.exporter({
    export: (message) => {
      if (message.type === 'warn' || message.type === 'error') warnings.push(message.args.map(String).join(' '))
    },
  })
  const fiber = root.plugin(plugin, { path: file, watch: false, lockTimeoutMs: 5000, ...config })
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    for (const ns of namespaces) ctx.settings.register(ns, Section)
    settings = ctx.settings
  })
  return { settings, warnings, dispose: async () => void (await fiber.dispose()) }
}
