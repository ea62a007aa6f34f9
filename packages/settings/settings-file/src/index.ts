import { FileSettingsProvider } from './provider/provider.ts'

export { FileSettingsProvider }
export type { FileStep } from './provider/provider.ts'
export { SettingsDocumentCannotHoldError, SettingsDocumentError, SettingsDocumentTooLargeError, SettingsLockTimeoutError, SettingsNotAFileError, SettingsNotAMapError, type NotAFileKind } from './provider/errors.ts'
/** A write that would change a value the document takes from `!env`/`!file` (`SETTINGS_SECRET_READ_ONLY`). */
export { SettingsSecretReadOnlyError } from './provider/secret-errors.ts'
export type { SecretsMode } from './provider/secrets.ts'
export { SettingsHistoryUnavailableError, SettingsUnsafeHistoryFileError, type UnsafeHistoryFileReason } from './provider/errors.ts'
/** The public Settings* error for a refusal of the codec (`/codec`) or the store (`/store`); anything else as it is. */
export { settingsErrorOf } from './provider/errors.ts'
export type { LockOwner } from './store/owner.ts'
export { resolveDocumentPath, resolveHome } from 'dsh-settings-home'
export default FileSettingsProvider
