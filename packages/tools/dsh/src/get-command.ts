/**
 * `dsh settings get`, on its own: the command a script runs most often, and
 * the one that must answer fastest. The published bin holds this module and
 * what it reaches in one CommonJS file (`scripts/pack/bundle-bin.ts`), where
 * other commands load `main.ts` and their modules as they are.
 */
import { withProcessConditions, type CliIo } from './io.ts'
import { runValueCommand } from './values/commands.ts'

/** Run `dsh settings get <argv…>` and answer its exit code. */
export function runGetCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return runValueCommand('get', argv, withProcessConditions(io))
}
