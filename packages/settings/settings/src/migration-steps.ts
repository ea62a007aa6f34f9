import { copyData, isPlainObject, setOwn } from './data.ts'
import { PROTOTYPE_KEYS } from './ids.ts'
import { formatPath, MAX_DEPTH, storedSectionProblem, toJsonData, toJsonObject } from './json.ts'
import { SECTION_VERSION_KEY, type SettingsMigrationChange } from './migration-types.ts'
import type { JsonObject, JsonValue } from './types.ts'

/** A declarative op once checked: paths as fresh arrays, a default's value as a JSON copy. */
type CheckedOp =
  | { op: 'move'; from: string[]; to: string[] }
  | { op: 'drop'; path: string[] }
  | { op: 'default'; path: string[]; value: JsonValue }

/** One checked step of a kind's migrations. */
export interface MigrationStep {
  /** What the page, the history and the logs call it: the function's name, or what its ops do. */
  readonly name: string
  /** What it does as data, for surfaces that word it in their own language. */
  readonly changes: readonly SettingsMigrationChange[]
  /** What two registrants must agree on: the ops as JSON, or a function's name. */
  readonly identity: string
  /** The section at the next version; `section` is a private copy it may change. */
  readonly run: (section: JsonObject) => unknown
}

/** The most steps one registration may declare: a version is a count of shape changes, not a build number. */
export const MAX_MIGRATION_STEPS = 1000

/**
 * How a step failed, in words that hold nothing of the section: the class of
 * what it threw (`SyntaxError`, `a string`), or that what it answered is not a
 * section. A step's own message is never kept: a step reading a stored value
 * (`JSON.parse` of a token) throws messages that quote part of it.
 */
export type MigrationStepFault = { readonly threw: string } | { readonly answered: 'not-a-section' }

/** A step that did not produce a section: which one, and how it failed (never what it said). */
export class MigrationStepFailure {
  constructor(
    /** The version the step starts from (its index in `migrations`). */
    readonly from: number,
    readonly name: string,
    readonly fault: MigrationStepFault,
  ) {}

  /** `step "splitHost" (version 0 to 1) threw SyntaxError`, or `… answered something that is not a section`. */
  get text(): string {
    const how = 'threw' in this.fault ? `threw ${this.fault.threw}` : 'answered something that is not a section (a JSON object without prototype keys)'
    return `step ${JSON.stringify(this.name)} (version ${this.from} to ${this.from + 1}) ${how}`
  }
}

/**
 * A migration step's failure as a typed error, safe to log or keep as a
 * `cause`: its message is the failure's {@link MigrationStepFailure.text} and
 * its stack is that message alone (no frame of the step, no text of its own).
 */
export class SettingsMigrationStepError extends Error {
  override readonly name = 'SettingsMigrationStepError'
  readonly code = 'SETTINGS_MIGRATION_STEP'

  constructor(
    readonly ns: string,
    failure: MigrationStepFailure,
  ) {
    super(`settings ${JSON.stringify(ns)}: migration ${failure.text}`)
    this.stack = `${this.name}: ${this.message}`
  }
}

/** The longest class name told: longer ones are not names a class was given in code. */
const MAX_CLASS_NAME = 64

/**
 * What a step threw, by class only: the name of its constructor (read from its
 * prototype, not from a `name` it may carry, which could be set from data), or
 * the kind of a thrown value that is not an object.
 */
export function thrownClass(thrown: unknown): string {
  if (thrown === null || thrown === undefined) return String(thrown)
  if (typeof thrown !== 'object' && typeof thrown !== 'function') return `a ${typeof thrown}`
  let name: unknown
  try {
    name = (Object.getPrototypeOf(thrown) as { constructor?: { name?: unknown } } | null)?.constructor?.name
  } catch {
    name = undefined
  }
  return typeof name === 'string' && name.length <= MAX_CLASS_NAME && /^[A-Za-z_$][\w$]*$/.test(name) ? name : 'an object'
}

function checkPath(path: unknown, where: string): string[] {
  const segments = typeof path === 'string' ? [path] : path
  if (!Array.isArray(segments) || segments.length === 0 || !segments.every((segment) => typeof segment === 'string')) {
    throw new TypeError(`${where} must be a key or a non-empty array of keys`)
  }
  if (segments.length > MAX_DEPTH) throw new TypeError(`${where} is deeper than ${MAX_DEPTH} keys`)
  const forbidden = segments.find((segment) => PROTOTYPE_KEYS.has(segment))
  if (forbidden !== undefined) throw new TypeError(`${where} holds prototype key ${JSON.stringify(forbidden)}`)
  if (segments[0] === SECTION_VERSION_KEY) throw new TypeError(`${where} starts at ${JSON.stringify(SECTION_VERSION_KEY)}, which the seam keeps`)
  return [...segments]
}

function checkOp(input: unknown, where: string): CheckedOp {
  if (!isPlainObject(input)) throw new TypeError(`${where} must be an op ({ op: 'move' | 'drop' | 'default', … }) or a function`)
  const keys = { move: ['op', 'from', 'to'], drop: ['op', 'path'], default: ['op', 'path', 'value'] } as const
  const kind = input.op
  if (kind !== 'move' && kind !== 'drop' && kind !== 'default') throw new TypeError(`${where}: op must be 'move', 'drop' or 'default'`)
  const extra = Object.keys(input).find((key) => !(keys[kind] as readonly string[]).includes(key))
  if (extra !== undefined) throw new TypeError(`${where}: unexpected key ${JSON.stringify(extra.slice(0, 40))} in a ${kind} op`)
  if (kind === 'move') return { op: 'move', from: checkPath(input.from, `${where}: from`), to: checkPath(input.to, `${where}: to`) }
  const path = checkPath(input.path, `${where}: path`)
  if (kind === 'drop') return { op: 'drop', path }
  if (input.value === undefined) throw new TypeError(`${where}: a default op needs a value`)
  return { op: 'default', path, value: toJsonData(input.value, { label: `${where}: value` }) }
}

/** How an op reads in a step's name: `rename $.apiKey to $.token`, `move $.host to $.server.host`, `drop $.legacy`, `default $.retries`. */
function opName(op: CheckedOp): string {
  if (op.op === 'drop') return `drop ${formatPath(op.path)}`
  if (op.op === 'default') return `default ${formatPath(op.path)}`
  const sibling = op.from.length === op.to.length && op.from.slice(0, -1).every((segment, index) => segment === op.to[index])
  return `${sibling ? 'rename' : 'move'} ${formatPath(op.from)} to ${formatPath(op.to)}`
}

/** An op as a descriptor reports it: paths copied, a default's value left out. */
function opChange(op: CheckedOp): SettingsMigrationChange {
  if (op.op === 'move') return { op: 'move', from: [...op.from], to: [...op.to] }
  return { op: op.op, path: [...op.path] }
}

/**
 * Check a registration's `version` and `migrations` and build its steps.
 * @throws {TypeError} naming the namespace and the item, for a version that is
 *   not a non-negative integer, a list that is not `version` items long, or a
 *   malformed item.
 */
export function checkMigrations(ns: string, version: unknown, migrations: unknown): MigrationStep[] {
  const label = `settings namespace ${JSON.stringify(ns)}`
  if (version !== undefined && (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0)) {
    throw new TypeError(`${label}: version must be a non-negative integer`)
  }
  const count = version ?? 0
  if (count > MAX_MIGRATION_STEPS) throw new TypeError(`${label}: version must be at most ${MAX_MIGRATION_STEPS}`)
  if (migrations !== undefined && !Array.isArray(migrations)) throw new TypeError(`${label}: migrations must be an array`)
  const items = (migrations ?? []) as readonly unknown[]
  if (items.length !== count) {
    throw new TypeError(`${label}: version ${count} needs ${count} migrations (item i takes a section from version i to i + 1), not ${items.length}`)
  }
  return items.map((item, index) => stepOf(item, `${label}: migrations[${index}]`))
}

function stepOf(item: unknown, where: string): MigrationStep {
  if (typeof item === 'function') {
    const name = typeof item.name === 'string' && item.name ? item.name : 'function'
    return { name, changes: [{ op: 'function', name }], identity: `function ${name}`, run: (section) => (item as (section: JsonObject) => unknown)(section) }
  }
  const ops = Array.isArray(item) ? item.map((op, index) => checkOp(op, `${where}[${index}]`)) : [checkOp(item, where)]
  return {
    name: ops.length ? ops.map(opName).join(', ') : 'no change',
    changes: ops.map(opChange),
    identity: JSON.stringify(ops),
    run: (section) => {
      for (const op of ops) applyOp(section, op)
      return section
    },
  }
}

/** The object holding the last key of `path` (missing groups created with `create`), or `undefined` when something else is in the way. */
function holderOf(section: JsonObject, path: readonly string[], create: boolean): Record<string, unknown> | undefined {
  let node: Record<string, unknown> = section
  for (const segment of path.slice(0, -1)) {
    const child = Object.hasOwn(node, segment) ? node[segment] : undefined
    if (child === undefined && create) {
      const made: Record<string, unknown> = {}
      setOwn(node, segment, made)
      node = made
    } else if (isPlainObject(child)) node = child
    else return undefined
  }
  return node
}

/** Whether a value could be put at `path`: every group on the way is an object or missing. */
function reachable(section: JsonObject, path: readonly string[]): boolean {
  let node: unknown = section
  for (const segment of path.slice(0, -1)) {
    if (!isPlainObject(node)) return false
    if (!Object.hasOwn(node, segment)) return true
    node = node[segment]
  }
  return isPlainObject(node)
}

function holds(section: JsonObject, path: readonly string[]): boolean {
  const holder = holderOf(section, path, false)
  return holder !== undefined && Object.hasOwn(holder, path.at(-1)!)
}

/** Apply one declarative op to `section` in place. */
function applyOp(section: JsonObject, op: CheckedOp): void {
  if (op.op === 'drop') {
    const holder = holderOf(section, op.path, false)
    if (holder) delete holder[op.path.at(-1)!]
    return
  }
  if (op.op === 'default') {
    if (!holds(section, op.path) && reachable(section, op.path)) setOwn(holderOf(section, op.path, true)!, op.path.at(-1)!, copyData(op.value))
    return
  }
  const source = holderOf(section, op.from, false)
  const key = op.from.at(-1)!
  if (!source || !Object.hasOwn(source, key) || holds(section, op.to)) return
  const value = source[key]
  delete source[key]
  // Checked once the source is gone, so a value can move into a group named as it was (`host` to `host.name`).
  if (!reachable(section, op.to)) {
    setOwn(source, key, value)
    return
  }
  setOwn(holderOf(section, op.to, true)!, op.to.at(-1)!, value)
}

/**
 * Run the steps from version `from` up to `steps.length` over a section (the
 * stored one without `$version`, never changed: each step gets a copy).
 * @returns the migrated section, or the failure of the first step that threw or answered something other than a JSON section.
 */
export function runMigrations(steps: readonly MigrationStep[], section: JsonObject, from: number): JsonObject | MigrationStepFailure {
  let current = section
  for (let index = from; index < steps.length; index++) {
    const step = steps[index]!
    let answer: unknown
    try {
      answer = step.run(copyData(current))
    } catch (error) {
      return new MigrationStepFailure(index, step.name, { threw: thrownClass(error) })
    }
    const next = sectionOf(answer, step.name)
    if (!next) return new MigrationStepFailure(index, step.name, { answered: 'not-a-section' })
    // The seam keeps the version: a step does not set it.
    if (Object.hasOwn(next, SECTION_VERSION_KEY)) delete next[SECTION_VERSION_KEY]
    current = next
  }
  return current
}

/** A step's answer as a section of JSON data, or `undefined` when it is not one (its refusal's words are not kept). */
function sectionOf(answer: unknown, name: string): JsonObject | undefined {
  try {
    const next = toJsonObject(answer, { label: `migration step ${JSON.stringify(name)}` })
    return storedSectionProblem(next) === undefined ? next : undefined
  } catch {
    return undefined
  }
}
