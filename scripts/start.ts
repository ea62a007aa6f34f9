/**
 * `pnpm start`: in this workspace, build the settings page into
 * `dsh-settings-page-assets` (where the controller finds it) when it is missing
 * or stale, then run `dsh start` (the `dsh` package's command) on `cordis.yml`
 * or the file given as the first argument.
 */
import { runStart } from 'dsh'
import { processConditions } from 'dsh-loader'
import { ensurePageBuilt } from 'dsh-settings-page/build'
import { PAGE_ASSETS } from 'dsh-settings-page-assets'

await ensurePageBuilt(PAGE_ASSETS).then(
  (built) => built && console.log(`built the settings page into ${PAGE_ASSETS}`),
  (error: unknown) => {
    console.error(`cannot build the settings page: ${(error as Error).message}`)
    process.exit(1)
  },
)
const code = await runStart(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
  conditions: processConditions(),
})
process.exit(code)
