/**
 * `dsh settings check`: arguments, output lines, exit code.
 * Kept apart from the entry point so tests can run it in process.
 */
import { isAbsolute, relative, resolve } from 'node:path'
import { parseCommand } from '../args.ts'
import { EXIT, type CliIo } from '../io.ts'
import { checkSettings, UsageError, type CheckResult, type Problem } from './check.ts'

export const CHECK_USAGE = `usage: dsh settings check [cordis.yml] [settings.yaml]

Check a settings document against the schemas of the plugins a deployment file
mounts, without starting servers: the plugins run against a read-only in-memory
copy of the document, and dsh-remote and dsh-settings-controller are left out.

  cordis.yml      the deployment file (default: cordis.yml)
  settings.yaml   the document to check (default: the one the deployment's
                  dsh-settings-file entry uses: its path, else settings.yaml
                  under its home, $DSH_HOME or ~/.dsh; not written yet, it is
                  checked as an empty document, each problem at line 1)

References (!secret, !env, !file) are resolved first, as the file provider
resolves them (variables from this process's environment, !secret in the
store the deployment's secrets: names); one that does not resolve is a
problem at its tag [unresolved-reference], naming it and never a value.

Each problem is one line, <file>:<line>:<column>: <what>: <rule> [<code>];
each warning (a key the plugin does not use, a section that would migrate)
is one line, <file>:<line>:<column>: warning: <what>: <rule> [<code>]; then
a summary line. Exit code: 0 no problems (warnings or not), 1 problems,
2 usage error (or a file that cannot be read).`

/** A path as output lines show it: relative to `cwd` when inside it, else absolute. */
export function shownPath(file: string, cwd: string): string {
  const inside = relative(cwd, file)
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : file
}

/** A problem's or a warning's line, its file already shown as it should be. */
function lineOf(item: Problem, file: string, warning: boolean): string {
  return `${file}:${item.line}:${item.column}: ${warning ? 'warning: ' : ''}${item.subject}: ${item.rule} [${item.code}]`
}

/** One problem as one output line: `<file>:<line>:<column>: <subject>: <rule> [<code>]`. */
export function formatProblem(problem: Problem, cwd: string): string {
  return lineOf(problem, shownPath(problem.file, cwd), false)
}

/** One warning as one output line: `<file>:<line>:<column>: warning: <subject>: <rule> [<code>]`. */
export function formatWarning(warning: Problem, cwd: string): string {
  return lineOf(warning, shownPath(warning.file, cwd), true)
}

/** The closing line. */
export function formatSummary(result: CheckResult, cwd: string): string {
  const count = result.problems.length
  const warned = result.warnings.length
  const found = `${count === 0 ? 'no problems' : count === 1 ? '1 problem' : `${count} problems`}${warned === 0 ? '' : warned === 1 ? ', 1 warning' : `, ${warned} warnings`}`
  const scope = result.judged
    ? `namespaces: ${result.namespaces.join(', ') || '(none)'}; scopes: ${result.scopes.join(', ') || '(none)'}`
    : 'the document cannot be read, so nothing else was checked'
  return `settings check: ${found} in ${shownPath(result.document, cwd)} against ${shownPath(result.deployment, cwd)} (${scope})`
}

/** Run `dsh settings check <argv…>` and answer its exit code. */
export async function runCheck(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommand('dsh settings check', argv, io, CHECK_USAGE, {}, { maxPositionals: 2 })
  if ('exit' in parsed) return parsed.exit
  const [deployment = 'cordis.yml', document] = parsed.positionals
  let result: CheckResult
  try {
    result = await checkSettings({ deployment: resolve(io.cwd, deployment), ...(document === undefined ? {} : { document: resolve(io.cwd, document) }), env: io.env, conditions: io.conditions })
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    io.err(`dsh settings check: ${error.message}`)
    return EXIT.USAGE
  }
  // Lines name one or two files: each is shown relative once, not once per line (a large document may have many lines).
  const shown = new Map<string, string>()
  const fileOf = (item: Problem): string => {
    let file = shown.get(item.file)
    if (file === undefined) shown.set(item.file, (file = shownPath(item.file, io.cwd)))
    return file
  }
  for (const problem of result.problems) io.out(lineOf(problem, fileOf(problem), false))
  for (const warning of result.warnings) io.out(lineOf(warning, fileOf(warning), true))
  for (const note of result.notes) io.err(`note: ${note}`)
  io.out(formatSummary(result, io.cwd))
  return result.problems.length ? EXIT.REFUSED : EXIT.OK
}
