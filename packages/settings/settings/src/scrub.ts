import { valueAt } from './data.ts'
import type { Redactor } from './redact.ts'

/** What replaces a secret's text in a message. */
export const REDACTED = '[redacted]'

/** Every string and number inside a value, as text. */
export function textsIn(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value) into.add(value)
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    into.add(String(value))
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) textsIn(item, into)
  }
}

/**
 * The texts that must not leave the process from `values` (a candidate, its
 * layers, a stored section), as the kind's redactor finds them: the strings
 * and numbers at each secret position and at each place the schema does not
 * declare (a renamed secret field left behind, say), and inside them when
 * they hold a structure.
 */
export function secretTexts(redactor: Redactor, values: readonly unknown[]): string[] {
  const texts = new Set<string>()
  for (const value of values) {
    if (value === undefined) continue
    if (redactor.hasSecrets) for (const slot of redactor.redact(value).slots) textsIn(valueAt(value, slot.path), texts)
    for (const path of redactor.undeclared(value)) textsIn(valueAt(value, path), texts)
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...texts].sort((a, b) => b.length - a.length)
}

/** `text` with every occurrence of each secret replaced by {@link REDACTED}. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let result = text
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REDACTED)
  return result
}

/**
 * A copy of a thrown value that is safe to keep as an error's `cause`: its
 * message and stack scrubbed of `secrets`, its name and code kept. The
 * original (which may quote a secret) is dropped.
 */
export function scrubbedError(thrown: unknown, secrets: readonly string[]): Error {
  const source = thrown instanceof Error ? thrown : new Error(String(thrown))
  const copy = new Error(scrubText(source.message, secrets))
  copy.name = source.name
  copy.stack = scrubText(source.stack ?? '', secrets)
  const code = (source as { code?: unknown }).code
  if (typeof code === 'string' || typeof code === 'number') Object.assign(copy, { code })
  return copy
}
