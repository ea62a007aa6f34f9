import type { Logger } from 'cordis'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { isPlainObject } from './data.ts'
import { getSection, SCOPES_KEY } from './document.ts'
import { sectionLabel } from './ids.ts'
import { planOf, readSection, stepNames, storedVersion } from './migrations.ts'
import { scopeKey, type Kind } from './registry.ts'
import type { WriteRequest } from './transactions.ts'
import type { SettingsDocument } from './types.ts'

/** What writing back migrations needs from the seam. */
export interface MigrationHost {
  /** The committed document. */
  readonly document: SettingsDocument
  readonly logger: Logger
  /** Queue a write through the normal write path. */
  write(request: WriteRequest): Promise<void>
}

/** Every stored section of `ns`: the global one and each well-formed scope's. */
function storedSections(document: SettingsDocument, ns: string): { scope: string | undefined; section: unknown }[] {
  const found: { scope: string | undefined; section: unknown }[] = [{ scope: undefined, section: getSection(document, ns) }]
  const scopes = Object.hasOwn(document, SCOPES_KEY) ? document[SCOPES_KEY] : undefined
  if (!isPlainObject(scopes)) return found
  for (const scope of Object.keys(scopes)) {
    if (SCOPE_ID_PATTERN.test(scope) && isPlainObject(scopes[scope])) found.push({ scope, section: getSection(document, ns, scope) })
  }
  return found
}

/** Codes of refusals that need no word: the service is stopping, or the kind left before the write ran. */
const QUIET = new Set(['SETTINGS_DISPOSED', 'SETTINGS_UNKNOWN_NAMESPACE', 'SETTINGS_INVALID'])

/**
 * Write back, through the normal write path (the store's lock and revision
 * check, a kept version, origin `migration`), every stored section of the
 * kind that is older than its version and migrates: the global one and each
 * scope's, whether or not an instance lives there. Each is one `migrate`
 * write, derived again from the section as stored when it runs, so a section
 * another host migrated first is left alone, and a user's edit stored first is
 * migrated with it. A section already queued is not queued twice.
 *
 * Nothing is awaited: the registration's value already reads migrated. A
 * failure is logged; a failing step was logged when the section was read,
 * and the section's `problem` names it.
 */
export function writeBackMigrations(kind: Kind, host: MigrationHost): void {
  const plan = planOf(kind)
  if (!plan.version) return
  for (const { scope, section } of storedSections(host.document, kind.ns)) {
    const id = scopeKey(scope)
    if (plan.writing.has(id) || !isPlainObject(section)) continue
    const reading = readSection(plan, section)
    if (!reading.ok || reading.stored >= plan.version) continue
    const from = reading.stored
    const label = sectionLabel(kind.ns, scope)
    plan.writing.add(id)
    host
      .write({ ns: kind.ns, scope, mode: 'migrate', payload: undefined })
      .then(
        () => {
          if ((storedVersion(getSection(host.document, kind.ns, scope)) ?? 0) < plan.version) return
          plan.migrated.set(id, from)
          host.logger.info(`settings ${label}: the stored section was migrated from version ${from} to ${plan.version} (${stepNames(plan, from).join('; ')})`)
        },
        (error: unknown) => {
          const code = (error as { code?: unknown } | null)?.code
          if (code === 'SETTINGS_READ_ONLY') host.logger.info(`settings ${label}: the stored section reads as version ${plan.version}, but the store is read-only, so it stays stored at version ${from}`)
          else if (!QUIET.has(code as string)) host.logger.warn(`settings ${label}: writing back the migration from version ${from} failed (it reads migrated meanwhile):`, error)
        },
      )
      .finally(() => plan.writing.delete(id))
  }
}
