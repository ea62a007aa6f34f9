import { Context, type Fiber } from 'cordis'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SettingsProvider } from 'dsh-settings'
import FileSettingsProvider from 'dsh-settings-file'

export { eventually } from 'dsh-testing'

/** A temp directory removed by `cleanup`. */
export async function tempDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-settings-file-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** A root context running the file provider, with captured log lines. */
export interface FileHarness {
  root: Context
  fiber: Fiber
  settings: SettingsProvider
  logs: string[]
  dispose(): Promise<void>
}

/** Boot the file provider with `config`; rejects with the plugin's load error if it fails. */
export async function bootFile(config: FileSettingsProvider.Config): Promise<FileHarness> {
  const root = new Context()
  const logs: string[] = []
  root.logger.exporter({
    export: (message) => logs.push(message.args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ')),
  })
  const fiber = root.plugin(FileSettingsProvider, config)
  await fiber.await()
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, fiber, settings, logs, dispose: () => fiber.dispose() }
}

