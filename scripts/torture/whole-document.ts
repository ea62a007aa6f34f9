/**
 * What an outside reader of the "external readers" scenario may find: a whole
 * document. Every section exists from the seed on (writers only change values
 * inside them), and the seed ends with a trailer section no writer touches, so
 * any version the writers or the editor wrote parses, has every section and
 * ends with the trailer. A read cut short, or taken while a writer had the
 * document half written or set aside, fails one of these checks.
 */
import { load } from 'js-yaml'

/** The seed's last section: a read without it, or with it cut short, found a partial document. */
export const TRAILER = 'end:\n  whole: true # the last section: a read without it found a partial document\n'

/** The namespaces a whole document holds besides `end`: `hand`, `shared` and `w-0`…`w-<writers-1>`. */
export function sectionNames(writers: number): string[] {
  return ['hand', 'shared', ...Array.from({ length: writers }, (_, index) => `w-${index}`)]
}

/** The scenario's seed: every section with value 0, `hand.seq` for the editor, then the trailer. */
export function seedDocument(writers: number, keys: number): string {
  const lines = ['# torture: external readers (a document other programs read while it is written)', 'hand:', '  seq: 0 # bumped by hand', 'shared:', '  k:']
  for (let index = 0; index < writers; index++) lines.push(`    w${index}: 0`)
  for (let index = 0; index < writers; index++) {
    lines.push(`w-${index}:`, '  k:')
    for (let key = 0; key < keys; key++) lines.push(`    k${key}: 0`)
  }
  return lines.join('\n') + '\n' + TRAILER
}

/** Why `text` is not a whole document (one short line), or `undefined` when it is one. */
export function partialReason(text: string, names: readonly string[]): string | undefined {
  if (text.length === 0) return 'empty'
  if (!text.endsWith('\n')) return 'cut short (no final newline)'
  let data: unknown
  try {
    data = load(text)
  } catch {
    return 'not valid YAML'
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return 'root is not a map'
  const sections = data as Record<string, any>
  const missing = names.filter((name) => !(name in sections))
  if (missing.length) return `lacks ${missing.join(', ')}`
  return sections.end?.whole === true ? undefined : 'lacks the trailer'
}
