#!/usr/bin/env node
/**
 * The `dsh` executable: runs the command its arguments name (`main.ts`, or
 * `get-command.ts` for a `get`) and exits with its code. The published bin is
 * this file bundled as CommonJS with the `get` path inside it
 * (`scripts/pack/bundle-bin.ts`): a `get` then needs neither Node's ESM
 * loader nor any module beyond one file; every other command imports its
 * modules as they are.
 */
import type { CliIo } from './io.ts'

/** Run the command `argv` names; answer its exit code. */
async function main(argv: readonly string[]): Promise<number> {
  const [command, sub] = argv
  const io: CliIo = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    cwd: process.cwd(),
    env: process.env,
    // Only a command that reads a value touches standard input (opening it can hold a terminal or pipe).
    get stdin() {
      return process.stdin
    },
  }
  // Each entry takes this process's `--conditions` itself (`withProcessConditions`).
  if (command === 'settings' && sub === 'get') return (await import('./get-command.ts')).runGetCommand(argv.slice(2), io)
  return (await import('./main.ts')).runDsh(argv, io)
}

const argv = process.argv.slice(2)
const [command, sub] = argv
void main(argv)
  .catch((error: unknown) => {
    process.stderr.write(`dsh: ${(error as Error)?.stack ?? String(error)}\n`)
    return 2
  })
  .then((code) => {
    process.exitCode = code
    if (command === 'start') process.exit(code)
    if (command === 'settings' && sub !== undefined) {
      // Every root a command made is disposed; should a plugin still hold a handle open, a CI job is not kept waiting for it.
      setTimeout(() => {
        process.stderr.write('note: something a plugin started is still running; exiting anyway\n')
        process.exit(code)
      }, 2000).unref()
    }
  })
