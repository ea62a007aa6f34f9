/**
 * Usage: history-probe.ts <file> <ns> <count>
 * A user's own host (run with another uid by the test): boots the file provider on <file>,
 * registers <ns>, makes <count> updates setting `values.u<i>`, then reports what it saw:
 * `{ uid, written, failures, keepsHistory, history, warnings }` (`history`: the kept versions
 * it lists, or the code of the refusal; `failures`: the code of each refused write).
 */
import { Context } from 'cordis'
import Schema from 'schemastery'
import FileSettingsProvider from 'dsh-settings-file'
import { exitEventually, fail, send } from './protocol.ts'

exitEventually()
const [file, ns, countText] = process.argv.slice(2)
if (!file || !ns || !countText) fail(new Error('usage: history-probe.ts <file> <ns> <count>'))

try {
  const root = new Context()
  const warnings: string[] = []
  root.logger.exporter({
    export: (message) => {
      if (message.type === 'warn') warnings.push(message.args.map((arg) => (arg instanceof Error ? `${arg.name}: ${arg.message}` : String(arg))).join(' '))
    },
  })
  const fiber = root.plugin(FileSettingsProvider, { path: file, watch: false, editorSchema: false })
  await fiber.await()
  let ctx!: Context
  await root.inject(['settings'], (inner) => {
    ctx = inner
  })
  const handle = ctx.settings.register(ns, Schema.object({ values: Schema.dict(Schema.natural()) }))
  let written = 0
  const failures: string[] = []
  for (let i = 0; i < Number(countText); i++) {
    try {
      await handle.update({ values: { [`u${i}`]: i } })
      written++
    } catch (error) {
      failures.push(String((error as { code?: unknown }).code ?? (error as Error).name))
    }
  }
  const history = await ctx.settings.history().then(
    (versions) => versions.length,
    (error: unknown) => String((error as { code?: unknown }).code),
  )
  const report = { keepsHistory: ctx.settings.keepsHistory, history }
  await fiber.dispose()
  send('result', { uid: process.getuid?.(), written, failures, warnings, ...report })
} catch (error) {
  fail(error)
}
