/**
 * A migration's steps in the page's language, from the descriptor's steps as
 * data (`changes`), with the page's path display: `rename apiKey to token`,
 * `将 host 移至 server › host`.
 */
import type { SettingsMigrationChange, SettingsSectionMigration, SettingsSectionVersionChange } from 'dsh-settings'
import { showPath } from './format.ts'
import { m } from './i18n.ts'

/** One change of a step in the page's language. */
function changeText(change: SettingsMigrationChange): string {
  switch (change.op) {
    case 'move': {
      // A move within one parent is a rename.
      const sibling = change.from.length === change.to.length && change.from.slice(0, -1).every((key, index) => key === change.to[index])
      return sibling ? m.migrationRename(showPath(change.from), showPath(change.to)) : m.migrationMove(showPath(change.from), showPath(change.to))
    }
    case 'drop':
      return m.migrationDrop(showPath(change.path))
    case 'default':
      return m.migrationDefault(showPath(change.path))
    case 'function':
      return m.migrationFunction(change.name)
  }
}

/**
 * The steps of a migration as one parenthesised phrase (empty without steps);
 * from the seam's English step names when the host sends no `changes` (an older host).
 */
export function stepsText(migration: Pick<SettingsSectionMigration, 'steps'> & Pick<SettingsSectionVersionChange, 'changes'>): string {
  const steps = stepList(migration)
  return steps.length ? m.migrationSteps(steps) : ''
}

/** Each step of a migration in the page's language (the seam's English names from a host that sends no `changes`). */
export function stepList(migration: { steps?: readonly string[] | undefined; changes?: readonly SettingsMigrationChange[][] | undefined }): string[] {
  const { changes } = migration
  return changes ? changes.map((step) => (step.length ? m.migrationOps(step.map(changeText)) : m.migrationNoChange)) : [...(migration.steps ?? [])]
}
