import { PostgresSettingsProvider } from './provider.ts'

export { PostgresSettingsProvider }
export {
  SettingsDatabaseCannotHoldError,
  SettingsDatabaseError,
  SettingsNoSecretKeyError,
  SettingsSecretReadOnlyError,
  SettingsSecretUnreadableError,
} from './errors.ts'
export type { UnholdableReason } from './holdable.ts'
export { databaseLabel } from './target.ts'
/** The table names the provider uses for a `table` prefix, for operators and tools that read the store directly (also in `dsh-settings-postgres/sql`). */
export { tablesFor, type Tables } from './sql.ts'
export default PostgresSettingsProvider
