import { fileURLToPath } from 'node:url'

/**
 * The folder of the settings page's built assets (`index.html` and what it
 * loads), shipped in this package. `dsh-settings-controller` offers it to
 * `dsh-remote` when this package is installed, so the page is served at `/`
 * without a `static` setting. In this repository `pnpm start` and
 * `pnpm build` build the page into it.
 */
export const PAGE_ASSETS: string = fileURLToPath(new URL('../page', import.meta.url))
