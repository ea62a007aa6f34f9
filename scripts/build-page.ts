/** `pnpm build`'s last step: the settings page's static assets, into `packages/client/settings-page/dist`. */
import { buildPage, PAGE_DIST } from 'dsh-settings-page/build'

await buildPage()
console.log(`settings page built into ${PAGE_DIST}`)
