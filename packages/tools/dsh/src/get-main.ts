/**
 * What `get.bundle.cjs` runs: `dsh settings get` with this process's
 * arguments, then its exit code (`bin.ts` does the same for every command).
 * Its own entry, so the bundle holds only the `get` path.
 */
import { runGetCommand } from './get-command.ts'

void runGetCommand(process.argv.slice(4), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  cwd: process.cwd(),
  env: process.env,
})
  .catch((error: unknown) => {
    process.stderr.write(`dsh: ${(error as Error)?.stack ?? String(error)}\n`)
    return 2
  })
  .then((code) => {
    process.exitCode = code
  })
