// The seam's id rules alone: a command that only reads one value loads nothing else of the seam.
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES } from 'dsh-settings/ids'

/** A setting as the command line names it: a namespace and a path of keys inside its section. */
export interface SettingAddress {
  ns: string
  path: string[]
}

/** The command line named a setting the seam cannot address. */
export class AddressError extends Error {
  override readonly name = 'AddressError'
  readonly code = 'DSH_BAD_ADDRESS'
}

/**
 * Read `<namespace>[.<key>[.<key>…]]` (`web-search.limit`, `assistant.models.0`):
 * the namespace up to the first dot, then one key per dot-separated part. A
 * key holding a dot cannot be named this way (use the settings page or the
 * YAML file for those). A refusal does not quote the text: arguments given in
 * the wrong order put a value where the address goes.
 * @throws {AddressError} for an empty key, a `=` (a value written into the address), or a malformed or reserved namespace.
 */
export function parseAddress(text: string, { pathRequired }: { pathRequired: boolean }): SettingAddress {
  const [ns = '', ...path] = text.split('.')
  if (text.includes('=')) throw new AddressError('the setting\'s address holds "=": give the value as its own argument (dsh settings set <namespace>.<key> <value>)')
  if (!NAMESPACE_PATTERN.test(ns)) throw new AddressError('the setting\'s address does not start with a namespace (lower-case words of letters and digits joined by "-", then ".<key>")')
  if (RESERVED_NAMESPACES.has(ns)) throw new AddressError('the setting\'s address starts with a reserved name, which no namespace takes')
  if (path.some((key) => key === '')) throw new AddressError('the setting\'s address holds an empty key (two dots, or a dot at an end)')
  if (pathRequired && !path.length) throw new AddressError('the setting\'s address names a whole section: name a key inside it (<namespace>.<key>)')
  return { ns, path }
}
