/**
 * Usage: files-host.ts <file> <home> <safetyMs>
 *
 * A settings host of the real-files torture, wired as the default `cordis.yml`
 * wires one: the file provider on <file> (watching it), the remote server on
 * 127.0.0.1 (any free port, its token under <home>), the settings controller
 * and both example plugins. It stops as `pnpm start` does: on SIGTERM or
 * SIGINT (or `stop` on stdin) it disposes every plugin, last first, then exits 0, with no
 * forced exit of its own, so a stop that hangs shows. Prints:
 * - `log <json>` for every log line, as the deployment's console prints it;
 * - `url <url> <token>` once the remote server listens, or `remote failed <code> <json message>`;
 * - `provider ok`, or `provider failed <code> <json message>`;
 * - `plugin <name> ok|failed|pending [<json message>]` for each plugin that
 *   needs settings, once the provider is up;
 * - `ready` after those lines;
 * - `done` once every plugin is disposed.
 */
import { Context, Logger, type Fiber } from 'cordis'
import RemoteServer from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import FileSettingsProvider from 'dsh-settings-file'
import * as assistant from 'dsh-example-assistant'
import * as webSearch from 'dsh-example-web-search'
import { emit, errorCode, exitEventually, fail, sleep } from './common.ts'

const [file, home, safetyText] = process.argv.slice(2)
if (!file || !home || !safetyText) fail(new Error('usage: files-host.ts <file> <home> <safetyMs>'))
exitEventually(Number(safetyText))

/** cordis fiber states (a declared const enum, compared as numbers under isolatedModules). */
const ACTIVE = 2
const FAILED = 3

const root = new Context()
/** The token of the server's start line (`… http://…/#token=<token>`). */
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

const message = (error: unknown) => JSON.stringify(error instanceof Error ? error.message : String(error))
const fibers: [string, Fiber][] = []
const plug = (name: string, fiber: Fiber) => void fibers.push([name, fiber])

let stopping: Promise<void> | undefined
const stop = () =>
  (stopping ??= (async () => {
    for (const [, fiber] of [...fibers].reverse()) await fiber.dispose()
    emit('done')
    process.exit(0)
  })())
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void stop())
process.stdin.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('stop') && void stop())

try {
  const provider = root.plugin(FileSettingsProvider, { path: file!, watch: true, debounceMs: 50, recheckMs: 500, lockTimeoutMs: 3000 })
  plug('provider', provider)
  const server = root.plugin(RemoteServer, { home: home!, port: 0 })
  plug('remote', server)
  plug('controller', root.plugin(SettingsController, { home: home!, opener: false }))
  plug('web-search', root.plugin(webSearch, {}))
  plug('assistant', root.plugin(assistant, {}))

  void server.await().then(
    () => root.inject(['remoteServer'], (ctx) => void emit('url', ctx.remoteServer.url, token)),
    (error: unknown) => emit('remote', 'failed', errorCode(error), message(error)),
  )
  const booted = await provider.await().then(
    () => true,
    (error: unknown) => {
      emit('provider', 'failed', errorCode(error), message(error))
      return false
    },
  )
  if (booted) {
    emit('provider', 'ok')
    // The consumers apply once `settings` is there; give them a moment to settle, then say how each ended.
    for (const [name, fiber] of fibers.slice(2)) {
      for (let waited = 0; fiber.state !== ACTIVE && fiber.state !== FAILED && waited < 10_000; waited += 20) await sleep(20)
      const failure = await fiber.await().then(
        () => undefined,
        (error: unknown) => error,
      )
      if (failure !== undefined || fiber.state === FAILED) emit('plugin', name, 'failed', message(failure))
      else emit('plugin', name, fiber.state === ACTIVE ? 'ok' : 'pending')
    }
  }
  emit('ready')
} catch (error) {
  fail(error)
}

