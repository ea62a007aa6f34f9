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
 * `usage` to stderr and answers exit 2. A refusal never quotes an argument:
 * what looks like an unknown option may be a value that starts with `-`.
 */
export function parseCommand<Values = Record<string, string | boolean | undefined>>(
  name: string,
  argv: readonly string[],
  io: CliIo,
  usage: string,
  options: OptionSpec,
  { minPositionals = 0, maxPositionals = 0 }: { minPositionals?: number; maxPositionals?: number } = {},
): Parsed<Values> {
  const all: OptionSpec = { ...options, help: { type: 'boolean', short: 'h' } }
  const attached = attachedShortOption(argv, all)
  if (attached) return refuse(name, io, usage, attached)
  let parsed: { values: Record<string, unknown>; positionals: string[] }
  try {
    parsed = parseArgs({ args: [...argv], options: all, allowPositionals: true, strict: true })
  } catch (error) {
    return refuse(name, io, usage, parseFailure(error, all))
  }
  if (parsed.values.help) {
    io.out(usage)
    return { exit: EXIT.OK }
  }
  const count = parsed.positionals.length
  if (count < minPositionals) return refuse(name, io, usage, `missing argument${minPositionals - count > 1 ? 's' : ''}`)
  // The extra argument is not quoted: it may be a value meant for another place (a secret split by a space).
  if (count > maxPositionals) return refuse(name, io, usage, `${count - maxPositionals} argument${count - maxPositionals > 1 ? 's' : ''} too many (quote a value that holds spaces)`)
  return { values: parsed.values as Values, positionals: parsed.positionals }
}

/** Print why the command line is refused, then the usage; exit 2. */
export function refuse(name: string, io: CliIo, usage: string, why: string): { exit: number } {
  io.err(`${name}: ${why}`)
  io.err(usage)
  return { exit: EXIT.USAGE }
}

/** A value that starts with `-` goes after `--`; said wherever an argument is taken for an option. */
const DASH_HINT = 'a value that starts with "-" goes after "--" (dsh settings set <namespace>.<key> -- -value)'

/**
 * Why the command line is refused when a short option has text attached
 * (`-sVALUE`, `-xyz`): `parseArgs` would read `-sk-live` as `--scope k-live`,
 * taking a value that starts with a dash for an option and its argument.
 * Short options here take their value as the next argument only.
 */
function attachedShortOption(argv: readonly string[], options: OptionSpec): string | undefined {
  const shorts = new Set(Object.values(options).map((option) => option.short).filter(Boolean))
  for (const arg of argv) {
    if (arg === '--') return undefined
    if (/^-[^-]/.test(arg) && !(arg.length === 2 && shorts.has(arg[1]!))) return `an argument starts with "-" but is not an option this command takes; ${DASH_HINT}`
  }
  return undefined
}

/**
 * A `parseArgs` failure in words that quote no argument: its own messages
 * quote the unknown text, which may be a value. Only option names this
 * command declares are named.
 */
function parseFailure(error: unknown, options: OptionSpec): string {
  const { code, message } = error as { code?: string; message?: string }
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `an argument starts with "-" but is not an option this command takes; ${DASH_HINT}`
  const named = Object.keys(options).find((option) => message?.includes(`'--${option}'`) || message?.includes(`--${option} <value>`))
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named) {
    return options[named]!.type === 'boolean' ? `--${named} takes no value` : `--${named} needs a value (one that starts with "-" is written --${named}=-value)`
  }
  return 'the arguments do not parse'
}
