export { SettingsProvider } from './provider.ts'
export { dataEqual } from './equal.ts'
export type { SettingsTransaction } from './transactions.ts'
export {
  SettingsConflictError,
  SettingsInputError,
  SettingsRegistrationError,
  SettingsStoreError,
  SettingsUnavailableError,
  SettingsValidationError,
} from './errors.ts'
export type { SettingsStoreErrorCode, SettingsStoreRefusal } from './errors.ts'
export { NAMESPACE_PATTERN, RESERVED_NAMESPACES, settingsNamespace, settingsScopeId } from './ids.ts'
export { installSettingsSection } from './install-section.ts'
export { SCOPES_KEY } from './document.ts'
export type {
  Branded,
  JsonObject,
  JsonValue,
  RedactedSecret,
  SettingsApplies,
  SettingsDescribeOptions,
  SettingsDescriptor,
  SettingsDocument,
  SettingsNamespace,
  SettingsNamespaceInput,
  SettingsNamespaceView,
  SettingsPartial,
  SettingsPathOp,
  SettingsRegisterOptions,
  SettingsSchema,
  SettingsScope,
  SettingsScopeId,
  SettingsSectionProblem,
  SettingsSectionHooks,
  SettingsUpdateSource,
} from './types.ts'
