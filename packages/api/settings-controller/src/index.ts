import { SettingsController } from './controller.ts'

export { SettingsController }
export { RemoteError } from 'dsh-remote'
export { CANCELLED, SETTINGS_ERROR_STATUS } from './errors.ts'
export { MAX_DESCRIBE_NAMESPACES } from './boundary.ts'
export { defaultOpener, type PresetRoot, type SettingsControllerConfig } from './config.ts'
export { CATALOG_FILE, CATALOG_FORMAT, isCatalog, readCatalog, type CatalogInstance, type CatalogKind, type CatalogRead, type CatalogRefusal, type CatalogSecret, type SettingsCatalog } from './catalog-format.ts'
export { SETTINGS_REMOTE_SERVICE, settingsHandlers, settingsRemoteMethods, type SettingsRemote } from './wire.ts'
export type {
  AgentPresetDirectoryOpenValue,
  SettingsCompareValue,
  SettingsDescribeValue,
  SettingsDocumentOpenValue,
  SettingsHistoryValue,
  SettingsPathOpView,
  SettingsRestoreOptions,
  SettingsRestoreValue,
} from './types.ts'
export type { SettingsNamespaceView } from 'dsh-settings'
export default SettingsController
