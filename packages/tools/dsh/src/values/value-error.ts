/**
 * The one error a value command's own checks throw: a value that cannot be
 * typed by the schema at its path, a path the schema does not declare, a
 * secret given where it would be kept, or no value to read. Its message names
 * the field (only once the schema declared it) and what is wanted, never any
 * part of the value given.
 */
import { EXIT } from '../io.ts'

/**
 * Why a value was refused, one word a caller can branch on:
 * - `undeclared`: the path is not declared by the schema (exit 1);
 * - `not-a-number`, `not-a-boolean`, `no-constant`: the text does not read as
 *   what the scalar field takes (exit 1);
 * - `needs-json`: a structured field takes a value only with `--json` (exit 1);
 * - `refused`: the typed value is refused by the field's schema (exit 1);
 * - `not-json`: `--json` was given and the text is not strict JSON (exit 2);
 * - `secret-argument`: a secret (or a value holding one) was given on the command line (exit 2);
 * - `no-input`: no value given and none to read, or an empty standard input (exit 2);
 * - `cancelled`: the prompt was closed or interrupted before a value was entered (exit 2).
 */
export type ValueErrorCode =
  | 'undeclared'
  | 'not-a-number'
  | 'not-a-boolean'
  | 'no-constant'
  | 'needs-json'
  | 'refused'
  | 'not-json'
  | 'secret-argument'
  | 'no-input'
  | 'cancelled'

const USAGE_CODES: ReadonlySet<ValueErrorCode> = new Set(['not-json', 'secret-argument', 'no-input', 'cancelled'])

/** A value (or the way it was given) refused before anything was written; see {@link ValueErrorCode}. */
export class ValueError extends Error {
  override readonly name = 'ValueError'
  constructor(
    readonly code: ValueErrorCode,
    message: string,
  ) {
    super(message)
  }

  /** The exit code the command answers: 2 for how the value was given, 1 for what the schema refuses. */
  get exit(): number {
    return USAGE_CODES.has(this.code) ? EXIT.USAGE : EXIT.REFUSED
  }
}
