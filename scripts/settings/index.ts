/**
 * `pnpm settings check [cordis.yml] [settings.yaml]`: check a settings document
 * against the schemas of the plugins a deployment mounts, without starting
 * servers (for CI before a deploy). See cli.ts for the output and check.ts for
 * what is checked.
 */
import { runCli } from './cli.ts'

const code = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
}).catch((error: unknown) => {
  process.stderr.write(`pnpm settings: ${(error as Error)?.stack ?? String(error)}\n`)
  return 2
})
process.exitCode = code
// Every root the check made is disposed; should a plugin still hold a handle open, CI is not kept waiting for it.
setTimeout(() => {
  process.stderr.write('note: something a plugin started is still running; exiting anyway\n')
  process.exit(code)
}, 2000).unref()
