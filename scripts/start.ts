/**
 * `pnpm start`: run the default deployment described by `cordis.yml` (or the
 * file given as the first argument) until SIGINT or SIGTERM, re-plugging the
 * entries whose config changes while it runs.
 */
import { resolve } from 'node:path'
import { runDeployment } from 'dsh-loader'
import RemoteServer from 'dsh-remote'
import { ensurePageBuilt, PAGE_DIST } from 'dsh-settings-page/build'

const file = resolve(process.argv[2] ?? 'cordis.yml')
// The default deployment serves the settings page from PAGE_DIST; build it first when it is missing or stale.
await ensurePageBuilt().then(
  (built) => built && console.log(`built the settings page into ${PAGE_DIST}`),
  (error: unknown) => {
    console.error(`cannot build the settings page: ${(error as Error).message}`)
    process.exit(1)
  },
)
const deployment = await runDeployment(file).catch((error: unknown) => {
  console.error(`cannot start ${file}: ${(error as Error).message}`)
  process.exit(1)
})

const logger = deployment.root.logger('start')
logger.info('running %s (edit it to re-plug changed entries; Ctrl-C stops)', file)
deployment.root.inject(['settings'], (ctx) => {
  logger.info('settings document: %s', ctx.settings.documentPath ?? '(the provider keeps no local document)')
})

let stopping = false
// The remote server is the host's way in (its page and API). When it cannot start at boot (every port of
// its range in use, say), the host stops and exits 1 rather than run on without it.
for (const fiber of deployment.root.registry.get(RemoteServer)?.fibers ?? []) {
  fiber.await().catch((error: unknown) => {
    console.error(`cannot start ${file}: ${error instanceof Error ? error.message : String(error)}`)
    stopping = true
    void deployment.stop().finally(() => process.exit(1))
  })
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    logger.info('%s: stopping', signal)
    deployment.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  })
}
