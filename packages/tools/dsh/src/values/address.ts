import { settingsNamespace } from 'dsh-settings'

/** A setting as the command line names it: a namespace and a path of keys inside its section. */
export interface SettingAddress {
  ns: string
  path: string[]
}

/** The command line named a setting the seam cannot address. */
export class AddressError extends Error {
  override readonly name = 'AddressError'
}

/**
 * Read `<namespace>[.<key>[.<key>…]]` (`web-search.limit`, `assistant.models.0`):
 * the namespace up to the first dot, then one key per dot-separated part. A
 * key holding a dot cannot be named this way (use the settings page or the
 * YAML file for those).
 * @throws {AddressError} for an empty key or a malformed or reserved namespace.
 */
export function parseAddress(text: string, { pathRequired }: { pathRequired: boolean }): SettingAddress {
  const [ns = '', ...path] = text.split('.')
  try {
    settingsNamespace(ns)
  } catch (error) {
    throw new AddressError(`${JSON.stringify(text)} does not start with a namespace: ${(error as Error).message}`)
  }
  if (path.some((key) => key === '')) throw new AddressError(`${JSON.stringify(text)} holds an empty key (two dots, or a dot at an end)`)
  if (pathRequired && !path.length) throw new AddressError(`${JSON.stringify(text)} names a whole section: name a key inside it (<namespace>.<key>)`)
  return { ns, path }
}
