/** How messages name a section: `"web-search"` or `"web-search" in scope preset/coder`. */
export function sectionLabel(ns: string, scope?: string): string {
  return scope === undefined ? JSON.stringify(ns) : `${JSON.stringify(ns)} in scope ${scope}`
}

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
 * Why the seam refused an input, one word a caller can branch on (messages are
 * for people and may change). The set is closed; each reason says what the
 * caller must change:
 * - `bad-namespace`, `bad-scope`: a namespace or scope id that is not a string
 *   of its grammar (or a reserved namespace);
 * - `bad-revision`: an `expectedRevision` that is not a non-negative integer;
 * - `not-object`: a patch, a section, or a value set at the section root that
 *   is not a plain object;
 * - `bad-op`: an ops list that is not an array, or an op that is not
 *   `{ op: 'set', path, value }` / `{ op: 'unset', path }` with a path of strings;
 * - `too-many-ops`, `too-deep`, `too-large`: a limit was passed (`MAX_OPS` ops,
 *   `MAX_DEPTH` levels of nesting or path segments, `MAX_WRITE_BYTES` of JSON);
 * - `not-json`: a value JSON cannot carry (a function, a class instance, a
 *   symbol, a bigint, a non-finite number, `undefined` or a hole in an array, a
 *   cycle, an accessor property);
 * - `prototype-key`: `__proto__`, `constructor` or `prototype` as a key or path segment;
 * - `bad-index`: a path segment that addresses no element of the array it reaches;
 * - `bad-argument`: any other malformed argument.
 *
 * The first group and the limits say the call is malformed whatever is
 * stored; `not-json`, `prototype-key` and `bad-index` refuse the data a
 * well-formed call carries.
 */
export type SettingsInputReason =
  | 'bad-namespace'
  | 'bad-scope'
  | 'bad-revision'
  | 'not-object'
  | 'bad-op'
  | 'too-many-ops'
  | 'too-deep'
  | 'too-large'
  | 'not-json'
  | 'prototype-key'
  | 'bad-index'
  | 'bad-argument'

/** What a {@link SettingsInputError} says besides its message. */
export interface SettingsInputFacts extends Partial<SectionFacts> {
  /** Defaults to `bad-argument`. */
  reason?: SettingsInputReason
  /** The refused place inside the written section, as segments (array indexes as decimal text). */
  path?: readonly string[]
  /** The index of the refused op of a `mutate`. */
  op?: number
}

/**
 * Malformed input to the seam: a bad id or revision, a non-object payload,
 * non-JSON data, a prototype key, a malformed op, a passed limit. `reason`
 * says which, machine-readably. `path` names the refused place inside the
 * section when there is one (the message shows it as `$`-rooted text), and
 * `op` the refused op of a `mutate`.
 */
export class SettingsInputError extends TypeError {
  override readonly name = 'SettingsInputError'
  readonly code = 'SETTINGS_BAD_INPUT'
  readonly reason: SettingsInputReason
  readonly ns?: string
  readonly scope?: string
  readonly path?: string[]
  readonly op?: number
  constructor(message: string, facts: SettingsInputFacts = {}) {
    super(message)
    this.reason = facts.reason ?? 'bad-argument'
    if (facts.ns !== undefined) this.ns = facts.ns
    if (facts.scope !== undefined) this.scope = facts.scope
    if (facts.path !== undefined) this.path = [...facts.path]
    if (facts.op !== undefined) this.op = facts.op
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
 * A registration whose section lacks values the plugin requires and no layer
 * gives (an adapter's token, a database name). The namespace stays listed as
 * needing setup; once a write supplies the values, the registering plugin is
 * started again and its `register` succeeds. `missing` holds each path.
 */
export class SettingsNeedsSetupError extends SectionStateError<'SETTINGS_NEEDS_SETUP'> {
  override readonly name = 'SettingsNeedsSetupError'
  /** The paths inside the section that need a value. */
  readonly missing: string[][]
  constructor(facts: SectionFacts & { missing: string[][]; reason: string }) {
    super('SETTINGS_NEEDS_SETUP', `settings ${sectionLabel(facts.ns, facts.scope)} needs setup: ${facts.reason}`, facts)
    this.missing = facts.missing
  }
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
  /** The provider keeps no history of the document. */
  | 'SETTINGS_NO_HISTORY'
  /** No kept version has the id asked for. */
  | 'SETTINGS_NO_VERSION'
  /**
   * The write changes a secret whose value the document takes from the host
   * (`!env`, `!file`): read-only through the seam. The message names the
   * reference's kind and name, never a value; a refusal of kind `rejected`.
   */
  | 'SETTINGS_SECRET_READ_ONLY'

/**
 * A provider refused to store a write for a reason of the store, not of the
 * data's schema: nothing was stored. Providers throw it (or a subclass) from
 * `store` (or `persist`); the message names the store (a file path, a database host) and
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

/**
 * A provider broke the contract between it and the seam: it implements
 * neither way of storing, reports store versions it cannot back, or leaves a
 * written section without its new version. A programming error in the
 * provider, never caused by data; the message names the rule and the section.
 */
export class SettingsProviderContractError extends TypeError {
  override readonly name = 'SettingsProviderContractError'
  readonly code = 'SETTINGS_PROVIDER_CONTRACT'
  constructor(
    message: string,
    /** The section concerned, when the broken rule is about one. */
    readonly section?: { ns: string; scope?: string },
  ) {
    super(message)
  }
}
