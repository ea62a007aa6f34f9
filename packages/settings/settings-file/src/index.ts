import { FileSettingsProvider } from './provider.ts'

export { FileSettingsProvider }
export { SettingsDocumentError, SettingsLockTimeoutError, type LockOwner } from './errors.ts'
export { resolveDocumentPath, resolveHome } from 'dsh-home'
export default FileSettingsProvider
