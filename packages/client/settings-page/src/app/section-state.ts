/**
 * What the page renders, as data: the session's state, each section's form,
 * draft, conflict and refusal, and the small rules for reading them.
 */
import { RemoteError, type Remote } from 'dsh-remote/client'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import type { SettingsNamespaceView, SettingsRemote } from 'dsh-settings-controller'
import { changedFields, type FieldChange, type FormModel, type SearchQuery } from '../model/index.ts'

/** The remote client the page uses. */
export type PageRemote = Remote<{ settings: SettingsRemote }>

/**
 * A write that met a newer section: what changed, and the newest read. The
 * edit itself stays out of the rendered state (it may carry a secret's new value).
 */
export interface SectionConflict {
  changes: FieldChange[]
  latest: SettingsNamespaceView
}

/** A refusal to show next to a field (`path`) or at the top of its section. */
export interface SectionError {
  message: string
  code?: string
  path?: string[]
}

/**
 * Edits held in the page and saved together: for a plugin waiting for setup,
 * or after a switch to a form whose required values are not there yet. The
 * staged values themselves stay out of the state (one may be a secret).
 */
export interface SectionDraft {
  /** The section waits for setup: saving starts the plugin. */
  setup: boolean
  /** After a save was tried: the required values the draft still lacks, shown at their fields. */
  missing?: string[][]
  /** The paths the staged edits write (never their values), marked as not saved yet. */
  staged: string[][]
}

/** One namespace as the page holds it. */
export interface SectionState {
  /** The form shown: with a draft, the form as the staged edits would leave it. */
  form: FormModel
  draft?: SectionDraft
  /** A newer read that arrived while somebody was editing this section; shown as a notice. */
  newer?: SettingsNamespaceView
  conflict?: SectionConflict
  error?: SectionError
  /** A write of this section is on its way. */
  busy: boolean
}

/** Everything the page renders. Replaced, never changed in place, so a render can compare by identity. */
export interface SessionState {
  status: 'loading' | 'ready' | 'failed'
  /** Why the last full load failed, or why the event stream stopped for good. */
  failure?: string
  connection: 'connecting' | 'live' | 'reconnecting' | 'closed'
  /** The scope shown; `undefined` for the global scope. */
  scope?: string
  /** Scopes to offer: those `describe` reported, plus any the person opened. */
  scopes: string[]
  writable: boolean
  document: boolean
  /** Whether the provider keeps replaced versions, so the history view is offered. */
  history: boolean
  sections: SectionState[]
  /** The search and "modified" filter applied to the forms. */
  search: SearchQuery
  /** A short announcement for the status line (opened the file, saved, …). */
  notice?: string
}

/** Whether `id` is a well-formed named scope id (`<kind>/<id>`). */
export function isScopeId(id: string): boolean {
  return SCOPE_ID_PATTERN.test(id)
}

/** An error's message, for a notice. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A refusal as a section shows it: the wire's code, and the field `details.path` names. */
export function errorOf(error: unknown): SectionError {
  if (!(error instanceof RemoteError)) return { message: messageOf(error) }
  const details = error.details as { path?: unknown } | undefined
  const path = Array.isArray(details?.path) && details.path.every((key) => typeof key === 'string') ? (details.path as string[]) : undefined
  return { message: error.message, code: error.code, ...(path ? { path } : {}) }
}

/** Whether two reads of a section show the same thing (revision, values, secret states, registration). */
export function sameRead(a: SettingsNamespaceView, b: SettingsNamespaceView): boolean {
  return a.revision === b.revision && changedFields(a, b).length === 0 && a.registered === b.registered
}
