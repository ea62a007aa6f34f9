/**
 * Strict argument parsing for every `dsh` command: `node:util`'s `parseArgs`
 * with the command's own options, `--help` answered with its usage, and
 * anything unknown refused with the usage (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { EXIT, type CliIo } from './io.ts'

/** The options of one command, as `parseArgs` takes them (`--help` is added). */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>

/** What a command's arguments parsed to, or the exit code it answers at once (usage printed, or refused). */
export type Parsed<Values> = { values: Values; positionals: string[] } | { exit: number }

/**
 * Parse `argv` for the command `name` with `options` and at most `maxPositionals`
 * positionals (at least `minPositionals`).
 * `--help`/`-h` prints `usage` to stdout and answers exit 0; an unknown option,
 * a missing option value or a wrong count of positionals prints the reason and
 * `usage` to stderr and answers exit 2.
 */
export function parseCommand<Values = Record<string, string | boolean | undefined>>(
  name: string,
  argv: readonly string[],
  io: CliIo,
  usage: string,
  options: OptionSpec,
  { minPositionals = 0, maxPositionals = 0 }: { minPositionals?: number; maxPositionals?: number } = {},
): Parsed<Values> {
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({ args: [...argv], options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  } catch (error) {
    return refuse(name, io, usage, (error as Error).message)
  }
  if (parsed.values.help) {
    io.out(usage)
    return { exit: EXIT.OK }
  }
  const count = parsed.positionals.length
  if (count < minPositionals) return refuse(name, io, usage, `missing argument${minPositionals - count > 1 ? 's' : ''}`)
  if (count > maxPositionals) return refuse(name, io, usage, `unexpected argument ${JSON.stringify(parsed.positionals[maxPositionals])}`)
  return { values: parsed.values as Values, positionals: parsed.positionals }
}

/** Print why the command line is refused, then the usage; exit 2. */
export function refuse(name: string, io: CliIo, usage: string, why: string): { exit: number } {
  io.err(`${name}: ${why}`)
  io.err(usage)
  return { exit: EXIT.USAGE }
}
