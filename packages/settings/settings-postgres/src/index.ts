import { PostgresSettingsProvider } from './provider.ts'

export { PostgresSettingsProvider }
export { SettingsDatabaseCannotHoldError, SettingsDatabaseError } from './errors.ts'
export type { UnholdableReason } from './holdable.ts'
export { databaseLabel } from './target.ts'
export default PostgresSettingsProvider
