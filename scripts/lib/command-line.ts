/**
 * The command lines of the workspace's tools (`pnpm bench`, `pnpm torture`):
 * `node:util`'s strict `parseArgs`, `--help` answered with the usage and exit 0
 * before anything runs, anything unknown refused with the usage and exit 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

/** What the command line parsed to, or the exit code to end with at once. */
export type CommandLine<Values> = { values: Values } | { exit: 0 | 2 }

/**
 * Parse `argv` against `options` (no positionals). Prints `usage` to stdout for
 * `--help`/`-h`; prints the reason and `usage` to stderr for an unknown option,
 * a missing value, a positional, or a value `check` refuses (its message).
 */
export function readCommandLine<Values extends Record<string, unknown>>(
  argv: readonly string[],
  usage: string,
  options: NonNullable<ParseArgsConfig['options']>,
  check: (values: Values) => string | undefined = () => undefined,
): CommandLine<Values> {
  let values: Values
  try {
    values = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values as Values
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`)
    return { exit: 2 }
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`)
    return { exit: 0 }
  }
  const refused = check(values)
  if (refused !== undefined) {
    process.stderr.write(`${refused}\n${usage}\n`)
    return { exit: 2 }
  }
  return { values }
}
