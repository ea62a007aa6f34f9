import { Context, type Fiber } from 'cordis'
import { open, rename, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { SettingsProvider } from 'dsh-settings'
import { FileSettingsProvider, type FileStep } from '../src/provider/provider.ts'

/** What a test runs at a step of the provider's writes; return normally to let the write go on. */
export type StepHooks = Partial<Record<FileStep, () => void | Promise<void>>>

/** A file provider whose write steps call the test's hooks (each hook runs at every occurrence of its step). */
export function probedProvider(hooks: StepHooks): typeof FileSettingsProvider {
  return class ProbedProvider extends FileSettingsProvider {
    protected override async step(step: FileStep): Promise<void> {
      await hooks[step]?.()
    }
  }
}

/** A root running a probed file provider. */
export interface Probed {
  root: Context
  fiber: Fiber
  settings: SettingsProvider
  logs: string[]
  dispose(): Promise<void>
}

/** Boot a probed provider on `config`; the hooks can be changed later through the returned object. */
export async function bootProbed(config: FileSettingsProvider.Config, hooks: StepHooks): Promise<Probed> {
  const root = new Context()
  const logs: string[] = []
  root.logger.exporter({ export: (message) => logs.push(message.args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' ')) })
  const fiber = root.plugin(probedProvider(hooks), config)
  await fiber.await()
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, fiber, settings, logs, dispose: () => fiber.dispose() }
}

/** The three ways editors save, as another program would do them. */
export const editorSaves = {
  /** Write a sibling temp file, then rename it over the document (VS Code, most editors). */
  async rename(file: string, text: string): Promise<void> {
    const temp = join(dirname(file), `.${basename(file)}.editor~`)
    await writeFile(temp, text)
    await rename(temp, file)
  },
  /** Open with O_TRUNC, then write everything (nano, vim with backupcopy=yes). */
  async inPlace(file: string, text: string): Promise<void> {
    await writeFile(file, text)
  },
}

/** An in-place save split in two: the truncate now, the bytes when `finish` is called (an editor caught mid-save). */
export async function truncateNow(file: string): Promise<{ finish(text: string): Promise<void> }> {
  const handle = await open(file, 'w')
  return {
    async finish(text: string) {
      await handle.write(text)
      await handle.close()
    },
  }
}
