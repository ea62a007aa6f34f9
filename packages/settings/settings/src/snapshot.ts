import { sectionId } from './document.ts'
import { SettingsProviderContractError } from './errors.ts'
import { sectionLabel } from './ids.ts'
import type { SettingsDocument } from './types.ts'

/** The store's own version of one raw section: a database row version, a key-value store's modification revision. */
export interface SettingsSectionVersion {
  ns: string
  /** The named scope the section sits under; absent for a global section. */
  scope?: string
  /** A non-negative safe integer that grows with every stored change of the section, the same on every host. */
  version: number
}

/**
 * A document together with the store's versions of its sections. A provider
 * whose `load()` answers one makes the store's versions the seam's revisions
 * (identical on every host sharing the store); it must then hand snapshots to
 * `transaction.apply` and `publish`, and versions to `transaction.commit`.
 *
 * `versions` may list only some sections: on load an unlisted section is at
 * version 0; in a publish an unlisted section keeps the version and content the
 * seam already holds. In a transaction's `apply` every section that differs
 * from what the seam last saw must be listed with a newer version (else the
 * writes fail with a contract error: storing the seam's older copy would lose
 * the store's newer data). A section the store removed is listed, with a
 * newer version, and left out of `document`.
 */
export class SettingsSnapshot {
  constructor(
    readonly document: SettingsDocument,
    readonly versions: Iterable<SettingsSectionVersion> = [],
  ) {}
}

/** Store versions by section id, each checked to be a usable revision. */
export function versionMap(versions: Iterable<SettingsSectionVersion>): Map<string, number> {
  const map = new Map<string, number>()
  for (const entry of versions) {
    const { ns, scope, version } = entry ?? ({} as SettingsSectionVersion)
    if (typeof ns !== 'string' || (scope !== undefined && typeof scope !== 'string')) {
      throw new SettingsProviderContractError('a store version names its section by a string `ns` and an optional string `scope`')
    }
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
      throw new SettingsProviderContractError(`the store version of ${sectionLabel(ns, scope)} must be a non-negative safe integer`, { ns, scope })
    }
    const id = sectionId(ns, scope)
    // Listed twice: the newer one is what the store holds.
    map.set(id, Math.max(version, map.get(id) ?? 0))
  }
  return map
}
