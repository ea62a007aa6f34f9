/**
 * Usage: pg-host.ts <url> <table> <timeoutMs> <recheckMs> <safetyMs>
 *
 * A settings host of the postgres torture in its own process: boots the
 * PostgreSQL provider, registers `tally` and `shared` (maps of numbers) and
 * watches both, then writes what the parent asks. Reads requests on stdin:
 * - `update <id> <ns> <key> <value>`: one awaited `update(ns, { key: value })`;
 * - `get <id>`: the current value of both namespaces;
 * - `stop` (or stdin closing): dispose the provider and exit.
 *
 * Prints:
 * - `ready` once it can write;
 * - `ok <id> <1|0>` for an update that resolved (1: this host's `get()` shows it right after);
 * - `fail <id> <code> <refusal> <name> <json text>` for one that rejected (the text is the
 *   message and the error as JSON, so the parent can look for a leaked password);
 * - `value <id> <json>` answering `get`: `{ tally, shared }`;
 * - `back <ns> <key> <was> <now|->` when a watcher call lacks (or changed) a key the call before had;
 * - `log <json>` for every line the provider logged;
 * - `done` once the provider is disposed.
 */
import { createInterface } from 'node:readline'
import { Context } from 'cordis'
import Schema from 'schemastery'
import PostgresSettingsProvider from 'dsh-settings-postgres'
import { emit, errorCode, exitEventually, fail } from './common.ts'

const [url, table, timeoutText, recheckText, safetyText] = process.argv.slice(2)
if (!url || !table || !timeoutText || !recheckText || !safetyText) fail(new Error('usage: pg-host.ts <url> <table> <timeoutMs> <recheckMs> <safetyMs>'))
exitEventually(Number(safetyText))

const NAMESPACES = ['tally', 'shared'] as const
const Tally = Schema.dict(Schema.number())
type Tally = Record<string, number>

try {
  const root = new Context()
  root.logger.exporter({ export: (message) => emit('log', JSON.stringify(message.args.map(String).join(' '))) })
  const fiber = root.plugin(PostgresSettingsProvider, { url: url!, table: table!, timeoutMs: Number(timeoutText), recheckMs: Number(recheckText) })
  await fiber
  let ctx!: Context
  await root.inject(['settings'], (inner) => {
    ctx = inner
    for (const ns of NAMESPACES) {
      // Keys are only ever added, each with one value: a watcher call that lacks or changed a key of the call before went back.
      let last: Tally = {}
      inner.settings.register(ns, Tally).watch((value) => {
        for (const [key, was] of Object.entries(last)) if (value[key] !== was) emit('back', ns, key, was, value[key] ?? '-')
        last = value
      })
    }
  })
  const current = (ns: string): Tally => (ctx.settings.get(ns) as Tally | undefined) ?? {}

  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      await fiber.dispose()
      emit('done')
      process.exit(0)
    })())

  const lines = createInterface({ input: process.stdin })
  lines.on('line', (line) => {
    const [op, id, ns, key, value] = line.split(' ')
    if (op === 'stop') void close()
    else if (op === 'get') emit('value', id!, JSON.stringify({ tally: current('tally'), shared: current('shared') }))
    else if (op === 'update') {
      ctx.settings.update(ns!, { [key!]: Number(value) }).then(
        () => emit('ok', id!, current(ns!)[key!] === Number(value) ? 1 : 0),
        (error: unknown) => {
          const refusal = String((error as { refusal?: unknown }).refusal ?? '-')
          const name = error instanceof Error ? error.name : typeof error
          const text = `${error instanceof Error ? error.message : String(error)} ${JSON.stringify(error)}`
          emit('fail', id!, errorCode(error), refusal, name, JSON.stringify(text))
        },
      )
    }
  })
  lines.on('close', () => void close())
  emit('ready')
} catch (error) {
  fail(error)
}
