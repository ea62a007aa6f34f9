/**
 * Usage: secret-host.ts <file> <home> <file|keyring|inline> <safetyMs>
 *
 * A settings host of the secret scan's source sessions (secret-sources.ts):
 * the file provider on <file> (watching it) with `secrets: <mode>`, the remote
 * server on 127.0.0.1 (any free port, its token under <home>), the settings
 * controller and both example plugins, which declare secrets. It takes its
 * `!env` variables from the environment it was started with, as a deployment
 * does. Prints (one line each, see children/common.ts):
 * - `log <json>` for every log line, as the deployment's console prints it;
 * - `url <url> <token>` once the remote server listens; `ready` once the plugins settled;
 * - `moved <count>` or `move-failed <code> <json message>` for each `move` read on stdin
 *   (the provider's `moveSecrets()`, what `dsh settings secrets move` runs);
 * - `done` after `stop` on stdin (or stdin closing) disposed every plugin.
 */
import { Context, Logger, type Fiber } from 'cordis'
import RemoteServer from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import FileSettingsProvider from 'dsh-settings-file'
import * as assistant from 'dsh-example-assistant'
import * as webSearch from 'dsh-example-web-search'
import { emit, errorCode, exitEventually, fail, sleep } from './children/common.ts'

const [file, home, mode, safetyText] = process.argv.slice(2)
if (!file || !home || !['file', 'keyring', 'inline'].includes(mode ?? '') || !safetyText) fail(new Error('usage: secret-host.ts <file> <home> <file|keyring|inline> <safetyMs>'))
exitEventually(Number(safetyText))

const root = new Context()
let token = ''
const exporter = {
  colors: false as const,
  levels: { default: 3 },
  maxLength: Number.POSITIVE_INFINITY,
  export: (message: Parameters<typeof Logger.format>[1]) => {
    const line = `[${message.type[0]!.toUpperCase()}] ${message.name} ${Logger.format(exporter, message)}`
    token ||= /\/#token=(\S+)/.exec(line)?.[1] ?? ''
    emit('log', JSON.stringify(line))
  },
}
root.logger.exporter(exporter)

const fibers: Fiber[] = []
let stopping: Promise<void> | undefined
const stop = () =>
  (stopping ??= (async () => {
    for (const fiber of [...fibers].reverse()) await Promise.resolve().then(() => fiber.dispose()).catch(() => {})
    emit('done')
    process.exit(0)
  })())

/** The provider's own move, as the command runs it; its answer is a count, never a value. */
async function move(): Promise<void> {
  let provider: { moveSecrets(): Promise<{ moved: number }> } | undefined
  const probe = root.inject(['settings'], (ctx) => void (provider = ctx.settings as unknown as typeof provider))
  await probe
  await probe.dispose()
  await provider!.moveSecrets().then(
    ({ moved }) => emit('moved', moved),
    (error: unknown) => emit('move-failed', errorCode(error), JSON.stringify(error instanceof Error ? error.message : String(error))),
  )
}

let pending = ''
process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  pending += chunk
  for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
    const command = pending.slice(0, at).trim()
    pending = pending.slice(at + 1)
    if (command === 'move') void move()
    if (command === 'stop') void stop()
  }
})
process.stdin.on('end', () => void stop())

try {
  const provider = root.plugin(FileSettingsProvider, { path: file!, watch: true, debounceMs: 50, recheckMs: 500, lockTimeoutMs: 3000, secrets: mode as 'file' })
  fibers.push(provider)
  const server = root.plugin(RemoteServer, { home: home!, port: 0 })
  fibers.push(server)
  fibers.push(root.plugin(SettingsController, { home: home!, opener: false }))
  fibers.push(root.plugin(webSearch, {}), root.plugin(assistant, {}))
  await provider.await()
  await server.await()
  let url = ''
  const probe = root.inject(['remoteServer'], (ctx) => void (url = ctx.remoteServer.url))
  await probe
  await probe.dispose()
  emit('url', url, token)
  // The consumers apply once `settings` is there; give them a moment (a failed one is in the log lines).
  for (let waited = 0; fibers.slice(3).some((fiber) => fiber.state !== 2 && fiber.state !== 3) && waited < 10_000; waited += 20) await sleep(20)
  emit('ready')
} catch (error) {
  fail(error)
}
