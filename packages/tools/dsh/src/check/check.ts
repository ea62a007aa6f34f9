/**
 * `dsh settings check`: check a settings document against the schemas of the
 * plugins a deployment file mounts, without starting servers.
 *
 * 1. The deployment file is planned as `pnpm start` plans it (deployment.ts). Its
 *    settings provider entry names the default document; `dsh-remote` and
 *    `dsh-settings-controller` are left out.
 * 2. The document is read and parsed by the file provider's own codec
 *    (read.ts): something other than a regular file is refused before it is
 *    opened for reading, a document over the size cap before a byte is read,
 *    and the parse is the provider's (linear, with its refusals). The
 *    deployment's own document, not written yet, reads as an empty one. A
 *    syntax error or a document that cannot be read as sections is itself a
 *    problem, and ends the check. positions.ts maps data paths to lines and
 *    columns of the same parse.
 * 3. The other entries, scope groups included, run in one cordis root over a
 *    read-only `MemorySettingsProvider` holding the document, and every
 *    registration is recorded. A plugin that fails on a stored section never
 *    makes its later registrations, so the deployment runs again (twice at most)
 *    over the document with the refused fields taken out, while that shows new ones.
 * 4. The sections are judged with the seam's own `describe` (judge.ts); what
 *    the deployment's registrations threw and `describe` does not account for is
 *    put on the section that holds the refused field.
 * 5. The document's shape is checked: keys that are not namespaces or that no
 *    plugin registers, a `scopes` that is not a map, malformed scope ids.
 *
 * Messages name the rule broken, never a stored value: the seam's messages are
 * built that way, yaml's (which quote the source) are replaced by their codes,
 * and a plugin's own error message has schemastery's "but got <value>" cut out
 * and every string of the document and of the deployment's configs redacted.
 */
import { extname, resolve } from 'node:path'
import { processConditions } from 'dsh-loader'
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { formatPath as formatSectionPath, NAMESPACE_PATTERN, RESERVED_NAMESPACES, SCOPES_KEY, type SettingsDocument } from 'dsh-settings'
import { defaultDocument, pluginSubject, readDeployment, runPass, UsageError, type EntryRef, type Pass, type Registration } from './deployment.ts'
import { instanceKey, isPlainObject, isSectionError, judgeSections, sectionHolding, type Judgment } from './judge.ts'
import { PositionedText, type Position, type Target } from './positions.ts'
import { readChecked } from './read.ts'
import { warningRule } from './warnings.ts'

export { UsageError }

/** What kind of problem a line reports; the bracketed last word of each output line. */
export type ProblemCode =
  /** The document is not valid YAML (or JSON). */
  | 'bad-yaml'
  /** The document parses but cannot be read as a settings document (not a map, an alias past the cap, too large). */
  | 'bad-document'
  /** A stored field does not match the namespace's schema. */
  | 'invalid-value'
  /** A stored section as a whole does not resolve: not an object, a prototype key, refused by its owner's check. */
  | 'invalid-section'
  /** A top-level or scoped key that is a well-formed namespace no plugin of the deployment registers. */
  | 'unknown-namespace'
  /** A top-level or scoped key that is not a namespace (its grammar, or reserved). */
  | 'bad-namespace'
  /** A key of `scopes` that is not a scope id (`<kind>/<id>`). */
  | 'bad-scope'
  /** `scopes`, or one scope's entry, that is not a map. */
  | 'bad-scopes'
  /** A plugin of the deployment could not be loaded or failed to start, for a reason other than a stored section. */
  | 'plugin-failed'
  /** A stored section older than its plugin's settings that a migration step fails on. */
  | 'migration-failed'
  /** A value the plugin requires that neither the document nor the deployment gives: the plugin waits for setup. */
  | 'missing-value'
  /** A warning: a stored key the namespace's schema does not declare (kept, never read). */
  | 'undeclared-key'
  /** A warning: a section stored at an older version of its plugin's settings, which migrates when the plugin starts. */
  | 'would-migrate'

/** One problem, with the file and position it concerns. */
export interface Problem {
  code: ProblemCode
  /** Absolute path of the file: the settings document, or the deployment file for `plugin-failed`. */
  file: string
  line: number
  column: number
  /** What the problem is about: `web-search in preset/coder $.limit`, `key "Bad_Key"`, `plugin dsh-example-assistant`. */
  subject: string
  /** The rule broken; never a stored value. */
  rule: string
}

/** The outcome of a check. */
export interface CheckResult {
  /** Absolute path of the deployment file. */
  deployment: string
  /** Absolute path of the document checked. */
  document: string
  /** In output order: the deployment's problems first, then the document's by position. */
  problems: Problem[]
  /** What is worth a look but fails nothing (`undeclared-key`, `would-migrate`), by position. */
  warnings: Problem[]
  /** What the check could not do, worth a look but no problem of the document (a plugin that did not start). */
  notes: string[]
  /** The namespaces the deployment's plugins registered, in registration order. */
  namespaces: string[]
  /** The named scopes judged: those the deployment registers under and those the document holds sections for. */
  scopes: string[]
  /** Whether the plugins ran and the sections were judged (false: the document could not be read as data). */
  judged: boolean
}

/** Options of {@link checkSettings}. */
export interface CheckOptions {
  /** The deployment file. */
  deployment: string
  /** The document to check; defaults to the one the deployment's file provider would use. */
  document?: string
  /** The environment `${VAR}` references and `$DSH_HOME` read; defaults to the process's. */
  env?: NodeJS.ProcessEnv
  /** Export conditions plugin specifiers resolve with; defaults to the process's own (`--conditions=source`). */
  conditions?: readonly string[]
  /** How long the plugins get to start before the check goes on without the slow ones. Defaults to 10 s. */
  startTimeoutMs?: number
}

/** How many times the deployment runs at most: once, then over the document with refused fields taken out. */
const MAX_PASSES = 3
/** Strings this short are not redacted from plugins' messages (they would take ordinary words with them). */
const MIN_REDACTED_LENGTH = 6

/** A key as messages show it: quoted, and cut short (a key is the user's text, and may be long). */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)
}

/**
 * Render a path inside a section as `$`-rooted text with the seam's own
 * `formatPath`: `$.a.b`, `$.list[0]`, `$["odd key"]`. Paths here are strings
 * (describe's and the document's), so a decimal segment is read as an index.
 */
export function formatPath(path: readonly string[]): string {
  return formatSectionPath(path.map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment)))
}

/** `web-search` or `web-search in preset/coder`. */
function sectionSubject(ns: string, scope: string | undefined): string {
  return scope === undefined ? ns : `${ns} in ${scope}`
}

/** Where a section (or a place inside it) sits in the document's data. */
function documentPath(ns: string, scope: string | undefined, path: readonly string[] = []): string[] {
  return scope === undefined ? [ns, ...path] : [SCOPES_KEY, scope, ns, ...path]
}

/**
 * The rule a seam message states, without the section it names (the output line names it):
 * `settings "web-search" in scope preset/coder is invalid at $.limit: expected number` reads `expected number`.
 */
export function ruleOf(message: string): string {
  return message
    .replace(/^settings "[^"]*"(?: in scope \S+)? /, '')
    .replace(/^is invalid at \$(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*: /, '')
}

/**
 * A plugin's error message on one line: schemastery's "but got <value>" cut out (cordis quotes
 * a refused config value that way), then every string of `values` replaced by `[redacted]`.
 */
export function scrubMessage(error: unknown, values: readonly string[] = []): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : `a thrown ${typeof error}`
  const lines = message
    .split('\n')
    .map((line) => line.replace(/ but got .*?( \(at [^()]*\))?$/, '$1').replace(/^\s*-\s+/, '').trim())
    .filter((line) => line !== '')
  let text = lines.reduce((joined, line) => (joined === '' ? line : `${joined}${joined.endsWith(':') ? ' ' : '; '}${line}`), '')
  for (const value of values) text = text.split(value).join('[redacted]')
  return text
}

/** Every string inside `value` at least {@link MIN_REDACTED_LENGTH} long, longest first. */
function stringsIn(values: readonly unknown[]): string[] {
  const found = new Set<string>()
  const walk = (value: unknown, depth: number) => {
    if (typeof value === 'string') {
      if (value.length >= MIN_REDACTED_LENGTH) found.add(value)
    } else if (typeof value === 'object' && value !== null && depth < 100) {
      for (const item of Object.values(value)) walk(item, depth + 1)
    }
  }
  for (const value of values) walk(value, 0)
  return [...found].sort((a, b) => b.length - a.length)
}

/** A problem before it has a position: where in the document's data it points. */
interface Located {
  code: ProblemCode
  subject: string
  rule: string
  path: string[]
  target: Target
}

function namespaceKeyProblem(key: string, scope: string | undefined, known: ReadonlySet<string>, path: string[]): Located | undefined {
  const where = scope === undefined ? '' : ` in ${scope}`
  if (!NAMESPACE_PATTERN.test(key)) {
    return { code: 'bad-namespace', subject: `key ${shownKey(key)}${where}`, rule: `not a namespace: a namespace must match ${NAMESPACE_PATTERN}`, path, target: 'key' }
  }
  if (RESERVED_NAMESPACES.has(key)) return { code: 'bad-namespace', subject: `key ${shownKey(key)}${where}`, rule: `not a namespace: ${shownKey(key)} is reserved`, path, target: 'key' }
  if (!known.has(key)) return { code: 'unknown-namespace', subject: sectionSubject(key, scope), rule: 'unknown namespace: no plugin of the deployment registers it', path, target: 'key' }
  return undefined
}

/** Keys that are not namespaces or that nothing registers, a malformed `scopes`, malformed scope ids. */
function shapeProblems(data: Record<string, unknown>, known: ReadonlySet<string>): Located[] {
  const found: Located[] = []
  for (const key of Object.keys(data)) {
    if (key !== SCOPES_KEY) {
      const problem = namespaceKeyProblem(key, undefined, known, [key])
      if (problem) found.push(problem)
      continue
    }
    const scopes = data[key]
    // An empty `scopes:` (null) holds nothing, as the seam reads it.
    if (scopes === null) continue
    if (!isPlainObject(scopes)) {
      found.push({ code: 'bad-scopes', subject: SCOPES_KEY, rule: `"${SCOPES_KEY}" must be a map of scope ids to sections`, path: [key], target: 'key' })
      continue
    }
    for (const scope of Object.keys(scopes)) {
      if (!SCOPE_ID_PATTERN.test(scope)) {
        found.push({ code: 'bad-scope', subject: `scope ${shownKey(scope)}`, rule: `not a scope id: a scope id must be <kind>/<id>, matching ${SCOPE_ID_PATTERN}`, path: [key, scope], target: 'key' })
        continue
      }
      const sections = scopes[scope]
      if (sections === null) continue
      if (!isPlainObject(sections)) {
        found.push({ code: 'bad-scopes', subject: `scope ${scope}`, rule: 'a scope must be a map of namespace sections', path: [key, scope], target: 'key' })
        continue
      }
      for (const ns of Object.keys(sections)) {
        const problem = namespaceKeyProblem(ns, scope, known, [key, scope, ns])
        if (problem) found.push(problem)
      }
    }
  }
  return found
}

/** The valid scope ids the document holds sections under. */
function documentScopes(data: Record<string, unknown>): string[] {
  const scopes = data[SCOPES_KEY]
  return isPlainObject(scopes) ? Object.keys(scopes).filter((scope) => SCOPE_ID_PATTERN.test(scope) && isPlainObject(scopes[scope])) : []
}

/**
 * Check the settings document against the deployment's plugins.
 * @throws {UsageError} when the deployment file or a named document is missing, a file is unreadable or not a regular file, the deployment does not plan, or no document can be named.
 */
export async function checkSettings(options: CheckOptions): Promise<CheckResult> {
  const env = options.env ?? process.env
  const deploymentFile = resolve(options.deployment)
  const deployment = await readDeployment(deploymentFile, env, options.conditions ?? processConditions())
  const documentFile = options.document === undefined ? defaultDocument(deployment, env) : resolve(options.document)
  const result: CheckResult = { deployment: deploymentFile, document: documentFile, problems: [], warnings: [], notes: [], namespaces: [], scopes: [], judged: false }
  const inDocument = (position: Position, code: ProblemCode, subject: string, rule: string): Problem => ({ code, file: documentFile, ...position, subject, rule })

  const read = await readChecked(documentFile, deployment, options.document === undefined)
  if ('problems' in read) {
    result.problems = read.problems.map(({ position, code, rule }) => inDocument(position, code, 'document', rule))
    return result
  }
  const { text, parsed } = read
  if (read.missing) result.notes.push(`the settings document ${documentFile} does not exist yet (the file provider writes it at its first write): checked as an empty document, each problem at line 1, column 1`)
  const data = parsed.data
  // Positions come from the same parse; JSON (which is YAML) is parsed once more for them.
  const positions = parsed.yaml ? PositionedText.of(text, parsed.yaml) : PositionedText.parse(text)
  result.judged = true
  const documentProblems: Problem[] = []

  // Run the deployment, then again over the repaired document while plugins failed on stored sections.
  const deadline = Date.now() + (options.startTimeoutMs ?? 10_000)
  const registrations: Registration[] = []
  const attempts: Registration[] = []
  let pass: Pass | undefined
  let judgment: Judgment | undefined
  let input: Record<string, unknown> = data
  for (let round = 0; round < MAX_PASSES; round++) {
    pass = await runPass(deployment.planned, input as SettingsDocument, Math.max(deadline, Date.now() + 1000))
    attempts.push(...pass.registrations)
    const before = registrations.length
    for (const registration of pass.registrations) {
      const key = instanceKey(registration.ns, registration.scope)
      if (!registrations.some((seen) => instanceKey(seen.ns, seen.scope) === key)) registrations.push(registration)
    }
    if (judgment && registrations.length === before) break
    const scopes = [...new Set([...registrations.flatMap((registration) => (registration.scope === undefined ? [] : [registration.scope])), ...documentScopes(data)])]
    result.scopes = scopes
    judgment = await judgeSections(data, registrations, scopes)
    const refused = pass.registrations.some((registration) => registration.error !== undefined && isSectionError(registration.error))
    if (!refused || JSON.stringify(judgment.repaired) === JSON.stringify(input)) break
    input = judgment.repaired
  }
  if (!pass || !judgment) throw new Error('the deployment did not run')
  const known = new Set(registrations.map((registration) => registration.ns))
  result.namespaces = [...known]

  // Sections that do not resolve, as the seam judged them.
  for (const problem of judgment.problems) {
    documentProblems.push(
      inDocument(
        positions.locate(documentPath(problem.ns, problem.scope, problem.path)),
        problem.missingValue ? 'missing-value' : problem.migrationFailed ? 'migration-failed' : problem.path.length ? 'invalid-value' : 'invalid-section',
        `${sectionSubject(problem.ns, problem.scope)} ${formatPath(problem.path)}`,
        ruleOf(problem.message),
      ),
    )
  }
  // What the deployment's own registrations threw, where the judge's describe rounds do not account for it: a
  // namespace the judge could not register at all (a required field whose only stored value is refused), or whose
  // stored sections describe cannot blame (it blames a section only when the layers below it resolve, and a base
  // lacking a required field never does). The refusal is put on the section holding the refused field, else on the
  // scope's own section, else on the global one; with no section stored, it is the plugin's failure, reported below.
  const explained = new Set<unknown>()
  const places = new Set<string>()
  for (const { error } of attempts) {
    if (!isSectionError(error)) continue
    const holding = sectionHolding(data, error)
    if (holding === false) continue
    explained.add(error)
    if (judgment.problems.some((problem) => problem.ns === error.ns && (problem.scope === holding || problem.scope === undefined))) continue
    const place = `${instanceKey(error.ns, holding)}\u0000${error.path.join('\u0000')}`
    if (places.has(place)) continue
    places.add(place)
    documentProblems.push(
      inDocument(
        positions.locate(documentPath(error.ns, holding, error.path)),
        error.path.length ? 'invalid-value' : 'invalid-section',
        `${sectionSubject(error.ns, holding)} ${formatPath(error.path)}`,
        ruleOf(error.message),
      ),
    )
  }
  // What fails nothing: keys the plugins do not use, and sections that would migrate.
  for (const warning of judgment.warnings) {
    const undeclared = warning.kind === 'undeclared'
    const position = positions.locate(documentPath(warning.ns, warning.scope, undeclared ? warning.path : []), 'key')
    const subject = `${sectionSubject(warning.ns, warning.scope)}${undeclared ? ` ${formatPath(warning.path)}` : ''}`
    result.warnings.push(inDocument(position, undeclared ? 'undeclared-key' : 'would-migrate', subject, warningRule(warning)))
  }
  // The document's shape.
  for (const problem of shapeProblems(data, known)) documentProblems.push(inDocument(positions.locate(problem.path, problem.target), problem.code, problem.subject, problem.rule))

  // The deployment's own problems: plugins that could not be loaded, or failed for a reason other than a section reported above.
  const values = stringsIn([data, ...deployment.configs])
  const deploymentText = PositionedText.parse(deployment.text)
  const inDeployment = (ref: EntryRef, rule: string): Problem => ({ code: 'plugin-failed', file: deploymentFile, ...deploymentText.locate(ref.path, 'key'), subject: pluginSubject(ref), rule })
  const deploymentProblems = deployment.unloaded.map(({ ref, error }) => inDeployment(ref, `could not be loaded: ${scrubMessage(error, values)}`))
  // A plugin waiting for setup is reported by the values it lacks (`missing-value`), not as a failure of its own.
  for (const { ref, error } of pass.failed) {
    if (!explained.has(error) && (error as { code?: unknown } | undefined)?.code !== 'SETTINGS_NEEDS_SETUP') deploymentProblems.push(inDeployment(ref, `failed to start: ${scrubMessage(error, values)}`))
  }

  for (const { ref, waitsFor, slow } of pass.idle) {
    const why = slow ? 'was still starting when the check went on' : `did not start: it waits for ${waitsFor.join(', ') || 'a service'}, which nothing the check runs provides (it leaves dsh-remote and dsh-settings-controller out)`
    result.notes.push(`${pluginSubject(ref)} ${why}; a namespace it would register is reported as unknown`)
  }

  const byPosition = (a: Problem, b: Problem) => a.line - b.line || a.column - b.column
  deploymentProblems.sort(byPosition)
  documentProblems.sort(byPosition)
  result.problems = [...deploymentProblems, ...documentProblems]
  result.warnings.sort(byPosition)
  return result
}
