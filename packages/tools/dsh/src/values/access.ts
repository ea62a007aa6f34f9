/**
 * How a `dsh settings` command reaches the settings: through a running host's
 * wire (so its plugins see a change at once), or, with no host running,
 * through the deployment's own provider in this process (same lock and kept
 * versions as a host), judged by the schemas the host last recorded in its
 * catalog (no plugin runs). Both answer with the controller's redacted views.
 */
import type {
  SettingsCompareValue,
  SettingsDescribeValue,
  SettingsHistoryValue,
  SettingsNamespaceView,
  SettingsPathOpView,
  SettingsRestoreOptions,
  SettingsRestoreValue,
} from 'dsh-settings-controller'

/** The settings as a command reaches them; every answer is redacted. */
export interface SettingsAccess {
  /** `host`: a running host of the deployment, over its wire; `provider`: the deployment's provider, in this process. */
  readonly via: 'host' | 'provider'
  /** The host's URL, or the provider's document path (or name, when it keeps no local document). */
  readonly where: string
  /**
   * The redacted views under `scope` (global when absent): every namespace, or only those `namespaces`
   * names (a command that reads one namespace names it, so nothing else is described).
   */
  describe(scope?: string, namespaces?: readonly string[]): Promise<SettingsDescribeValue>
  mutate(ns: string, ops: SettingsPathOpView[], expectedRevision?: number, scope?: string): Promise<SettingsNamespaceView>
  replace(ns: string, section: Record<string, unknown>, expectedRevision?: number, scope?: string): Promise<SettingsNamespaceView>
  history(query?: { limit?: number; before?: string }): Promise<SettingsHistoryValue>
  compare(version: string): Promise<SettingsCompareValue>
  restore(version: string, options?: SettingsRestoreOptions): Promise<SettingsRestoreValue>
  /** Unredacted values, for `--show-secrets`: only the provider way has them (a host never sends a secret). */
  reveal?(ns: string, scope?: string): unknown
  /** Let go of what reaching the settings took (the in-process deployment, or nothing). */
  close(): Promise<void>
}
