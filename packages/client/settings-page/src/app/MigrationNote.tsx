import type { SettingsSectionMigration } from 'dsh-settings'
import { m } from './i18n.ts'
import { stepsText } from './migration-text.ts'

/**
 * What became of a section whose plugin versions its settings: migrated by
 * this host from an older version (with its steps), still stored at an
 * older one, or newer than the plugin. Nothing for a current section; a
 * failing step is the section's problem, shown above.
 */
export function MigrationNote({ migration }: { migration: SettingsSectionMigration | undefined }) {
  if (!migration) return null
  if (migration.state === 'migrated') {
    return (
      <p class="notice migration-note" role="status">
        {m.migrated(migration.from ?? 0, migration.version, stepsText(migration))}
      </p>
    )
  }
  if (migration.state === 'pending') {
    return (
      <p class="notice migration-note" role="status">
        {m.migrationPending(migration.stored, migration.version, stepsText(migration))}
      </p>
    )
  }
  if (migration.state === 'newer') {
    return (
      <p class="notice migration-note" role="status">
        {m.migrationNewer(migration.stored, migration.version)}
      </p>
    )
  }
  return null
}
