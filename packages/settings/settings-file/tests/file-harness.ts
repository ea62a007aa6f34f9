import { Context, type Fiber } from 'cordis'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SettingsProvider } from 'dsh-settings'
import FileSettingsProvider from 'dsh-settings-file'

import { afterEach, beforeEach } from 'vitest'

export { eventually } from 'dsh-testing'

/** A temp directory removed by `cleanup`. */
export async function tempDir(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-settings-file-'))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** What {@link fileFixture} gives each test. */
export interface FileFixture {
  /** A fresh temp folder, removed after the test. */
  dir: string
  /** The provider the test booted (assign it), disposed after the test. */
  harness: FileHarness | undefined
}

/**
 * Per test of the calling file or describe block: a fresh temp folder, and a
 * slot for the provider the test boots there; both are gone after each test.
 */
export function fileFixture(): FileFixture {
  const fixture: FileFixture = { dir: '', harness: undefined }
  let cleanup: () => Promise<void> = async () => {}
  beforeEach(async () => {
    ;({ dir: fixture.dir, cleanup } = await tempDir())
  })
  afterEach(async () => {
    await fixture.harness?.dispose()
    fixture.harness = undefined
    await cleanup()
  })
  return fixture
}

/** A root context running the file provider, with captured log lines. */
export interface FileHarness {
  root: Context
  fiber: Fiber
  settings: SettingsProvider
  logs: string[]
  dispose(): Promise<void>
}

/** Boot the file provider (or a test's subclass of it) with `config`; rejects with the plugin's load error if it fails. */
export async function bootFile(config: FileSettingsProvider.Config, provider: typeof FileSettingsProvider = FileSettingsProvider): Promise<FileHarness> {
  const root = new Context()
  const logs: string[] = []
  root.logger.exporter({
    export: (message) => logs.push(message.args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ')),
  })
  const fiber = root.plugin(provider, config)
  await fiber.await()
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, fiber, settings, logs, dispose: () => fiber.dispose() }
}

