import { sectionLabel } from './ids.ts'

/** Fields every settings error carries so callers can react without parsing messages. */
interface SectionFacts {
  ns: string
  scope?: string
}

/**
 * A write carried an `expectedRevision` the section has moved past: someone else
 * wrote first. Nothing was stored; re-read and retry.
 */
export class SettingsConflictError extends Error {
  override readonly name = 'SettingsConflictError'
  readonly code = 'SETTINGS_CONFLICT'
  readonly ns: string
  readonly scope?: string
  readonly expected: number
  readonly actual: number
  constructor(facts: SectionFacts & { expected: number; actual: number }) {
    super(`settings namespace ${sectionLabel(facts.ns, facts.scope)} changed since it was read (expected revision ${facts.expected}, now ${facts.actual})`)
    this.ns = facts.ns
    if (facts.scope !== undefined) this.scope = facts.scope
    this.expected = facts.expected
    this.actual = facts.actual
  }
}

/**
 * A resolved value was refused: by the schema (`path` names the field and the
 * message says what was expected, never what was received) or by the kind's
 * `validate` check (the check's error is the `cause`).
 */
export class SettingsValidationError extends TypeError {
  override readonly name = 'SettingsValidationError'
  readonly code = 'SETTINGS_INVALID'
  readonly ns: string
  readonly scope?: string
  /** Path of the refused field inside the section; empty for the section itself or an owner check. */
  readonly path: string[]
  constructor(facts: SectionFacts & { path: string[]; reason: string; cause?: unknown }) {
    super(`settings ${sectionLabel(facts.ns, facts.scope)} ${facts.reason}`, facts.cause === undefined ? undefined : { cause: facts.cause })
    this.ns = facts.ns
    if (facts.scope !== undefined) this.scope = facts.scope
    this.path = facts.path
  }
}

/**
 * Malformed input to the seam: a non-object payload, non-JSON data, a prototype
 * key, a malformed op, a size limit. `path` is the `$`-rooted location when one applies.
 */
export class SettingsInputError extends TypeError {
  override readonly name = 'SettingsInputError'
  readonly code = 'SETTINGS_BAD_INPUT'
  readonly ns?: string
  readonly scope?: string
  readonly path?: string
  constructor(message: string, facts: Partial<SectionFacts> & { path?: string } = {}) {
    super(message)
    if (facts.ns !== undefined) this.ns = facts.ns
    if (facts.scope !== undefined) this.scope = facts.scope
    if (facts.path !== undefined) this.path = facts.path
  }
}

/** An error about one section that callers tell apart by a stable `code`. */
abstract class SectionStateError<Code extends string> extends Error {
  readonly ns: string
  readonly scope?: string
  constructor(readonly code: Code, message: string, facts: SectionFacts) {
    super(message)
    this.ns = facts.ns
    if (facts.scope !== undefined) this.scope = facts.scope
  }
}

/** The section was refused by state, not input: an unknown namespace, a read-only provider, a disposed service or registration. */
export class SettingsUnavailableError extends SectionStateError<'SETTINGS_UNKNOWN_NAMESPACE' | 'SETTINGS_READ_ONLY' | 'SETTINGS_DISPOSED'> {
  override readonly name = 'SettingsUnavailableError'
}

/** A registration collides with a live one: the same scope twice, or a different schema under a taken name. */
export class SettingsRegistrationError extends SectionStateError<'SETTINGS_DUPLICATE' | 'SETTINGS_SCHEMA_MISMATCH'> {
  override readonly name = 'SettingsRegistrationError'
}

/**
 * How a caller should take a store's refusal: `rejected`, the store will not
 * take this write as it stands (read-only, a document that does not parse,
 * data the store cannot hold); `unavailable`, the store cannot take any write
 * right now, and the same write may succeed later (busy, locked, unreachable).
 */
export type SettingsStoreRefusal = 'rejected' | 'unavailable'

/** The codes the seam itself knows; a provider may add its own, each with a refusal kind. */
export type SettingsStoreErrorCode =
  /** The store refuses writes (a read-only file or folder, a read-only database role). */
  | 'SETTINGS_READ_ONLY'
  /** The stored document kept changing under the write; nothing was stored. */
  | 'SETTINGS_STORE_BUSY'

/**
 * A provider refused to store a write for a reason of the store, not of the
 * data's schema: nothing was stored. Providers throw it (or a subclass) from
 * `transact`; the message names the store (a file path, a database host) and
 * never quotes its content. `refusal` tells a wire how to answer: the
 * controller maps `rejected` to `settings/rejected` and `unavailable` to
 * `settings/unavailable`.
 */
export class SettingsStoreError extends Error {
  override readonly name: string = 'SettingsStoreError'
  constructor(
    readonly code: SettingsStoreErrorCode | (string & {}),
    message: string,
    /** The store concerned: a file path, a database host. */
    readonly store: string,
    options: { refusal?: SettingsStoreRefusal; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.refusal = options.refusal ?? (code === 'SETTINGS_STORE_BUSY' ? 'unavailable' : 'rejected')
  }

  /** Whether the same write may succeed later (`unavailable`) or not as it stands (`rejected`). */
  readonly refusal: SettingsStoreRefusal
}

/** Whether `error` is an invariant failure that must reach the emitter instead of being contained. */
export function isInvariantError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'INVARIANT'
}
