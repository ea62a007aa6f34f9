/**
 * A settings host in its own process, driven over stdin/stdout as JSON lines.
 * Usage: host.ts <url> <table>. Registers `tally` and `shared` (maps of
 * numbers), reports `{ ready }`, each watcher call as `{ watch: ns, value }`,
 * and answers each request `{ id, op, ... }` with `{ id, ok, value? | code? }`.
 * Exits when stdin closes.
 */
import { createInterface } from 'node:readline'
import { Context } from 'cordis'
import Schema from 'schemastery'
import PostgresSettingsProvider from 'dsh-settings-postgres'

const [url, table] = process.argv.slice(2)
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`)
const Tally = Schema.dict(Schema.number())

const root = new Context()
root.logger.exporter({ export: () => {} })
const fiber = root.plugin(PostgresSettingsProvider, { url: url!, table: table!, recheckMs: 1000 })
await fiber
await root.inject(['settings'], (ctx) => {
  for (const ns of ['tally', 'shared']) {
    const handle = ctx.settings.register(ns, Tally)
    handle.watch((value) => void send({ watch: ns, value }))
  }
  const settings = ctx.settings
  const lines = createInterface({ input: process.stdin })
  lines.on('line', async (line) => {
    const request = JSON.parse(line) as { id: number; op: string; ns: string; patch?: Record<string, number>; revision?: number }
    try {
      if (request.op === 'update') await settings.update(request.ns, request.patch!, request.revision)
      const value = settings.get(request.ns)
      const revision = settings.describe({ ns: request.ns, redactSecrets: true })[0]!.revision
      send({ id: request.id, ok: true, value, revision })
    } catch (error) {
      send({ id: request.id, ok: false, code: (error as { code?: string }).code, message: (error as Error).message })
    }
  })
  lines.on('close', () => void fiber.dispose().then(() => process.exit(0)))
})
send({ ready: true })
