#!/usr/bin/env node
/**
 * The `dsh` executable: runs {@link runDsh} on this process's arguments and
 * exits with its code.
 */
import { processConditions } from 'dsh-loader'
import { runDsh } from './main.ts'

const [command, sub] = process.argv.slice(2)
const code = await runDsh(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
  conditions: processConditions(),
}).catch((error: unknown) => {
  process.stderr.write(`dsh: ${(error as Error)?.stack ?? String(error)}\n`)
  return 2
})
process.exitCode = code
if (command === 'start') process.exit(code)
if (command === 'settings' && sub !== undefined) {
  // Every root a command made is disposed; should a plugin still hold a handle open, a CI job is not kept waiting for it.
  setTimeout(() => {
    process.stderr.write('note: something a plugin started is still running; exiting anyway\n')
    process.exit(code)
  }, 2000).unref()
}
