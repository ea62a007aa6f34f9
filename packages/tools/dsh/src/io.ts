import { processConditions } from 'dsh-loader/conditions'
import type { CheckOptions } from './check/check.ts'

/** Where a command writes, and what it resolves against: the process's own, or a test's. */
export interface CliIo {
  out(line: string): void
  err(line: string): void
  /** Relative paths are taken from here, and paths in the output shown relative to it when inside it. */
  cwd: string
  env?: NodeJS.ProcessEnv
  /** The `--conditions` plugins are imported with; this process's own (`processConditions` of dsh-loader) when absent. */
  conditions?: CheckOptions['conditions']
  /**
   * Standard input, where `dsh settings set <ns>.<key>` with no value reads it (a
   * prompt that does not echo when it is a terminal). Absent: such a value is refused.
   */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean }
}

/**
 * The exit codes every `dsh` command answers with.
 * - `OK` 0: done (for `settings check`: no problems, warnings or not);
 * - `REFUSED` 1: the settings refused what was asked (a value the schema refuses, a stale revision, an
 *   unknown namespace or version), or `settings check` found problems;
 * - `USAGE` 2: the command line is wrong, or a file it names cannot be read;
 * - `UNAVAILABLE` 3: the deployment could not be reached or started (its provider failed, a host did not answer).
 */
export const EXIT = { OK: 0, REFUSED: 1, USAGE: 2, UNAVAILABLE: 3 } as const

/** `io` with its `conditions`, this process's own when it names none. */
export function withProcessConditions(io: CliIo): CliIo {
  return io.conditions === undefined ? { ...io, conditions: processConditions() } : io
}
