import { PostgresSettingsProvider } from './provider.ts'

export { PostgresSettingsProvider }
export { SettingsDatabaseError } from './errors.ts'
export { databaseLabel } from './target.ts'
export default PostgresSettingsProvider
