/** What a deployment file plans to: plugin entries and named scope groups, and the error a malformed file raises. */
/** One plugin to plug, as a deployment file declares it. */
export interface PluginEntry {
  kind: 'plugin'
  /** The entry's key: its identity across reloads. */
  key: string
  /** Module specifier: a package name, or a path starting with `./` (relative to the deployment file). */
  specifier: string
  /** The optional `:label` that lets one plugin be plugged twice. */
  label?: string
  /** The config after environment interpolation. */
  config: unknown
}

/** A named scope holding its own entries. */
export interface ScopeEntry {
  kind: 'scope'
  key: string
  /** The scope id (`preset/coder`). */
  name: string
  entries: Entry[]
}

/** One item of a deployment. */
export type Entry = PluginEntry | ScopeEntry

/** A deployment file is wrong; the message names the entry. */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError'
  readonly code = 'DEPLOYMENT_INVALID'
}
