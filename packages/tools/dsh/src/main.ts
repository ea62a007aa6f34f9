/**
 * The `dsh` command line: `dsh start`, `dsh settings check` and the value
 * commands, each parsed strictly, each with `--help`.
 */
import { readFileSync } from 'node:fs'
import { refuse } from './args.ts'
import { EXIT, withProcessConditions, type CliIo } from './io.ts'
import { runValueCommand, SETTINGS_USAGE, VALUE_COMMANDS } from './values/commands.ts'

export const USAGE = `usage: dsh <command> [arguments]

  start [cordis.yml]          run a deployment (re-plugs entries as the file changes)
  settings <command> …        check, read or change the deployment's settings
                              (check, get, set, unset, reset, history, diff, restore,
                              secrets move)
  --version                   print this command's version
  --help                      print this help

Run dsh <command> --help for a command's usage and exit codes.`

/** This package's version, from its package.json. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version
}

/** Run `dsh <argv…>` and answer its exit code (for `start`, once the deployment stopped). */
export async function runDsh(argv: readonly string[], given: CliIo): Promise<number> {
  const io = withProcessConditions(given)
  const [command, ...rest] = argv
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(USAGE)
    return EXIT.OK
  }
  if (command === '--version') {
    io.out(version())
    return EXIT.OK
  }
  // Each command's module is loaded when it runs: a value command does not pay for the check or the loader.
  if (command === 'start') return (await import('./start.ts')).runStart(rest, io)
  if (command === 'settings') {
    const [sub, ...args] = rest
    if (sub === '--help' || sub === '-h' || sub === 'help') {
      io.out(SETTINGS_USAGE)
      return EXIT.OK
    }
    if (sub === 'check') return (await import('./check/cli.ts')).runCheck(args, io)
    if (sub === 'secrets') return (await import('./secrets/move.ts')).runSecrets(args, io)
    if (sub !== undefined && VALUE_COMMANDS.includes(sub)) return runValueCommand(sub, args, io)
    return refuse('dsh settings', io, SETTINGS_USAGE, sub === undefined ? 'name a command' : `unknown command ${JSON.stringify(sub)}`).exit
  }
  return refuse('dsh', io, USAGE, command === undefined ? 'name a command' : `unknown command ${JSON.stringify(command)}`).exit
}
