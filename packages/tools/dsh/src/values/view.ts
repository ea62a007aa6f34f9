/**
 * The view a command reads of one namespace: only that namespace is described
 * (every one only to suggest a name when it is not there).
 */
import { RemoteError } from 'dsh-remote/client'
import type { SettingsNamespaceView } from 'dsh-settings-controller'
import type { SettingsAccess } from './access.ts'
import { nearestName } from './nearest.ts'

/** How many declared names a refusal lists when none is near the one given. */
export const LISTED_NAMES = 12

/**
 * The view of `ns` under `scope`; a namespace no plugin registers is a
 * refusal that does not quote the name given (it may be a value given in the
 * wrong place) but suggests the nearest registered one.
 */
export async function viewOf(access: SettingsAccess, ns: string, scope: string | undefined): Promise<SettingsNamespaceView> {
  // Only the namespace asked for; every one only to suggest a name when it is not there.
  const view = (await access.describe(scope, [ns])).namespaces.find((candidate) => candidate.ns === ns)
  if (view) return view
  const described = await access.describe(scope)
  const names = described.namespaces.map((candidate) => candidate.ns)
  const near = nearestName(ns, names)
  const hint = near ? ` (did you mean ${near}?)` : names.length ? ` (registered: ${names.slice(0, LISTED_NAMES).join(', ')})` : ''
  throw new RemoteError('settings/unavailable', `no plugin of the deployment registers that namespace${scope === undefined ? '' : ` in ${scope}`}${hint}`)
}
