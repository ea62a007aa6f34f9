/**
 * Judging a document's sections with the seam itself: `describe` under each
 * scope reports each stored section that does not resolve, each value a plugin
 * requires that no layer gives, keys a schema does not declare and sections
 * that would migrate.
 *
 * When the deployment's own run registered everything cleanly, its running
 * service is described as it is ({@link describeClean}): most documents are
 * judged by that one round. Otherwise ({@link judgeSections}) the registrations
 * the deployment made are made again in a root whose provider starts empty (so
 * each of them succeeds), the document is handed over as an outside edit, and
 * each problem's field is then taken out of the copy and the edit repeated, so
 * a section with several wrong fields reports each of them, and a scoped
 * section is judged over the global one once that one resolves.
 *
 * Descriptors are read for their problems, undeclared paths and migrations
 * only, never for values, so they are described unredacted (redaction walks
 * every value, and the check shows none).
 */
import { Context, type Fiber } from 'cordis'
import { createScope, type Scope } from 'dsh-scope'
import { SCOPES_KEY, type SettingsDescriptor, type SettingsProvider } from 'dsh-settings'
import { isPlainObject, valueAt } from 'dsh-settings/data'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { Registration } from './provider.ts'
import { descriptorWarnings, type SectionWarning } from './warnings.ts'

export { isPlainObject, valueAt }

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

/** What one describe of every kind under every scope found. */
interface Round {
  /** Stored sections (or fields of them) that do not resolve. */
  found: SectionProblem[]
  /** Values a plugin requires that no layer gives, one per path. */
  missing: SectionProblem[]
  /** Undeclared keys and sections that would migrate (only when asked for). */
  warnings: SectionWarning[]
}

/**
 * The namespaces worth describing under each named scope: those registered there and those
 * the scope holds a section of. Under a scope with neither, a kind's descriptor can report
 * nothing (no section of its own to judge or warn about, no instance waiting for setup), and
 * describing it would resolve its global section once more for nothing.
 */
function namespacesByScope(registrations: readonly Registration[], document: Record<string, unknown>, scopes: readonly string[]): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>(scopes.map((scope) => [scope, new Set()]))
  for (const registration of registrations) if (registration.scope !== undefined) found.get(registration.scope)?.add(registration.ns)
  for (const [scope, names] of found) {
    const sections = valueAt(document, [SCOPES_KEY, scope])
    if (isPlainObject(sections)) for (const ns of Object.keys(sections)) names.add(ns)
  }
  return found
}

/**
 * Describe every kind globally, and under each of `scopes` each kind worth it; `warnings` are
 * collected only when `withWarnings`. Kinds are described in registration order.
 */
function describeRound(provider: SettingsProvider, judging: Judging, withWarnings: boolean): Round {
  const round: Round = { found: [], missing: [], warnings: [] }
  const kinds = [...new Set(judging.registrations.map((registration) => registration.ns))]
  const byScope = namespacesByScope(judging.registrations, judging.document, judging.scopes)
  const descriptors = (scope: string | undefined): SettingsDescriptor[] => {
    if (scope === undefined) return provider.describe()
    const names = byScope.get(scope)!
    return kinds.filter((ns) => names.has(ns)).flatMap((ns) => provider.describe({ ns, scope }))
  }
  for (const scope of [undefined, ...judging.scopes]) {
    for (const descriptor of descriptors(scope)) {
      if (withWarnings) for (const warning of descriptorWarnings(descriptor, scope)) round.warnings.push(warning)
      if (descriptor.needsSetup) {
        // Nothing stored is wrong: a value is missing. Nothing is taken out for it.
        for (const path of descriptor.problem?.missing ?? []) {
          round.missing.push({ ns: descriptor.ns, scope, path, message: 'a value is required and no layer gives one: the plugin waits for setup', missingValue: true })
        }
        continue
      }
      if (descriptor.problem) {
        const migrationFailed = descriptor.migration?.state === 'failed' && !descriptor.problem.path.length ? { migrationFailed: true as const } : {}
        round.found.push({ ns: descriptor.ns, scope, path: [...descriptor.problem.path], message: descriptor.problem.message, ...migrationFailed })
      }
    }
  }
  return round
}

/** What a round describes: the document the service holds, the registrations made over it, the named scopes. */
interface Judging {
  document: Record<string, unknown>
  registrations: readonly Registration[]
  scopes: readonly string[]
}

/**
 * The judgment of a document whose plugins registered cleanly, read off the running
 * service that holds their registrations over it: `undefined` when some section does
 * not resolve or some value is missing (then {@link judgeSections} reports each one).
 * @param document - the document the service holds; it is the judgment's `repaired` as it is.
 */
export function describeClean(provider: SettingsProvider, document: Record<string, unknown>, registrations: readonly Registration[], scopes: readonly string[]): Judgment | undefined {
  const round = describeRound(provider, { document, registrations, scopes }, true)
  if (round.found.length || round.missing.length) return undefined
  return { problems: [], repaired: document, warnings: round.warnings }
}

/** A root with a read-only in-memory provider over an empty document, where registrations are made again. */
class JudgeRoot {
  readonly root = new Context()
  provider!: MemorySettingsProvider
  private providerFiber: Fiber | undefined
  private readonly scopes = new Map<string, Scope>()
  private readonly fibers: Fiber[] = []

  async start(): Promise<void> {
    let created: MemorySettingsProvider | undefined
    class JudgingProvider extends MemorySettingsProvider {
      constructor(ctx: Context, config: MemorySettingsProvider.Config) {
        super(ctx, config)
        created = this
      }
    }
    this.providerFiber = this.root.plugin(JudgingProvider, { document: {}, writable: false })
    await this.providerFiber.await()
    if (!created) throw new Error('the check could not start its in-memory settings provider')
    this.provider = created
  }

  /** Make one registration; answers what it threw, or `undefined` once it is made. */
  async register(registration: Registration): Promise<unknown> {
    const fiber = this.contextOf(registration.scope).plugin({
      name: 'settings-check',
      inject: ['settings'],
      apply: (ctx: Context) => void ctx.settings.register(registration.ns, registration.schema, registration.options),
    })
    this.fibers.push(fiber)
    const failure = await fiber.await().then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
    return failure?.error
  }

  async dispose(): Promise<void> {
    for (const fiber of this.fibers.reverse()) await fiber.dispose()
    for (const scope of [...this.scopes.values()].reverse()) await scope.dispose()
    await this.providerFiber?.dispose()
  }

  private contextOf(scope: string | undefined): Context {
    if (scope === undefined) return this.root
    let made = this.scopes.get(scope)
    if (!made) this.scopes.set(scope, (made = createScope(this.root, { name: scope })))
    return made.ctx
  }
}

/**
 * Make each registration again over an empty document, where it stands on its base and defaults
 * alone. One that needs the document (a required field only it supplies) is made over a copy of
 * it, with what it refuses taken out one refusal at a time.
 */
async function registerAgain(judge: JudgeRoot, document: Record<string, unknown>, registrations: readonly Registration[]): Promise<void> {
  const unique = new Map<string, Registration>()
  for (const registration of registrations) {
    const key = instanceKey(registration.ns, registration.scope)
    if (!unique.has(key)) unique.set(key, registration)
  }
  const later: Registration[] = []
  for (const registration of unique.values()) if ((await judge.register(registration)) !== undefined) later.push(registration)
  for (const registration of later) {
    const scratch = structuredClone(document)
    for (let attempt = 0; attempt < MAX_ROUNDS; attempt++) {
      await judge.provider.edit(scratch)
      const error = await judge.register(registration)
      if (error === undefined || !isSectionError(error)) break
      const scope = sectionHolding(scratch, error)
      if (scope === false) break
      const section = sectionOf(scratch, error.ns, scope)
      if (!(error.path.length && isPlainObject(section) && takeOut(section, error.path))) removeSection(scratch, error.ns, scope)
    }
  }
}

/**
 * Judge `document`'s sections for the namespaces `registrations` name, globally and under each of `scopes`.
 * A problem that only the taking-out caused (a required field whose wrong value was taken out, a
 * scoped field that relied on it) is not reported.
 */
export async function judgeSections(document: Record<string, unknown>, registrations: readonly Registration[], scopes: readonly string[]): Promise<Judgment> {
  const judge = new JudgeRoot()
  try {
    await judge.start()
    await registerAgain(judge, document, registrations)
    const current = structuredClone(document)
    await judge.provider.edit(current)
    return await takeOutRounds(judge.provider, { document: current, registrations, scopes })
  } finally {
    await judge.dispose()
  }
}

/**
 * Describe the document (which `provider` holds) round after round, each time taking out the fields
 * the last round found refused, until a round finds nothing new to take out.
 */
async function takeOutRounds(provider: MemorySettingsProvider, judging: Judging): Promise<Judgment> {
  const current = judging.document
  const problems: SectionProblem[] = []
  const seen = new Set<string>()
  /** Paths taken out of each section (by {@link instanceKey}), to tell a problem the taking-out caused. */
  const takenOut = new Map<string, string[][]>()
  const causedByTakingOut = (problem: SectionProblem): boolean => {
    if (valueAt(sectionOf(current, problem.ns, problem.scope), problem.path) !== undefined) return false
    const sections = problem.scope === undefined ? [undefined] : [undefined, problem.scope]
    return sections.some((scope) => takenOut.get(instanceKey(problem.ns, scope))?.some((path) => related(path, problem.path)))
  }
  let warnings: SectionWarning[] = []
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // The first round describes the document as it is; later ones, what is left once refused fields are taken out.
    const { found, missing, warnings: warned } = describeRound(provider, judging, round === 0)
    if (round === 0) {
      warnings = warned
      problems.push(...missing)
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
  return { problems, repaired: current, warnings }
}
