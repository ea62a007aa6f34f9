/**
 * Usage: writer.ts <file> <ns> <count>
 * Registers <ns> and, after `go`, makes <count> sequential updates, update i setting
 * `values.u<i>` to i. Reports `{ pid, written }`.
 */
import Schema from 'schemastery'
import { boot, exitEventually, fail, send, waitForGo } from './protocol.ts'

exitEventually()
const [file, ns, countText] = process.argv.slice(2)
if (!file || !ns || !countText) fail(new Error('usage: writer.ts <file> <ns> <count>'))
const count = Number(countText)

try {
  const { ctx, fiber } = await boot(file, 20_000, (inner) => {
    inner.settings.register(ns, Schema.object({ values: Schema.dict(Schema.natural()) }))
  })
  send('ready')
  await waitForGo()
  let written = 0
  for (let i = 0; i < count; i++) {
    await ctx.settings.update(ns, { values: { [`u${i}`]: i } })
    written++
  }
  await fiber.dispose()
  send('result', { pid: process.pid, written })
} catch (error) {
  fail(error)
}
