import { settingsNamespace, type SettingsNamespace } from 'dsh-settings'
import { invalid } from './errors.ts'

/**
 * The controller's own argument checks: only what belongs to its calls, not
 * to settings. Everything a write carries (namespace, scope, revision,
 * payload) is checked once, by the settings seam, and its refusal mapped to a
 * wire code in `errors.ts`.
 */

/** Longest preset id accepted: a directory name longer than this cannot exist on common file systems. */
export const MAX_PRESET_ID = 255
/** The `<id>` half of the scope-id grammar, which preset ids share. */
export const PRESET_ID_PATTERN = /^[a-z0-9][a-z0-9-]*$/

/**
 * Read an optional argument a JSON client may send as `null`: JSON has no
 * `undefined`, so `null` in the middle of an argument list means "absent".
 */
export function absent<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value
}

/**
 * The most namespaces one `describe` may name. A page refreshing more than
 * this at once asks for every namespace instead (no filter), which costs the same.
 */
export const MAX_DESCRIBE_NAMESPACES = 1000

/**
 * Read `describe`'s optional namespace filter: absent or `null` for every
 * namespace, else an array of namespace names (each read with the seam's own
 * parser), answered once each, in the order given.
 * @throws {RemoteError} `settings/invalid` for something other than an array,
 *   one longer than {@link MAX_DESCRIBE_NAMESPACES}; the seam's `SettingsInputError`
 *   (`bad-namespace`, mapped by the caller) for a malformed name.
 */
export function checkNamespaceFilter(namespaces: unknown): SettingsNamespace[] | undefined {
  const given = absent(namespaces)
  if (given === undefined) return undefined
  if (!Array.isArray(given)) throw invalid('describe namespaces must be an array of namespace names, or null for every namespace')
  if (given.length > MAX_DESCRIBE_NAMESPACES) throw invalid(`describe takes at most ${MAX_DESCRIBE_NAMESPACES} namespaces (${given.length} given); pass none to describe every namespace`)
  return [...new Set(given.map((ns: unknown) => settingsNamespace(ns)))]
}

/**
 * Check a preset id: the `<id>` grammar of a scope id, so it can never spell a
 * path (`..`, a separator, an absolute path) and always names one directory.
 * @throws {RemoteError} `settings/invalid` for anything else.
 */
export function checkPresetId(presetId: unknown): string {
  if (typeof presetId !== 'string' || presetId.length > MAX_PRESET_ID || !PRESET_ID_PATTERN.test(presetId)) {
    const shown = typeof presetId === 'string' ? JSON.stringify(presetId.slice(0, 80)) : typeof presetId
    throw invalid(`agent preset id ${shown} must match ${PRESET_ID_PATTERN} (at most ${MAX_PRESET_ID} characters)`)
  }
  return presetId
}

/**
 * Check a caller's lifetime signal.
 * @throws {RemoteError} `settings/invalid` when it is given and is not an `AbortSignal`.
 */
export function checkSignal(signal: unknown): AbortSignal | undefined {
  if (signal === undefined) return undefined
  if (signal instanceof AbortSignal) return signal
  throw invalid('signal must be an AbortSignal')
}

/**
 * Refuse a wire call that sends more arguments than the method takes, rather
 * than silently ignoring what the caller meant to say.
 * @throws {RemoteError} `settings/invalid`.
 */
export function checkArity(method: string, args: readonly unknown[], max: number): void {
  if (args.length > max) throw invalid(`settings.${method} takes at most ${max} argument${max === 1 ? '' : 's'}, got ${args.length}`)
}
