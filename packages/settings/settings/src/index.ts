export { SettingsProvider } from './provider.ts'
export { dataEqual } from './equal.ts'
export type { SettingsStoreResult, SettingsTransaction } from './transactions.ts'
export { readsHold, readsHoldVersions, type SettingsSectionChange, type SettingsSectionRead } from './overlay.ts'
export { SettingsChanges, SettingsSnapshot } from './snapshot.ts'
export type { SettingsSectionVersion } from './snapshot.ts'
export { changedSections, documentWith, getSection, handOver, putSection, transferToSeam, type SectionKey } from './document.ts'
export {
  SettingsConflictError,
  SettingsInputError,
  SettingsNeedsSetupError,
  SettingsProviderContractError,
  SettingsRegistrationError,
  SettingsStoreError,
  SettingsUnavailableError,
  SettingsValidationError,
} from './errors.ts'
export type { SettingsInputReason, SettingsStoreErrorCode, SettingsStoreRefusal } from './errors.ts'
export { NAMESPACE_PATTERN, PROTOTYPE_KEYS, RESERVED_NAMESPACES, settingsNamespace, settingsRevision, settingsScopeId } from './ids.ts'
export { formatPath, MAX_DEPTH, MAX_WRITE_BYTES } from './json.ts'
export { MAX_OPS } from './path.ts'
export { installSettingsSection } from './install-section.ts'
export { SCOPES_KEY } from './document.ts'
export { SECTION_VERSION_KEY } from './migration-types.ts'
export type { LocalizedText } from './localized.ts'
export type { SettingsMigration, SettingsMigrationChange, SettingsMigrationFunction, SettingsMigrationOp, SettingsMigrationPath, SettingsSectionMigration, SettingsSectionVersionChange } from './migration-types.ts'
export type {
  Branded,
  JsonObject,
  JsonValue,
  RedactedSecret,
  SettingsSecretOrigin,
  SettingsSecretSource,
  SettingsApplies,
  SettingsChangeOrigin,
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
  SettingsUndeclaredKey,
  SettingsUpdateSource,
  SettingsWriteOrigin,
  SettingsHistoryQuery,
  SettingsHistoryVersion,
  SettingsFieldChange,
  SettingsSectionDiff,
} from './types.ts'
