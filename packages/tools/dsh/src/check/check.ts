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
 *    problem, and ends the check. Positions are found only once something is
 *    to be placed: by one scan of the lines (line-positions.ts) when the text
 *    is written one entry per line, else from yaml's tree (positions.ts).
 * 3. The other entries, scope groups included, run in one cordis root over a
 *    read-only service holding the parsed document as it is (provider.ts), and
 *    every registration is recorded. Nothing else starts: no file provider,
 *    watcher, server or timer.
 * 4. The sections are judged with the seam's own `describe` (judge.ts): when
 *    every plugin registered cleanly, on the running service itself, in one
 *    round. Otherwise apart, field by field; and since a plugin that fails on a
 *    stored section never makes its later registrations, the deployment runs
 *    again (twice at most) over the document with the refused fields taken
 *    out, while that shows new ones. What the deployment's registrations threw
 *    and `describe` does not account for is put on the section that holds the
 *    refused field.
 * 5. The document's shape is checked: keys that are not namespaces or that no
 *    plugin registers, a `scopes` that is not a map, malformed scope ids.
 *
 * Messages name the rule broken, never a stored value: the seam's messages are
 * built that way, yaml's (which quote the source) are replaced by their codes,
 * and a plugin's own error message has schemastery's "but got <value>" cut out
 * and every string of the document and of the deployment's configs redacted.
 */
import { resolve } from 'node:path'
import { processConditions } from 'dsh-loader'
import { dataEqual, formatPath as formatSectionPath, SCOPES_KEY, type SettingsDocument, type SettingsProvider } from 'dsh-settings'
import type { Document } from 'dsh-settings-file/codec'
import { defaultDocument, pluginSubject, readDeployment, runPass, UsageError, type Deployment, type EntryRef, type Pass, type Registration } from './deployment.ts'
import { describeClean, instanceKey, isSectionError, judgeSections, sectionHolding, type Judgment } from './judge.ts'
import { LinePositions } from './line-positions.ts'
import { documentScopes, sectionSubject, shapeProblems } from './shape.ts'
import { PositionedText, type Locator, type Position } from './positions.ts'
import { readChecked } from './read.ts'
import { checkReferences, withoutExplained } from './references.ts'
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
  /** A reference (`!secret`, `!env`, `!file`) that does not resolve: a name the store lacks, an unset variable, an unreadable file. */
  | 'unresolved-reference'
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
/**
 * Runs this long that a plugin's message shares with a stored string are redacted too. Shorter
 * shared runs are common words and path parts (`plugins` of `plugins-secret-…` and `./plugins/`).
 */
const SHARED_RUN = 8

/**
 * Render a path inside a section as `$`-rooted text with the seam's own
 * `formatPath`: `$.a.b`, `$.list[0]`, `$["odd key"]`. Paths here are strings
 * (describe's and the document's), so a decimal segment is read as an index.
 */
export function formatPath(path: readonly string[]): string {
  return formatSectionPath(path.map((segment) => (isIndex(segment) ? Number(segment) : segment)))
}

/** Whether a path segment is a decimal index; most are not, and say so at their first character. */
function isIndex(segment: string): boolean {
  const first = segment.charCodeAt(0)
  return first >= 0x30 && first <= 0x39 && /^(0|[1-9]\d*)$/.test(segment)
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
 * a refused config value that way), then every string of `values` replaced by `[redacted]`, and
 * every run of {@link SHARED_RUN} characters or more it shares with one of them: an error may
 * quote part of a value (`JSON.parse` quotes a longer text's first 10 characters).
 */
export function scrubMessage(error: unknown, values: readonly string[] = []): string {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : `a thrown ${typeof error}`
  const lines = message
    .split('\n')
    .map((line) => line.replace(/ but got .*?( \(at [^()]*\))?$/, '$1').replace(/^\s*-\s+/, '').trim())
    .filter((line) => line !== '')
  let text = lines.reduce((joined, line) => (joined === '' ? line : `${joined}${joined.endsWith(':') ? ' ' : '; '}${line}`), '')
  for (const value of values) text = text.split(value).join('[redacted]')
  return withoutSharedRuns(text, values)
}

/** `text` with every run of at least {@link SHARED_RUN} characters that also stands in one of `values` replaced by `[redacted]`. */
function withoutSharedRuns(text: string, values: readonly string[]): string {
  const size = SHARED_RUN
  if (text.length < size || !values.length) return text
  const pieces = new Set<string>()
  for (const value of values) for (let at = 0; at + size <= value.length; at++) pieces.add(value.slice(at, at + size))
  // Mark each character inside a shared piece; a run of marked characters is cut out whole.
  const marked = new Uint8Array(text.length)
  for (let at = 0; at + size <= text.length; at++) if (pieces.has(text.slice(at, at + size))) marked.fill(1, at, at + size)
  let result = ''
  for (let at = 0; at < text.length; at++) {
    if (!marked[at]) result += text[at]
    else if (at === 0 || !marked[at - 1]) result += '[redacted]'
  }
  return result
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

/** What running the deployment over the document and judging its sections found. */
interface Judged {
  /** The last run of the deployment. */
  pass: Pass
  judgment: Judgment
  /** Every registration any run made, each instance once (the first). */
  registrations: Registration[]
  /** Every registration call of every run, with what it threw. */
  attempts: Registration[]
  /** The named scopes judged. */
  scopes: string[]
}

/** Whether a run registered everything cleanly: no registration refused, no plugin failed or left starting. */
function ranCleanly(pass: Pass): boolean {
  return !pass.failed.length && pass.registrations.every((registration) => registration.error === undefined) && !pass.idle.some((idle) => idle.slow)
}

/** The registrations' named scopes and the document's, each once. */
function scopesOf(registrations: readonly Registration[], data: Record<string, unknown>): string[] {
  return [...new Set([...registrations.flatMap((registration) => (registration.scope === undefined ? [] : [registration.scope])), ...documentScopes(data)])]
}

/**
 * Run the deployment over `data` and judge the sections. A run that registers everything
 * cleanly is judged on the spot, over the service it ran on. Otherwise the sections are
 * judged apart, and the deployment runs again over the document with the refused fields
 * taken out while that shows registrations not seen before.
 */
async function runAndJudge(deployment: Deployment, data: Record<string, unknown>, deadline: number): Promise<Judged> {
  const registrations: Registration[] = []
  const attempts: Registration[] = []
  let judgment: Judgment | undefined
  let pass: Pass | undefined
  let scopes: string[] = []
  let input = data
  for (let round = 0; round < MAX_PASSES; round++) {
    const clean = (provider: SettingsProvider, run: Pass) => (round === 0 && ranCleanly(run) ? describeClean(provider, data, run.registrations, scopesOf(run.registrations, data)) : undefined)
    const ran: Pass & { inspected: Judgment | undefined } = await runPass(deployment.planned, input as SettingsDocument, Math.max(deadline, Date.now() + 1000), clean)
    pass = ran
    attempts.push(...ran.registrations)
    const before = registrations.length
    const seen = new Set(registrations.map((registration) => instanceKey(registration.ns, registration.scope)))
    for (const registration of ran.registrations) {
      const key = instanceKey(registration.ns, registration.scope)
      if (!seen.has(key)) registrations.push(registration)
      seen.add(key)
    }
    scopes = scopesOf(registrations, data)
    if (ran.inspected) return { pass, judgment: ran.inspected, registrations, attempts, scopes }
    if (judgment && registrations.length === before) break
    judgment = await judgeSections(data, registrations, scopes)
    const refused = ran.registrations.some((registration) => registration.error !== undefined && isSectionError(registration.error))
    if (!refused || dataEqual(judgment.repaired, input)) break
    // The judgment's copy is not changed once judged, so the next run may hand it to the seam.
    input = judgment.repaired
  }
  if (!pass || !judgment) throw new Error('the deployment did not run')
  return { pass, judgment, registrations, attempts, scopes }
}

/**
 * Where the check's lines point in the document: found only once something is to be
 * placed, by one scan of its lines when it is written one entry per line (as the
 * provider's fast reader takes it), else (or from where the scan and the data part)
 * from yaml's tree of the same text.
 */
function lazyLocator(text: string, read: { data: Record<string, unknown>; yaml?: Document.Parsed }): Locator {
  let lines: LinePositions | undefined | null
  let tree: Locator | undefined
  return {
    locate: (path, target) => {
      if (lines === undefined) lines = LinePositions.of(text, read.data) ?? null
      const found = lines?.locate(path, target)
      if (found) return found
      lines = null
      tree ??= read.yaml ? PositionedText.of(text, read.yaml) : PositionedText.parse(text)
      return tree.locate(path, target)
    },
  }
}

/** A problem at a place in the settings document. */
type InDocument = (position: Position, code: ProblemCode, subject: string, rule: string) => Problem

/** The sections' problems: what the seam judged, and what the registrations threw that it does not account for. */
function sectionProblems(judged: Judged, data: Record<string, unknown>, positions: Locator, inDocument: InDocument): { problems: Problem[]; explained: Set<unknown> } {
  const { judgment } = judged
  const problems: Problem[] = []
  for (const problem of judgment.problems) {
    problems.push(
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
  // scope's own section, else on the global one; with no section stored, it is the plugin's failure, reported apart.
  const explained = new Set<unknown>()
  const places = new Set<string>()
  for (const { error } of judged.attempts) {
    if (!isSectionError(error)) continue
    const holding = sectionHolding(data, error)
    if (holding === false) continue
    explained.add(error)
    if (judgment.problems.some((problem) => problem.ns === error.ns && (problem.scope === holding || problem.scope === undefined))) continue
    const place = `${instanceKey(error.ns, holding)}\u0000${error.path.join('\u0000')}`
    if (places.has(place)) continue
    places.add(place)
    problems.push(
      inDocument(
        positions.locate(documentPath(error.ns, holding, error.path)),
        error.path.length ? 'invalid-value' : 'invalid-section',
        `${sectionSubject(error.ns, holding)} ${formatPath(error.path)}`,
        ruleOf(error.message),
      ),
    )
  }
  return { problems, explained }
}

/** The deployment's own problems: plugins that could not be loaded, or failed for a reason other than a section. */
function deploymentProblems(deployment: Deployment, deploymentFile: string, data: Record<string, unknown>, pass: Pass, explained: ReadonlySet<unknown>): Problem[] {
  // A plugin waiting for setup is reported by the values it lacks (`missing-value`), not as a failure of its own.
  const failed = pass.failed.filter(({ error }) => !explained.has(error) && (error as { code?: unknown } | undefined)?.code !== 'SETTINGS_NEEDS_SETUP')
  if (!deployment.unloaded.length && !failed.length) return []
  const values = stringsIn([data, ...deployment.configs])
  const deploymentText = PositionedText.parse(deployment.text)
  const inDeployment = (ref: EntryRef, rule: string): Problem => ({ code: 'plugin-failed', file: deploymentFile, ...deploymentText.locate(ref.path, 'key'), subject: pluginSubject(ref), rule })
  return [
    ...deployment.unloaded.map(({ ref, error }) => inDeployment(ref, `could not be loaded: ${scrubMessage(error, values)}`)),
    ...failed.map(({ ref, error }) => inDeployment(ref, `failed to start: ${scrubMessage(error, values)}`)),
  ]
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
  const inDocument: InDocument = (position, code, subject, rule) => ({ code, file: documentFile, line: position.line, column: position.column, subject, rule })

  const read = await readChecked(documentFile, deployment, options.document === undefined)
  if ('problems' in read) {
    result.problems = read.problems.map(({ position, code, rule }) => inDocument(position, code, 'document', rule))
    return result
  }
  const { text, parsed } = read
  if (read.missing) result.notes.push(`the settings document ${documentFile} does not exist yet (the file provider writes it at its first write): checked as an empty document, each problem at line 1, column 1`)
  const positions = lazyLocator(text, parsed)
  // The plugins judge values, as a host's provider hands them over: each reference resolved first.
  const subject = (ns: string, scope: string | undefined, path: readonly string[]) => `${sectionSubject(ns, scope)} ${formatPath(path)}`
  const references = await checkReferences(text, parsed.data, documentFile, deployment, env, { documentPath, locate: (path) => positions.locate(path), subject })
  const data = references.data
  result.judged = true

  const judged = await runAndJudge(deployment, data, Date.now() + (options.startTimeoutMs ?? 10_000))
  const known = new Set(judged.registrations.map((registration) => registration.ns))
  result.namespaces = [...known]
  result.scopes = judged.scopes
  const { problems: documentProblems, explained } = sectionProblems(judged, data, positions, inDocument)
  // What fails nothing: keys the plugins do not use, and sections that would migrate.
  // Warnings come section by section, often tens of thousands of one section: its subject is made once.
  let section: { ns: string; scope: string | undefined; subject: string } | undefined
  for (const warning of judged.judgment.warnings) {
    const undeclared = warning.kind === 'undeclared'
    const position = positions.locate(documentPath(warning.ns, warning.scope, undeclared ? warning.path : []), 'key')
    if (section?.ns !== warning.ns || section.scope !== warning.scope) section = { ns: warning.ns, scope: warning.scope, subject: sectionSubject(warning.ns, warning.scope) }
    const subject = undeclared ? `${section.subject} ${formatPath(warning.path)}` : section.subject
    result.warnings.push(inDocument(position, undeclared ? 'undeclared-key' : 'would-migrate', subject, warningRule(warning)))
  }
  // The document's shape.
  for (const problem of shapeProblems(data, known)) documentProblems.push(inDocument(positions.locate(problem.path, problem.target), problem.code, problem.subject, problem.rule))
  const ownProblems = deploymentProblems(deployment, deploymentFile, data, judged.pass, explained)

  for (const { ref, waitsFor, slow } of judged.pass.idle) {
    const why = slow ? 'was still starting when the check went on' : `did not start: it waits for ${waitsFor.join(', ') || 'a service'}, which nothing the check runs provides (it leaves dsh-remote and dsh-settings-controller out)`
    result.notes.push(`${pluginSubject(ref)} ${why}; a namespace it would register is reported as unknown`)
  }

  const byPosition = (a: Problem, b: Problem) => a.line - b.line || a.column - b.column
  ownProblems.sort(byPosition)
  for (const found of references.problems) documentProblems.push(inDocument(found.position, 'unresolved-reference', found.subject, found.rule))
  documentProblems.sort(byPosition)
  result.problems = [...ownProblems, ...withoutExplained(documentProblems, references.explained)]
  result.warnings.sort(byPosition)
  return result
}
