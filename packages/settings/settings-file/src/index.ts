import { FileSettingsProvider } from './provider.ts'

export { FileSettingsProvider }
export type { FileStep } from './provider.ts'
export { SettingsDocumentCannotHoldError, SettingsDocumentError, SettingsDocumentTooLargeError, SettingsLockTimeoutError, SettingsNotAFileError, SettingsNotAMapError, type NotAFileKind } from './errors.ts'
export { SettingsHistoryUnavailableError, SettingsUnsafeHistoryFileError, type UnsafeHistoryFileReason } from './errors.ts'
export type { LockOwner } from './owner.ts'
export { resolveDocumentPath, resolveHome } from 'dsh-settings-home'
export default FileSettingsProvider
