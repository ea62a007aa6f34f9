/**
 * A settings host in its own process whose environment is its own: the at-rest
 * key and `$env` references come from its real `process.env`. Usage:
 * secret-host.ts <url> <table>. Registers `web-search` (`apiKey`, a secret,
 * and `region`), reports `{ ready }`, and answers `{ id, op: 'get' | 'update',
 * ns, patch? }` with `{ id, ok, value? | code?, message? }`. Exits when stdin closes.
 */
import { createInterface } from 'node:readline'
import { Context } from 'cordis'
import Schema from 'schemastery'
import PostgresSettingsProvider from 'dsh-settings-postgres'

const [url, table] = process.argv.slice(2)
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`)
const WebSearch = Schema.object({ apiKey: Schema.string().role('secret'), region: Schema.string().default('us') })

const root = new Context()
root.logger.exporter({ export: () => {} })
const fiber = root.plugin(PostgresSettingsProvider, { url: url!, table: table!, recheckMs: 500 })
await fiber
await root.inject(['settings'], (ctx) => {
  ctx.settings.register('web-search', WebSearch)
  const settings = ctx.settings
  const lines = createInterface({ input: process.stdin })
  lines.on('line', async (line) => {
    const request = JSON.parse(line) as { id: number; op: string; ns: string; patch?: object }
    try {
      if (request.op === 'update') await settings.update(request.ns, request.patch!, undefined, undefined, 'wire')
      send({ id: request.id, ok: true, value: settings.get(request.ns) })
    } catch (error) {
      send({ id: request.id, ok: false, code: (error as { code?: string }).code, message: (error as Error).message })
    }
  })
  lines.on('close', () => void fiber.dispose().then(() => process.exit(0)))
})
send({ ready: true })
