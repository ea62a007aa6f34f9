/**
 * Judging a document's sections with the seam itself: the registrations a
 * deployment made are made again in a root whose provider starts empty (so
 * each of them succeeds), the document is handed over as an outside edit, and
 * `describe({ scope, redactSecrets: true })` reports each stored section that
 * does not resolve. Each problem's field is then taken out of the copy and the
 * edit repeated, so a section with several wrong fields reports each of them,
 * and a scoped section is judged over the global one once that one resolves.
 */
import { Context, type Fiber } from 'cordis'
import { createScope, type Scope } from 'dsh-scope'
import { SCOPES_KEY } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { Registration } from './deployment.ts'
import { descriptorWarnings, type SectionWarning } from './warnings.ts'

/** How many describe rounds run at most (each takes out the fields the last one found wrong). */
const MAX_ROUNDS = 200

/** A stored section that does not resolve, as `describe` reported it. */
export interface SectionProblem {
  ns: string
  scope: string | undefined
  /** Where inside the section; empty for the section as a whole. */
  path: string[]
  /** The seam's message: it names the rule, never the value. */
  message: string
  /** The section is stored at an older version of its plugin's settings, and a migration step fails on it. */
  migrationFailed?: true
  /** A value the plugin requires that no layer gives: the plugin waits for setup (`path` is where it goes). */
  missingValue?: true
}

/** What judging the sections found. */
export interface Judgment {
  problems: SectionProblem[]
  /** The document with every refused field (or section) taken out. */
  repaired: Record<string, unknown>
  /** Keys the plugins do not use, and sections that would migrate, in the document as it is. */
  warnings: SectionWarning[]
}

/** The key of a registration: its namespace under its scope. */
export const instanceKey = (ns: string, scope: string | undefined): string => `${ns}\u0000${scope ?? ''}`

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** The value at `path` inside `data`, through own properties only; `undefined` when absent. */
export function valueAt(data: unknown, path: readonly string[]): unknown {
  let node = data
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined
    node = (node as Record<string, unknown>)[segment]
  }
  return node
}

/** The stored section of `ns` (under `scope` when given), or `undefined`. */
export function sectionOf(doc: Record<string, unknown>, ns: string, scope: string | undefined): unknown {
  if (scope === undefined) return Object.hasOwn(doc, ns) ? doc[ns] : undefined
  return valueAt(doc, [SCOPES_KEY, scope, ns])
}

function removeSection(doc: Record<string, unknown>, ns: string, scope: string | undefined): void {
  const sections = scope === undefined ? doc : valueAt(doc, [SCOPES_KEY, scope])
  if (isPlainObject(sections)) delete sections[ns]
}

/** A seam error about one section (`SettingsValidationError`, which `register` throws): its namespace, scope and path. */
export interface SectionError {
  ns: string
  scope?: string
  path: string[]
  message: string
}

export function isSectionError(error: unknown): error is SectionError {
  if (!(error instanceof Error)) return false
  const candidate = error as Error & Partial<SectionError> & { code?: unknown }
  return candidate.code === 'SETTINGS_INVALID' && typeof candidate.ns === 'string' && Array.isArray(candidate.path)
}

/**
 * The stored section a registration's refusal most likely concerns: the one holding a value at
 * the refused path (the scope's own first), else the scope's own section, else the global one;
 * `false` when neither is stored (what it refuses is then the registrant's base).
 */
export function sectionHolding(doc: Record<string, unknown>, error: SectionError): string | undefined | false {
  const candidates = error.scope === undefined ? [undefined] : [error.scope, undefined]
  let found = candidates.findIndex((scope) => valueAt(sectionOf(doc, error.ns, scope), error.path) !== undefined)
  if (found < 0) found = candidates.findIndex((scope) => sectionOf(doc, error.ns, scope) !== undefined)
  return found < 0 ? false : candidates[found]
}

/** Whether `a` is a prefix of `b` or `b` of `a`. */
function related(a: readonly string[], b: readonly string[]): boolean {
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) if (a[index] !== b[index]) return false
  return true
}

/**
 * Take the deepest part of `path` that `section` holds out of it, going up to the nearest
 * object key (taking an item out of a list would renumber the items after it, and the
 * positions of later problems are found in the original text): the field itself when it
 * is there, else the ancestor that lacks what is missing.
 * @returns whether anything was taken out (nothing when the path's first key is not there).
 */
function takeOut(section: Record<string, unknown>, path: readonly string[]): boolean {
  const chain: unknown[] = [section]
  let node: unknown = section
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) break
    node = (node as Record<string, unknown>)[segment]
    chain.push(node)
  }
  for (let depth = chain.length - 1; depth >= 1; depth--) {
    const parent = chain[depth - 1]
    if (isPlainObject(parent)) {
      delete parent[path[depth - 1]!]
      return true
    }
  }
  return false
}

/**
 * Judge `document`'s sections for the namespaces `registrations` name, globally and under each of `scopes`.
 * A problem that only the taking-out caused (a required field whose wrong value was taken out, a
 * scoped field that relied on it) is not reported.
 */
export async function judgeSections(document: Record<string, unknown>, registrations: readonly Registration[], scopes: readonly string[]): Promise<Judgment> {
  const root = new Context()
  let created: MemorySettingsProvider | undefined
  class JudgingProvider extends MemorySettingsProvider {
    constructor(ctx: Context, config: MemorySettingsProvider.Config) {
      super(ctx, config)
      created = this
    }
  }
  const providerFiber = root.plugin(JudgingProvider, { document: {}, writable: false })
  await providerFiber.await()
  if (!created) throw new Error('the check could not start its in-memory settings provider')
  const provider = created

  const scopeObjects = new Map<string, Scope>()
  const contextOf = (scope: string | undefined): Context => {
    if (scope === undefined) return root
    let made = scopeObjects.get(scope)
    if (!made) scopeObjects.set(scope, (made = createScope(root, { name: scope })))
    return made.ctx
  }
  const fibers: Fiber[] = []
  /** Make one registration; answers what it threw, or `undefined` once it is made. */
  const register = async (registration: Registration): Promise<unknown> => {
    const fiber = contextOf(registration.scope).plugin({
      name: 'settings-check',
      inject: ['settings'],
      apply: (ctx: Context) => void ctx.settings.register(registration.ns, registration.schema, registration.options),
    })
    fibers.push(fiber)
    const failure = await fiber.await().then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
    return failure?.error
  }
  // Over an empty document a registration stands on its base and defaults alone. One that needs the
  // document (a required field only it supplies) is made over a copy of it, with what it refuses
  // taken out one refusal at a time; the document itself is handed over after that.
  const unique = new Map<string, Registration>()
  for (const registration of registrations) {
    const key = instanceKey(registration.ns, registration.scope)
    if (!unique.has(key)) unique.set(key, registration)
  }
  const later: Registration[] = []
  for (const registration of unique.values()) if ((await register(registration)) !== undefined) later.push(registration)
  for (const registration of later) {
    const scratch = structuredClone(document)
    for (let attempt = 0; attempt < MAX_ROUNDS; attempt++) {
      await provider.edit(scratch)
      const error = await register(registration)
      if (error === undefined || !isSectionError(error)) break
      const scope = sectionHolding(scratch, error)
      if (scope === false) break
      const section = sectionOf(scratch, error.ns, scope)
      if (!(error.path.length && isPlainObject(section) && takeOut(section, error.path))) removeSection(scratch, error.ns, scope)
    }
  }
  const current = structuredClone(document)
  await provider.edit(current)

  const problems: SectionProblem[] = []
  const seen = new Set<string>()
  /** Paths taken out of each section (by {@link instanceKey}), to tell a problem the taking-out caused. */
  const takenOut = new Map<string, string[][]>()
  const causedByTakingOut = (problem: SectionProblem): boolean => {
    if (valueAt(sectionOf(current, problem.ns, problem.scope), problem.path) !== undefined) return false
    const sections = problem.scope === undefined ? [undefined] : [undefined, problem.scope]
    return sections.some((scope) => takenOut.get(instanceKey(problem.ns, scope))?.some((path) => related(path, problem.path)))
  }

  const warnings: SectionWarning[] = []
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const found: SectionProblem[] = []
    for (const scope of [undefined, ...scopes]) {
      for (const descriptor of provider.describe({ scope, redactSecrets: true })) {
        // The first round describes the document as it is; later ones, what is left once refused fields are taken out.
        if (round === 0) warnings.push(...descriptorWarnings(descriptor, scope))
        if (descriptor.needsSetup) {
          // Nothing stored is wrong: a value is missing. Each path is reported once; nothing is taken out for it.
          if (round === 0) {
            for (const path of descriptor.problem?.missing ?? []) {
              problems.push({ ns: descriptor.ns, scope, path, message: 'a value is required and no layer gives one: the plugin waits for setup', missingValue: true })
            }
          }
          continue
        }
        if (descriptor.problem) {
          const migrationFailed = descriptor.migration?.state === 'failed' && !descriptor.problem.path.length ? { migrationFailed: true as const } : {}
          found.push({ ns: descriptor.ns, scope, path: [...descriptor.problem.path], message: descriptor.problem.message, ...migrationFailed })
        }
      }
    }
    let changed = false
    for (const problem of found) {
      const key = `${instanceKey(problem.ns, problem.scope)}\u0000${problem.path.join('\u0000')}`
      const again = seen.has(key)
      if (!again && !causedByTakingOut(problem)) problems.push(problem)
      seen.add(key)
      // A malformed section (not an object, a prototype key) is one the seam reads as absent anyway:
      // taking it out changes nothing the layers above it rely on.
      if (problem.path.length || !problem.message.startsWith('the stored section')) {
        const sectionKey = instanceKey(problem.ns, problem.scope)
        takenOut.set(sectionKey, [...(takenOut.get(sectionKey) ?? []), problem.path])
      }
      const section = sectionOf(current, problem.ns, problem.scope)
      if (!again && problem.path.length && isPlainObject(section) && takeOut(section, problem.path)) changed = true
      else if (section !== undefined) {
        // The whole section: its problem has no path, or taking out the field did not help.
        removeSection(current, problem.ns, problem.scope)
        changed = true
      }
    }
    if (!changed) break
    await provider.edit(current)
  }

  for (const fiber of fibers.reverse()) await fiber.dispose()
  for (const scope of [...scopeObjects.values()].reverse()) await scope.dispose()
  await providerFiber.dispose()
  return { problems, repaired: current, warnings }
}
