/**
 * `pnpm start`: in this workspace, build the settings page when it is missing
 * or stale, then run `dsh start` (the `dsh` package's command) on `cordis.yml`
 * or the file given as the first argument.
 */
import { runStart } from 'dsh'
import { processConditions } from 'dsh-loader'
import { ensurePageBuilt, PAGE_DIST } from 'dsh-settings-page/build'

await ensurePageBuilt().then(
  (built) => built && console.log(`built the settings page into ${PAGE_DIST}`),
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
