/**
 * A plugin the docs test adds last to a documented deployment: for each entry
 * of the deployment it waits for that plugin's fibers to settle and logs one
 * line, `docs-probe <specifier>: active` or `… failed <code>: <message>`, so the
 * test knows every plugin's outcome instead of guessing from the silence.
 * It imports each entry as the loader did (same resolution, same module).
 */
import type { Context } from 'cordis'
import { importPlugin } from 'dsh-loader'

/** The probe's config: the deployment file's folder and the specifiers of its entries. */
export interface Config {
  baseDir: string
  specifiers: string[]
}

/** The probe's name in the log. */
export const name = 'docs-probe'

/** Log each entry's outcome once its fibers settle. */
export async function apply(ctx: Context, config: Config): Promise<void> {
  const logger = ctx.logger('docs-probe')
  for (const specifier of config.specifiers) {
    const plugin = await importPlugin(specifier, config.baseDir)
    const fibers = [...(ctx.registry.get(plugin)?.fibers ?? [])]
    if (fibers.length === 0) logger.info('%s: not plugged', specifier)
    for (const fiber of fibers) {
      fiber.await().then(
        () => logger.info('%s: active', specifier),
        (error: { code?: string; message?: string }) => logger.info('%s: failed %s: %s', specifier, error?.code ?? 'error', error?.message ?? error),
      )
    }
  }
}
