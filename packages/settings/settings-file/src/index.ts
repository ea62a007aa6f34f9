import { FileSettingsProvider } from './provider.ts'

export { FileSettingsProvider }
export { SettingsDocumentError, SettingsLockTimeoutError, type LockOwner } from './errors.ts'
export { resolveDocumentPath, resolveHome } from './home.ts'
export default FileSettingsProvider
