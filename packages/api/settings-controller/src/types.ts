import type { SettingsHistoryVersion, SettingsNamespaceView, SettingsScopeId, SettingsSectionDiff } from 'dsh-settings'

/**
 * What `describe` answers: everything a configuration page needs to render
 * one scope, with every secret already removed.
 */
export interface SettingsDescribeValue {
  /** Whether the mounted provider can persist writes; a page shows a read-only form when it cannot. */
  writable: boolean
  /**
   * Whether the provider keeps a local document (a file), so `openSettingsDocument`
   * can hand it to a native editor. The file itself may not exist yet.
   */
  document: boolean
  /** Whether the provider keeps replaced versions, so `history`, `compare` and `restore` work; a page hides its history view when not. */
  history: boolean
  /** One redacted view per namespace kind under the described scope, in registration order. */
  namespaces: SettingsNamespaceView[]
  /** Every named scope some namespace is registered under, in first-seen order. */
  scopes: SettingsScopeId[]
}

/** What `openSettingsDocument` answers once the native opener accepted the document. */
export interface SettingsDocumentOpenValue {
  /** Always `true`: a refusal is thrown as a `RemoteError`, never answered. */
  opened: true
}

/**
 * What `openAgentPresetDirectory` answers: either the native opener accepted the
 * directory, or this host has no opener and the page should show the path as text.
 */
export type AgentPresetDirectoryOpenValue =
  | { opened: true }
  | {
      opened: false
      /** The preset's resolved directory on the host, for the page to display. */
      directory: string
    }

/**
 * One path-addressed edit as it travels on the wire: `set` replaces (or creates)
 * the field at `path`, `unset` removes it. Paths are arrays of keys; where the
 * stored value is an array, a decimal key addresses an element.
 */
export type SettingsPathOpView =
  | { op: 'set'; path: string[]; value: unknown }
  | { op: 'unset'; path: string[] }

/** What `history` answers: a page of kept versions, newest first. */
export interface SettingsHistoryValue {
  versions: SettingsHistoryVersion[]
}

/** What `compare` answers: what changed from a kept version to the current document, redacted. */
export interface SettingsCompareValue {
  /** The version compared. */
  version: string
  /** Per section: plain fields with their values; secrets and undeclared keys as `set`/`changed`/`unset` only. */
  sections: SettingsSectionDiff[]
}

/** Which sections `restore` can take from a kept version. */
export interface SettingsRestoreOptions {
  /** Restore only this namespace's section (with `scope`, its section there). */
  ns?: string
  scope?: string
  /** With `ns`: the revision the caller read, as for `replace`. */
  expectedRevision?: number
}

/** What `restore` answers. */
export interface SettingsRestoreValue {
  /** The sections written back (each a normal write: revision checked, events fired, a new version kept). */
  restored: { ns: string; scope?: string }[]
  /** Sections that differ but could not be written because no plugin registers their namespace now. */
  skipped: { ns: string; scope?: string }[]
}
