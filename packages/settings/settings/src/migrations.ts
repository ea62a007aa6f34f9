import { copyData, isPlainObject, setOwn } from './data.ts'
import { SettingsValidationError } from './errors.ts'
import { inputError, storedSectionProblem, type InputCall } from './json.ts'
import { checkMigrations, MigrationStepFailure, runMigrations, SettingsMigrationStepError, type MigrationStep } from './migration-steps.ts'
import { SECTION_VERSION_KEY, type SettingsSectionMigration } from './migration-types.ts'
import type { Kind } from './registry.ts'
import type { JsonObject } from './types.ts'
import { deriveSection, type WritePayload } from './writes.ts'

/** How a stored section reads at its kind's version: its data (`$version` left out, migrated when older), or why it cannot. */
export type SectionReading =
  | { readonly ok: true; readonly data: JsonObject | undefined; readonly stored: number }
  | { readonly ok: false; readonly problem: string; readonly stored: number; readonly failure?: MigrationStepFailure }

/** A kind's versioning: its version, its steps, and what this host did with them. */
export interface MigrationPlan {
  readonly ns: string
  readonly version: number
  readonly steps: readonly MigrationStep[]
  /** Sections (by scope key) this host wrote back migrated, and the version each came from. */
  readonly migrated: Map<string, number>
  /** Sections (by scope key) whose migration write is queued. */
  readonly writing: Set<string>
  /** The reading of each stored section object met so far: sections are never changed once stored. */
  readonly readings: WeakMap<object, SectionReading>
  /** Where a failing step is told, once per stored section: by step name and error class, never its message. */
  readonly warn: (message: string, cause: Error) => void
  /** The reader `layersAt` takes (see {@link readerOf}). */
  readonly reader: (section: unknown) => { data: unknown } | string
}

const plans = new WeakMap<Kind, MigrationPlan>()

/** The version a stored section names: 0 when it names none, `undefined` when what it names is not a version. */
export function storedVersion(section: unknown): number | undefined {
  if (!isPlainObject(section) || !Object.hasOwn(section, SECTION_VERSION_KEY)) return 0
  const version = section[SECTION_VERSION_KEY]
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 0 ? version : undefined
}

/**
 * Check a registration's `version` and `migrations` into a plan (see
 * {@link samePlan} for a registrant joining a kind).
 * @throws {TypeError} for malformed options.
 */
export function planFor(ns: string, options: { version?: unknown; migrations?: unknown }, warn: MigrationPlan['warn']): MigrationPlan {
  const steps = checkMigrations(ns, options.version, options.migrations)
  const plan: MigrationPlan = {
    ns,
    version: steps.length,
    steps,
    migrated: new Map(),
    writing: new Set(),
    readings: new WeakMap(),
    warn,
    reader: (section) => {
      const reading = readSection(plan, section)
      return reading.ok ? { data: reading.data } : reading.problem
    },
  }
  return plan
}

/** Whether two registrants declare the same version and steps (functions compare by name). */
export function samePlan(a: MigrationPlan, b: MigrationPlan): boolean {
  return a.version === b.version && a.steps.every((step, index) => step.identity === b.steps[index]!.identity)
}

/** Tie a plan to the kind it was checked for (its first registrant's). */
export function adoptPlan(kind: Kind, plan: MigrationPlan): void {
  if (!plans.has(kind)) plans.set(kind, plan)
}

/** The kind's plan: version 0 and no steps for a kind registered without one. */
export function planOf(kind: Kind): MigrationPlan {
  let plan = plans.get(kind)
  if (!plan) plans.set(kind, (plan = planFor(kind.ns, {}, () => {})))
  return plan
}

/**
 * How `layersAt` reads a well-formed stored section of the kind (an object
 * without prototype keys, or `undefined`): the data without `$version`, migrated
 * when it is older than the kind's version; or, as text, why it cannot feed
 * resolution (a step threw, or `$version` is not a version).
 */
export function readerOf(kind: Kind): (section: unknown) => { data: unknown } | string {
  return planOf(kind).reader
}

/** {@link readerOf}'s reading, cached per section object. */
export function readSection(plan: MigrationPlan, section: unknown): SectionReading {
  if (!isPlainObject(section)) return { ok: true, data: section as undefined, stored: 0 }
  const known = plan.readings.get(section)
  if (known) return known
  const reading = readFresh(plan, section as JsonObject)
  plan.readings.set(section, reading)
  return reading
}

function readFresh(plan: MigrationPlan, section: JsonObject): SectionReading {
  const stored = storedVersion(section)
  if (stored === undefined) return { ok: false, problem: `holds ${JSON.stringify(SECTION_VERSION_KEY)} that is not a version (a non-negative integer)`, stored: 0 }
  let data = section
  if (Object.hasOwn(section, SECTION_VERSION_KEY)) {
    data = {}
    for (const key of Object.keys(section)) if (key !== SECTION_VERSION_KEY) setOwn(data, key, section[key])
  }
  if (stored >= plan.version) return { ok: true, data, stored }
  const migrated = runMigrations(plan.steps, data, stored)
  if (!(migrated instanceof MigrationStepFailure)) return { ok: true, data: migrated, stored }
  // Told by step name and error class only: a step's own message may quote what the section holds (any part of it).
  plan.warn(`settings ${JSON.stringify(plan.ns)}: migration ${migrated.text}; the stored section stays at version ${stored} and is not in effect`, new SettingsMigrationStepError(plan.ns, migrated))
  return { ok: false, problem: `cannot be migrated from version ${stored} to ${plan.version}: ${migrated.text}`, stored, failure: migrated }
}

/** A section's names of the steps from `from` up to `to`. */
export function stepNames(plan: MigrationPlan, from: number, to = plan.version): string[] {
  return plan.steps.slice(from, to).map((step) => step.name)
}

/** The steps from `from` up to `to` as a descriptor reports them: names, and the same as data. */
export function stepsOf(plan: MigrationPlan, from: number, to = plan.version): Pick<SettingsSectionMigration, 'steps' | 'changes'> {
  const steps = plan.steps.slice(from, to)
  return { steps: steps.map((step) => step.name), changes: steps.map((step) => copyData([...step.changes])) }
}

/**
 * The stored section a write of the kind derives from: the section itself when
 * it is at (or past) the kind's version, else its migration with `$version` set.
 * @throws {SettingsValidationError} when it cannot be migrated (the write fails, the stored text stays).
 */
function writeBase(plan: MigrationPlan, stored: JsonObject, call: InputCall): JsonObject {
  const reading = readSection(plan, stored)
  if (!reading.ok) throw new SettingsValidationError({ ns: call.ns ?? plan.ns, scope: call.scope, path: [], reason: `stored section ${reading.problem}; replace the section to repair it` })
  if (reading.stored >= plan.version) return stored
  return { [SECTION_VERSION_KEY]: plan.version, ...reading.data }
}

/** `section` (made by this write, so it may be changed) naming `version`; version 0 is named by leaving the key out. */
function withVersion(section: JsonObject, version: number): JsonObject {
  if (version === 0) {
    delete section[SECTION_VERSION_KEY]
    return section
  }
  if (Object.hasOwn(section, SECTION_VERSION_KEY)) {
    section[SECTION_VERSION_KEY] = version
    return section
  }
  return { [SECTION_VERSION_KEY]: version, ...section }
}

function versionRefusal(call: InputCall, what: string, op?: number): never {
  throw inputError(op === undefined ? call : { ...call, op }, 'bad-argument', what, [SECTION_VERSION_KEY])
}

/**
 * The section a write of the kind stores: derived as `deriveSection` derives
 * it, from the stored section as it reads at the kind's version, and naming
 * the version it is at. `replace` names the kind's version unless its section
 * names one (a restored version); `update` and `mutate` keep the version they
 * derive from and may not touch `$version`; `migrate` only migrates an older
 * section, and answers `stored` itself when there is nothing to do.
 * @throws {SettingsInputError} for a payload that sets `$version` where it may not.
 * @throws {SettingsValidationError} when the stored section cannot be migrated, or is malformed and the write cannot repair it.
 */
export function deriveVersioned(kind: Kind, stored: unknown, payload: WritePayload, call: InputCall): JsonObject {
  const plan = planOf(kind)
  const sound = isPlainObject(stored) && storedSectionProblem(stored) === undefined
  if (payload.mode === 'migrate') return sound ? writeBase(plan, stored as JsonObject, call) : (stored as JsonObject)
  if (payload.mode === 'replace') {
    const named = Object.hasOwn(payload.data, SECTION_VERSION_KEY) ? storedVersion(payload.data) : plan.version
    if (named === undefined || named > plan.version) versionRefusal(call, `${JSON.stringify(SECTION_VERSION_KEY)} must be a version from 0 to ${plan.version}, this plugin's`)
    return withVersion(deriveSection(stored, payload, call), named)
  }
  if (payload.mode === 'update' && Object.hasOwn(payload.data, SECTION_VERSION_KEY)) {
    versionRefusal(call, `${JSON.stringify(SECTION_VERSION_KEY)} is the section's version, which the seam keeps: only replace may name one`)
  }
  if (payload.mode === 'mutate') {
    const index = payload.ops.findIndex((op) => op.path[0] === SECTION_VERSION_KEY || (op.op === 'set' && op.path.length === 0 && isPlainObject(op.value) && Object.hasOwn(op.value, SECTION_VERSION_KEY)))
    if (index >= 0) versionRefusal(call, `${JSON.stringify(SECTION_VERSION_KEY)} is the section's version, which the seam keeps: only replace may name one`, index)
  }
  const base = sound ? writeBase(plan, stored as JsonObject, call) : stored
  const version = sound ? Math.max(storedVersion(base) ?? 0, plan.version) : plan.version
  return withVersion(deriveSection(base, payload, call), version)
}

/**
 * Where the stored section `section` stands against the kind's version, as a
 * descriptor reports it; `undefined` for a kind without versions whose section names none.
 * @param scope - the scope key of the section (`''` for the global one), to find what this host migrated.
 */
export function sectionMigration(kind: Kind, scope: string, section: unknown): SettingsSectionMigration | undefined {
  const plan = planOf(kind)
  const sound = isPlainObject(section) && storedSectionProblem(section) === undefined
  if (!plan.version && !(sound && Object.hasOwn(section, SECTION_VERSION_KEY))) return undefined
  const reading = sound ? readSection(plan, section) : undefined
  const stored = reading?.stored ?? 0
  const none = { steps: [], changes: [] }
  const migration = (state: SettingsSectionMigration['state'], steps: Pick<SettingsSectionMigration, 'steps' | 'changes'> = none): SettingsSectionMigration => ({ version: plan.version, stored, state, ...steps })
  if (reading && !reading.ok) return migration('failed', reading.failure ? stepsOf(plan, stored, reading.failure.from + 1) : none)
  if (reading && stored < plan.version) return migration('pending', stepsOf(plan, stored))
  if (stored > plan.version) return migration('newer')
  const from = plan.migrated.get(scope)
  return from === undefined ? migration('current') : { ...migration('migrated', stepsOf(plan, from)), from }
}
