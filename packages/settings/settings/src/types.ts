import type Schema from 'schemastery'
import type { SettingsMigration, SettingsSectionMigration, SettingsSectionVersionChange } from './migration-types.ts'

declare const brand: unique symbol

/** A string that carries a compile-time tag, so ids of different kinds do not mix. */
export type Branded<B extends string> = string & { readonly [brand]: B }

/** A validated namespace id: the name of one kind of setting and of its document sections. */
export type SettingsNamespace = Branded<'SettingsNamespace'>

/** A validated named-scope id of the form `<kind>/<id>` (an agent preset is `preset/<id>`). */
export type SettingsScopeId = Branded<'SettingsScopeId'>

/**
 * Compile-time check on a namespace literal: resolves to `unknown` for a plausible
 * lowercase kebab-case literal (and for a plain `string`, checked at run time), `never` otherwise.
 */
export type SettingsNamespaceInput<N extends string> = string extends N
  ? unknown
  : N extends Lowercase<N>
    ? N extends '' | `-${string}` | `${string}-` | `${string}--${string}` | `${string}${' ' | '_' | '.' | '/'}${string}`
      ? never
      : unknown
    : never

/** When a namespace's changes take effect for its owner: a hint for configuration UIs only. */
export type SettingsApplies = 'live' | 'restart'

/** Where a committed change entered: an in-process write, or an edit the provider observed. */
export type SettingsUpdateSource = 'update' | 'provider'

/**
 * Who made a write, for a provider's history: the owning plugin through its
 * handle, a configuration surface over the wire, other code of the host
 * calling `ctx.settings` directly, or the `dsh` command writing through the
 * deployment's provider while no host runs.
 */
export type SettingsWriteOrigin = 'plugin' | 'wire' | 'host' | 'command'

/** Who made a stored change: a write's origin, or the seam bringing an older section to its kind's version. */
export type SettingsChangeOrigin = SettingsWriteOrigin | 'migration'

/** A JSON value as stored in a settings document. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** A JSON object: the shape of every stored section. */
export type JsonObject = { [key: string]: JsonValue }

/**
 * The raw document a provider stores: top-level keys are global sections by
 * namespace; the reserved key `scopes` maps a scope id to that scope's sections.
 */
export interface SettingsDocument {
  [ns: string]: unknown
  scopes?: { [scope: string]: { [ns: string]: unknown } }
}

/** A layer over `T`: any subset of its fields, at any depth. Arrays are whole values, replaced rather than merged. */
export type SettingsPartial<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: SettingsPartial<T[K]> | null }
    : T

/** Options of a registration, beyond the namespace and its schema. */
export interface SettingsRegisterOptions<T> {
  /** The composition layer (for example the plugin's `cordis.yml` entry), below every user section. Never stored. */
  base?: SettingsPartial<T>
  /** When the owner acts on a change; defaults to `live`. Surfaced to UIs, changes no behavior. */
  applies?: SettingsApplies
  /**
   * An extra check on the resolved value for rules the schema cannot state (one
   * field constraining another). Throwing refuses the write that produced the
   * value; a stored value that fails it keeps the last good value (or fails the
   * registration when there is none yet). The kind's earliest live registrant's
   * check judges every instance of the kind.
   */
  validate?: (value: T) => void
  /**
   * The version of this schema's settings, a non-negative integer (0 when
   * omitted). Raise it when a release changes the shape of what is stored,
   * with one `migrations` item per step. Every registrant of a kind must
   * declare the same version and steps.
   */
  version?: number
  /**
   * Item `i` takes a stored section from version `i` to `i + 1`: exactly
   * `version` items. Stored sections older than `version` read migrated, and
   * are written back once, with origin `migration`.
   */
  migrations?: readonly SettingsMigration[]
}

/** The owner's handle on one registered instance. Reads are plain property reads of a cached snapshot. */
export interface SettingsScope<T> {
  /** The current resolved value, deep-frozen; the same object until a commit changes it. */
  get(): T
  /**
   * Call `callback(next, prev)` after every commit that changes the resolved value.
   * Calls of one callback never overlap and follow commit order; a throw or
   * rejection is logged and contained. Once the returned disposer ran, no queued
   * call starts; one already running still finishes (and disposal waits for it).
   */
  watch(callback: (next: T, prev: T) => void | Promise<void>): () => void
  /** Deep-merge a patch into this instance's own user section and persist it; `null` is stored as data. */
  update(patch: SettingsPartial<T>): Promise<void>
  /** Replace this instance's own user section; keys left out fall back to the layers below (`{}` resets it). */
  replace(section: SettingsPartial<T>): Promise<void>
}

/** One secret position of a redacted descriptor: a write-only slot for a configuration page. */
export interface RedactedSecret {
  /** Path of the secret inside the section. */
  path: string[]
  /** Whether the resolved value holds a secret there. */
  set: boolean
  /** The layer the resolved secret comes from; absent when unset or supplied by a schema default. */
  layer?: 'base' | 'global' | 'scope'
  /**
   * Where a set secret of a user section (`layer` `global` or `scope`) gets its
   * value: written in the document (`document`), or a reference the provider
   * resolves (a secret store, an environment variable, a file). Absent for an
   * unset secret and for one the base or a default supplies.
   */
  source?: SettingsSecretSource
  /** For a `store`, `env` or `file` source: the store's name, the variable, or the file's path. Never a value. */
  reference?: string
}

/** Where a secret's value comes from: written inline in the document, or a reference resolved by the provider. */
export type SettingsSecretSource = 'document' | 'store' | 'env' | 'file'

/**
 * A provider's answer to where one secret of a stored section comes from, when
 * the document holds a reference there (see `SettingsProvider.secretSource`):
 * the reference's kind and its name (a store's name, a variable, a file path), never a value.
 */
export interface SettingsSecretOrigin {
  source: Exclude<SettingsSecretSource, 'document'>
  reference: string
}

/**
 * A place a layer's data holds that the kind's schema does not declare (a key
 * no branch of the schema names there, or a tuple item past its length): left
 * over from an earlier version of the plugin, or typed by hand. Its value never
 * leaves the process; only where it is.
 */
export interface SettingsUndeclaredKey {
  /**
   * Path inside the section, array indexes as decimal text. Nothing below it is
   * listed separately. For a `global` or `scope` entry it is a `mutate` path:
   * `{ op: 'unset', path }` on that section (the global one, or the descriptor's
   * scope's) removes it.
   */
  path: string[]
  /**
   * The layer that holds it: the global section, the scope's own section, or the
   * registrant's `base` (its `cordis.yml` entry, say: not in the document, so no
   * write removes it).
   */
  layer: 'base' | 'global' | 'scope'
}

/** What is wrong with a stored section that is not in effect. */
export interface SettingsSectionProblem {
  /** Where inside the section; empty for the section as a whole (or an owner check). */
  path: string[]
  /** What rule it breaks; never quotes the value. */
  message: string
  /**
   * For a namespace that needs setup: every path inside the section that needs a
   * value no layer gives (required by the schema, without a default).
   */
  missing?: string[][]
}

/** One namespace kind under one scope, as configuration surfaces see it. */
export interface SettingsDescriptor {
  /** The namespace. */
  ns: SettingsNamespace
  /** The named scope described; absent for the global scope. */
  scope?: SettingsScopeId
  /** Whether an owner registered the namespace under this scope (false: described from the kind alone). */
  registered: boolean
  /** The kind's schemastery `toJSON()` envelope (sanitized under `redactSecrets`). */
  schema: unknown
  /** The resolved value. */
  value: unknown
  /** Revision of the raw section reported in `user`; send it back as `expectedRevision`. */
  revision: number
  /** The registrant's composition layer, when it declared one. */
  base?: unknown
  /**
   * The stored section (the scope's own for a scoped descriptor), when one
   * exists and resolves. A section that is malformed or that the schema or the
   * owner's check refuses is left out, and `problem` says why.
   */
  user?: unknown
  /**
   * Why the stored section (the one `user` would show) is not in effect: where
   * (`path` inside the section, empty for the whole section) and what is wrong.
   * The message names the rule it breaks, never the value; `value` is then the
   * last good one (or resolved without that section). Replacing the section
   * (`replace({})` resets it) or fixing the field clears it.
   */
  problem?: SettingsSectionProblem
  /** For a scoped descriptor: the value without the scope's own section (defaults, base, global section). */
  inherited?: unknown
  /**
   * The owner registered but its section lacks required values: the plugin
   * waits, `problem.missing` lists them, `user` and `value` show what is given
   * so far, and a write that supplies them starts the plugin.
   */
  needsSetup?: true
  /** The owner's declared effect timing. */
  applies: SettingsApplies
  /** Secret slots; present only under `redactSecrets`. */
  secrets?: RedactedSecret[]
  /**
   * The places the layers this descriptor reads (`base`, the global section and,
   * for a scoped descriptor, the scope's own section) hold that the schema does not
   * declare, layer by layer, lowest first (empty when there are none). Under
   * `redactSecrets` their values are taken out of `value`, `base`, `user` and
   * `inherited`: only the paths leave. A section left out of `user` for its
   * `problem` still lists its own. To remove several of one array at once, unset
   * them latest first: removing an item moves the later ones down.
   */
  undeclared: SettingsUndeclaredKey[]
  /**
   * The stored section's version against the kind's, when the kind declares a
   * version above 0 or the section names one (`$version`): current, migrated
   * by this host, due to migrate, failing, or newer than the plugin.
   */
  migration?: SettingsSectionMigration
}

/** A redacted descriptor as a remote configuration surface receives it: `secrets` is always present. */
export type SettingsNamespaceView = SettingsDescriptor & { secrets: RedactedSecret[] }

/**
 * One path-addressed edit of a user section. It lets a caller holding a redacted
 * view change the field it means without restating (and so erasing) secrets it never saw.
 */
export type SettingsPathOp =
  | { op: 'set'; path: readonly string[]; value: unknown }
  | { op: 'unset'; path: readonly string[] }

/** Options of `describe`. */
export interface SettingsDescribeOptions {
  /** Strip secrets from every layer and from the schema envelope, and list their slots. Required on every wire. */
  redactSecrets?: boolean
  /** Describe every kind under this named scope instead of the global scope. */
  scope?: string
  /** Describe only this namespace: one descriptor, or none when it has no live kind. */
  ns?: string
}

/** Hooks of an optional-settings consumer (see `installSettingsSection`). */
export interface SettingsSectionHooks<T> {
  /** Point the consumer at the function that yields its current value. */
  setSource(source: () => T): void
  /** Tell the consumer its value may have changed. */
  onChange(): void
  /** The kind's extra check, as `SettingsRegisterOptions.validate`. */
  validate?(value: T): void
}

/** A schemastery schema resolving to `T`. */
export type SettingsSchema<T> = Schema<any, T>

declare module 'cordis' {
  interface Events {
    /**
     * A registered instance's resolved value changed (never for a deep-equal value).
     * Fired once the new value is what `get` answers; `scope` is absent for the global instance.
     * A listener's throw or rejection is logged and the other listeners still run; only a
     * synchronous throw whose `code` is `'INVARIANT'` reaches the emitter, after every listener ran.
     */
    'settings/updated'(ns: SettingsNamespace, next: unknown, prev: unknown, source: SettingsUpdateSource, scope?: SettingsScopeId): void
    /**
     * A raw stored section changed, whether or not any resolved value did: configuration
     * surfaces learn here that a held revision went stale, or that a field went from
     * inherited to overridden. `scope` is absent for a global section. Fired before the
     * `settings/updated` events of the same commit; listeners are contained the same way.
     */
    'settings/document-updated'(ns: SettingsNamespace, revision: number, scope?: SettingsScopeId): void
    /**
     * An instance of a kind was registered under a scope (`scope` absent for the global one),
     * waiting for setup included: what the registered kinds are has changed. Fired synchronously
     * inside `register` (or when a waiting registration is kept), once `describe` lists it.
     * A listener's failure is logged and the other listeners still run, an `INVARIANT`-coded one too.
     */
    'settings/registered'(ns: SettingsNamespace, scope?: SettingsScopeId): void
    /**
     * An instance went away (its plugin was disposed, or a registration waiting for setup gave
     * way); a kind whose last instance went is no longer described. Fired synchronously once
     * `describe` no longer lists the instance; listeners are contained as for `settings/registered`.
     */
    'settings/unregistered'(ns: SettingsNamespace, scope?: SettingsScopeId): void
  }
}

/** A page of a provider's kept versions: the newest `limit` (default 20, at most 200) older than the version `before`. */
export interface SettingsHistoryQuery {
  limit?: number
  /** A version id: answer only versions kept before it. */
  before?: string
}

/** One kept version of the document, as a provider with history lists it. */
export interface SettingsHistoryVersion {
  /** Stable id to compare with or restore. */
  id: string
  /** When this version was written (ISO 8601). */
  writtenAt: string
  /** When a later write replaced it (ISO 8601). */
  replacedAt: string
  /** Who made this version: this host's writes by origin, `outside` for an edit made outside the seam, `unknown` when no record is left. */
  by: (SettingsChangeOrigin | 'outside' | 'unknown')[]
  /** The sections that differ from the version kept before it (every section, for the oldest one kept). */
  sections: { ns: string; scope?: string }[]
}

/**
 * One field that differs between two versions of a section. Values are
 * given for plain fields only: a secret field, and a field the schema does
 * not declare, says `set`, `changed` or `unset` and carries no value.
 */
export interface SettingsFieldChange {
  /** Where the field sits inside the section; empty for a section that is not an object. */
  path: string[]
  change: 'set' | 'changed' | 'unset'
  /** The older value (plain fields only). */
  before?: unknown
  /** The newer value (plain fields only). */
  after?: unknown
  /** The field is a secret: no value is given. */
  secret?: true
  /** The schema does not declare the field (a leftover, or a key typed by hand): no value is given. */
  undeclared?: true
  /** The section does not resolve under its schema in one of the versions: it differs, and no value is shown. */
  withheld?: true
}

/** What differs in one section between two versions of the document. */
export interface SettingsSectionDiff {
  ns: string
  scope?: string
  /** The fields that differ; empty when the section's kind is not registered (no schema to tell secrets by, so no field is shown). */
  fields: SettingsFieldChange[]
  /** No kind is registered for the namespace: the section differs, and nothing more is said. */
  unregistered?: true
  /** The section's stored version differs (a migration when it went up), for a registered kind. */
  version?: SettingsSectionVersionChange
}
