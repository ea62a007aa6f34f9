import type { JsonObject, JsonValue } from './types.ts'

/**
 * The key inside a stored section that holds the version of the settings it
 * was written for. The seam keeps it: it never reaches a resolved value, a
 * describe answer or the JSON Schema's fields, and writes keep it up to date.
 * A section without it is at version 0.
 */
export const SECTION_VERSION_KEY = '$version'

/** A path inside a section, for a migration step: an array of keys, or one key as a string. */
export type SettingsMigrationPath = string | readonly string[]

/**
 * One declarative change of a migration step, applied to plain objects (a path
 * that meets something else on its way, an array say, is left alone):
 * - `move`: the value at `from` goes to `to` (a rename when both share a
 *   parent), creating the groups `to` needs; nothing moves when `to` already
 *   holds a value, and both stay;
 * - `drop`: the value at `path` is removed;
 * - `default`: `value` is stored at `path` when the section holds nothing there
 *   (an old default kept for the sections written before it changed).
 */
export type SettingsMigrationOp =
  | { readonly op: 'move'; readonly from: SettingsMigrationPath; readonly to: SettingsMigrationPath }
  | { readonly op: 'drop'; readonly path: SettingsMigrationPath }
  | { readonly op: 'default'; readonly path: SettingsMigrationPath; readonly value: JsonValue }

/**
 * A function step: it gets a private copy of the stored section (without
 * `$version`) and answers the section at the next version, a plain JSON object.
 * Its `name` is what the page, the history and the logs call the step, so
 * name it (`function splitHost(section) {…}`). Throwing keeps the stored
 * section as it is and puts it out of effect, with a problem naming the step.
 */
export type SettingsMigrationFunction = (section: JsonObject) => JsonObject

/**
 * Item `i` of a registration's `migrations`: what takes a stored section from
 * version `i` to `i + 1`. Declarative (one op, or a list applied in order; an
 * empty list changes nothing) or a function.
 */
export type SettingsMigration = SettingsMigrationOp | readonly SettingsMigrationOp[] | SettingsMigrationFunction

/**
 * Where a section stands against its kind's version, as a descriptor reports
 * it (for the stored section `user` shows: the scope's own in a scoped descriptor).
 */
export interface SettingsSectionMigration {
  /** The version the kind's registrants declare. */
  version: number
  /** The version the stored section is at; 0 when it names none, or nothing is stored. */
  stored: number
  /**
   * - `current`: stored at the kind's version;
   * - `pending`: stored at an older one: it reads migrated everywhere, and is
   *   written back at the next registration of the kind (or the next write of it);
   * - `failed`: a step threw, so the section is not in effect (`problem` names the step);
   * - `migrated`: this host wrote its migration back (since it started), from version `from`;
   * - `newer`: stored at a later version than the kind's (a plugin older than
   *   the document): read as it is, and writes keep its version.
   */
  state: 'current' | 'pending' | 'failed' | 'migrated' | 'newer'
  /** For `migrated`: the version the section was migrated from. */
  from?: number
  /** The names of the steps from the older version to `version`, in order (empty for `current` and `newer`), in English. */
  steps: string[]
  /**
   * The same steps as data, one list per step (parallel to `steps`), for a
   * surface that words them in its own language: a declarative step's ops
   * (a default without its value), a function step as its name.
   */
  changes: SettingsMigrationChange[][]
}

/**
 * What one migration step does, as a descriptor reports it. Paths are arrays of
 * keys; a `move` within one parent is a rename. No value travels: a `default`
 * names only its path, so nothing stored or declared leaks through it.
 */
export type SettingsMigrationChange =
  | { op: 'move'; from: string[]; to: string[] }
  | { op: 'drop'; path: string[] }
  | { op: 'default'; path: string[] }
  | { op: 'function'; name: string }

/** A section's stored version that differs between two documents (a history difference). */
export interface SettingsSectionVersionChange {
  /** The version in the older document (0: none named). */
  before: number
  /** The version in the newer document. */
  after: number
  /** When it went up within the kind's steps: the names of the steps between the two (a migration), in English. */
  steps?: string[]
  /** With `steps`: the same steps as data, one list per step, as {@link SettingsSectionMigration.changes} gives them. */
  changes?: SettingsMigrationChange[][]
}
