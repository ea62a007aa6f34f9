/** `pnpm build`'s last step (and `dsh-settings-page-assets`' prepack): the settings page's assets, into that package's `page/`. */
import { PAGE_ASSETS } from 'dsh-settings-page-assets'
import { buildPage } from 'dsh-settings-page/build'

await buildPage(PAGE_ASSETS)
console.log(`settings page built into ${PAGE_ASSETS}`)
