/**
 * The controller's catalog as an effect of its fiber: a {@link CatalogWriter}
 * told of every instance registered or gone, closed (its timers cleared)
 * when the controller is disposed.
 */
import type { Context, Logger } from 'cordis'
import type { SettingsProvider } from 'dsh-settings'
import { CatalogWriter } from './catalog-writer.ts'

/** Keep `<home>/settings-catalog.json` while `ctx`'s fiber lives. */
export function keepCatalog(ctx: Context, home: string, logger: Logger): void {
  // The services registry of the controller's own context: `ctx.get` in a later callback is the same lookup.
  const registry = ctx.reflect
  ctx.effect(() => {
    const writer = new CatalogWriter({
      home,
      settings: () => registry.get('settings') as SettingsProvider | undefined,
      deployment: () => registry.get('deployment'),
      logger,
    })
    const registered = ctx.on('settings/registered', (ns, scope) => writer.registered(ns, scope))
    const unregistered = ctx.on('settings/unregistered', (ns, scope) => writer.unregistered(ns, scope))
    // Kinds registered before the controller started are in the first write too.
    writer.schedule()
    return async () => {
      registered()
      unregistered()
      await writer.close()
    }
  }, 'settings-controller: catalog writer')
}
