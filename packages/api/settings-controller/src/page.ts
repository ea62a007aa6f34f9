import type { Context, Logger } from 'cordis'

/** The package whose built settings page the controller offers to the remote server. */
export const PAGE_PACKAGE = 'dsh-settings-page-assets'

/**
 * Follow the `remoteServer` service's lifetime: whenever one is present and
 * `dsh-settings-page-assets` is installed (found by package resolution from
 * this package, an optional peer), offer its folder as the page served at
 * `/`. A server with `static` configured keeps its own. Without the package
 * the server serves the API alone, and one line says how to add the page.
 */
export function offerSettingsPage(ctx: Context, logger: Logger): void {
  ctx.inject(['remoteServer'], async (ctx) => {
    let assets: string
    try {
      assets = ((await import(PAGE_PACKAGE)) as { PAGE_ASSETS: string }).PAGE_ASSETS
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ERR_MODULE_NOT_FOUND') logger.warn(`settings-controller: ${PAGE_PACKAGE} could not be loaded, so no settings page is served:`, error)
      else logger.info(`settings-controller: no settings page is served (install ${PAGE_PACKAGE} to serve it at /)`)
      return
    }
    // A remote server from before pages could be offered serves the API alone.
    if (typeof ctx.remoteServer.offerPage !== 'function') return
    ctx.remoteServer.offerPage(assets)
  })
}
