/**
 * Usage: counter.ts <file> <ns> <successes>
 * Registers <ns> ({ n: natural }) and, after `go`, increments `n` in a read-then-write loop:
 * read value and revision from describe(), update to n + 1 with that expectedRevision,
 * retry on SettingsConflictError, until <successes> writes succeeded.
 * Reports `{ pid, written: the values this child stored, conflicts }`.
 */
import Schema from 'schemastery'
import { SettingsConflictError } from 'dsh-settings'
import { boot, exitEventually, fail, send, waitForGo } from './protocol.ts'

exitEventually()
const [file, ns, targetText] = process.argv.slice(2)
if (!file || !ns || !targetText) fail(new Error('usage: counter.ts <file> <ns> <successes>'))
const target = Number(targetText)
const MAX_ATTEMPTS = 2_000

try {
  const { ctx, fiber } = await boot(file, 20_000, (inner) => {
    inner.settings.register(ns, Schema.object({ n: Schema.natural().default(0) }))
  })
  send('ready')
  await waitForGo()
  const written: number[] = []
  let conflicts = 0
  for (let attempt = 0; written.length < target; attempt++) {
    if (attempt >= MAX_ATTEMPTS) throw new Error(`no progress after ${MAX_ATTEMPTS} attempts`)
    const descriptor = ctx.settings.describe().find((entry) => entry.ns === ns)
    if (!descriptor) throw new Error(`${ns} is not described`)
    const next = (descriptor.value as { n: number }).n + 1
    try {
      await ctx.settings.update(ns, { n: next }, descriptor.revision)
      written.push(next)
    } catch (error) {
      if (!(error instanceof SettingsConflictError)) throw error
      conflicts++
    }
  }
  await fiber.dispose()
  send('result', { pid: process.pid, written, conflicts })
} catch (error) {
  fail(error)
}
