/**
 * What a value command does through the deployment's provider when no host
 * runs, beyond reading values: writes (each kind it touches registered from
 * the catalog, or raw when none is recorded; origin `command`), the kept
 * versions and their differences (read-only), and restores. A write to a
 * kind with a section stored at an older version than its plugin's is
 * refused: migrating it takes the plugin's own steps, which only a host runs.
 */
import { RemoteError } from 'dsh-remote/client'
import { SCOPES_KEY, SECTION_VERSION_KEY, type SettingsDocument } from 'dsh-settings'
import type { CatalogKind } from 'dsh-settings-controller/catalog'
import type { CatalogState } from './catalog-state.ts'
import type { ValuePlan } from './deployment-plan.ts'
import { schemaOfKind } from './revived.ts'
import { startSession, type Session } from './session.ts'

/** Every stored section of `ns` (the global one and each scope's) stored at a version below `kind`'s, as `where: version`. */
export function olderSections(kind: CatalogKind, document: SettingsDocument): { scope?: string; stored: number }[] {
  if (!kind.version) return []
  const sections: { scope?: string; section: unknown }[] = [{ section: document[kind.ns] }]
  const scopes = document[SCOPES_KEY]
  if (scopes && typeof scopes === 'object') for (const [scope, held] of Object.entries(scopes)) if (held && typeof held === 'object') sections.push({ scope, section: (held as Record<string, unknown>)[kind.ns] })
  const older: { scope?: string; stored: number }[] = []
  for (const { scope, section } of sections) {
    if (!section || typeof section !== 'object' || Array.isArray(section)) continue
    const named = (section as Record<string, unknown>)[SECTION_VERSION_KEY]
    const stored = named === undefined ? 0 : typeof named === 'number' && Number.isSafeInteger(named) ? named : undefined
    if (stored !== undefined && stored < kind.version) older.push({ ...(scope === undefined ? {} : { scope }), stored })
  }
  return older
}

/** The refusal of a write to a kind whose stored sections are not all at its plugin's version. */
function migrationPending(kind: CatalogKind, older: { scope?: string; stored: number }[]): RemoteError {
  const where = older.map(({ scope, stored }) => `${scope === undefined ? kind.ns : `${kind.ns} in ${scope}`} (version ${stored})`).join(', ')
  return new RemoteError(
    'settings/rejected',
    `${where} ${older.length > 1 ? 'are' : 'is'} stored at an older version than the plugin's settings (version ${kind.version}): start the host once to migrate it; the command does not run a plugin's migration steps`,
    { ns: kind.ns, reason: 'migration-pending' },
  )
}

/** The recorded schema of `kind` rebuilt, or the refusal of a write it cannot judge. */
function revivable(kind: CatalogKind, catalog: string): void {
  try {
    schemaOfKind(kind)
  } catch {
    throw new RemoteError('settings/unavailable', `${catalog} holds a schema for ${kind.ns} that does not read back: start the host once to record it again`, { ns: kind.ns })
  }
}

/** A writable session with `ns` registered (from the catalog, or raw), refusing a kind whose sections wait to be migrated. */
export async function writeSession(plan: ValuePlan, conditions: readonly string[], state: CatalogState, ns: string): Promise<Session> {
  const session = await startSession(plan, conditions, { readOnly: false })
  try {
    const kind = state.catalog ? state.kinds.get(ns) : undefined
    if (kind && state.catalog) {
      const older = olderSections(kind, session.document())
      if (older.length) throw migrationPending(kind, older)
      revivable(kind, state.path)
    }
    await session.register(kind ?? { ns, raw: true })
    return session
  } catch (error) {
    await session.close()
    throw error
  }
}

/**
 * A session with every recorded kind registered (read-only for `history` and
 * `compare`; writable for a whole restore, leaving out each kind whose
 * sections wait to be migrated, which the restore then skips).
 */
export async function wholeSession(plan: ValuePlan, conditions: readonly string[], state: CatalogState, readOnly: boolean, note: (line: string) => void): Promise<Session> {
  const session = await startSession(plan, conditions, { readOnly })
  try {
    for (const kind of state.catalog ? state.kinds.values() : []) {
      if (!readOnly && olderSections(kind, session.document()).length) {
        note(`note: ${kind.ns} is stored at an older version than its plugin's settings: not restored (start the host once to migrate it)`)
        continue
      }
      try {
        schemaOfKind(kind)
      } catch {
        note(`note: the recorded schema of ${kind.ns} does not read back: its sections are left as they are (start the host once to record it again)`)
        continue
      }
      await session.register(kind)
    }
    return session
  } catch (error) {
    await session.close()
    throw error
  }
}

/** A read-only session with no kind registered: enough for the kept versions' list. */
export function readSession(plan: ValuePlan, conditions: readonly string[]): Promise<Session> {
  return startSession(plan, conditions, { readOnly: true })
}
