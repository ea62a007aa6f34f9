/**
 * `dsh start [cordis.yml]`: run a deployment until SIGINT or SIGTERM,
 * re-plugging the entries whose config changes while it runs.
 */
import { resolve } from 'node:path'
import { runDeployment } from 'dsh-loader'
import RemoteServer from 'dsh-remote'
import { parseCommand } from './args.ts'
import { EXIT, type CliIo } from './io.ts'

export const START_USAGE = `usage: dsh start [cordis.yml]

Run the deployment the file describes (default: cordis.yml) until Ctrl-C or
SIGTERM. Editing the file while it runs re-plugs the entries whose config
changed; the others keep running.

Exit code: 0 stopped by a signal, 1 the deployment could not start or its
remote server could not bind a port, 2 usage error.`

/**
 * Run `dsh start <argv…>`: resolves with the exit code once the deployment
 * stopped (after a signal), or at once when it cannot start. Signal handlers
 * are installed on this process.
 */
export async function runStart(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand('dsh start', argv, io, START_USAGE, {}, { maxPositionals: 1 })
  if ('exit' in parsed) return parsed.exit
  const file = resolve(io.cwd, parsed.positionals[0] ?? 'cordis.yml')
  // Handlers first: a Ctrl-C while the deployment is still starting (its plugins already running) stops it once
  // it has started, instead of killing the process with its plugins mid-way.
  let signalled: NodeJS.Signals | undefined
  let onSignal = (signal: NodeJS.Signals) => void (signalled ??= signal)
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const handler = () => onSignal(signal)
    process.on(signal, handler)
    return [signal, handler] as const
  })
  let deployment: Awaited<ReturnType<typeof runDeployment>>
  try {
    deployment = await runDeployment(file)
  } catch (error) {
    for (const [signal, handler] of handlers) process.off(signal, handler)
    io.err(`cannot start ${file}: ${(error as Error).message}`)
    return EXIT.REFUSED
  }

  const logger = deployment.root.logger('start')
  logger.info('running %s (edit it to re-plug changed entries; Ctrl-C stops)', file)
  deployment.root.inject(['settings'], (ctx) => {
    logger.info('settings document: %s', ctx.settings.documentPath ?? '(the provider keeps no local document)')
  })

  return new Promise<number>((done) => {
    let stopping = false
    const stop = (code: number) => {
      stopping = true
      deployment.stop().then(
        () => done(code),
        (error: unknown) => {
          io.err(String((error as Error)?.stack ?? error))
          done(EXIT.REFUSED)
        },
      )
    }
    // The remote server is the host's way in (its page and API). When it cannot start at boot (every port of
    // its range in use, say), the host stops and exits 1 rather than run on without it.
    for (const fiber of deployment.root.registry.get(RemoteServer)?.fibers ?? []) {
      fiber.await().catch((error: unknown) => {
        if (stopping) return
        io.err(`cannot start ${file}: ${error instanceof Error ? error.message : String(error)}`)
        stop(EXIT.REFUSED)
      })
    }
    onSignal = (signal) => {
      if (stopping) return
      logger.info('%s: stopping', signal)
      stop(EXIT.OK)
    }
    if (signalled) onSignal(signalled)
  })
}
