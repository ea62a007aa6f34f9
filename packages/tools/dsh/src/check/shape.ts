/**
 * The shape `dsh settings check` asks of a settings document, apart from its
 * sections' contents: top-level and scoped keys that are namespaces some plugin
 * of the deployment registers, a `scopes` that is a map, scope ids of the form
 * `<kind>/<id>`. Found in the parsed data; positions are added by the caller.
 */
import { SCOPE_ID_PATTERN } from 'dsh-scope'
import { NAMESPACE_PATTERN, RESERVED_NAMESPACES, SCOPES_KEY } from 'dsh-settings'
import { isPlainObject } from 'dsh-settings/data'
import type { ProblemCode } from './check.ts'
import type { Target } from './positions.ts'

/** A key as messages show it: quoted, and cut short (a key is the user's text, and may be long). */
function shownKey(key: string): string {
  return JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}…` : key)
}

/** `web-search` or `web-search in preset/coder`. */
export function sectionSubject(ns: string, scope: string | undefined): string {
  return scope === undefined ? ns : `${ns} in ${scope}`
}

/** A problem before it has a position: where in the document's data it points. */
export interface Located {
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
export function shapeProblems(data: Record<string, unknown>, known: ReadonlySet<string>): Located[] {
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
export function documentScopes(data: Record<string, unknown>): string[] {
  const scopes = data[SCOPES_KEY]
  return isPlainObject(scopes) ? Object.keys(scopes).filter((scope) => SCOPE_ID_PATTERN.test(scope) && isPlainObject(scopes[scope])) : []
}
