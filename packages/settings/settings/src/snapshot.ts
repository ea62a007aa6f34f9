import { sectionId } from './document.ts'
import type { SettingsSectionChange } from './overlay.ts'
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
 * (identical on every host sharing the store); it must then publish snapshots
 * or {@link SettingsChanges} with versions, check a transaction's reads
 * against its versions (`readsHoldVersions`), and answer the new version of
 * every section it stores.
 *
 * `versions` may list only some sections: on load an unlisted section is at
 * version 0; in a publish an unlisted section keeps the version and content the
 * seam already holds. A section the store removed is listed, with a newer
 * version, and left out of `document`.
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

/**
 * Sections a provider observed changing on its own (a watcher, a change
 * feed), for `publish`: only these are looked at, however large the document.
 * With store-owned revisions each change carries the store's version of its
 * section; one not newer than the committed version is a late echo and is
 * skipped. A removed section is a change whose `section` is `undefined`.
 */
export class SettingsChanges {
  readonly changes: readonly SettingsSectionChange[]

  constructor(changes: Iterable<SettingsSectionChange>) {
    this.changes = [...changes]
  }
}
