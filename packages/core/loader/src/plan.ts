import { parse } from 'yaml'
import { DeploymentError, type Entry } from './entries.ts'
import { planData } from './plan-data.ts'

export { DeploymentError, type Entry, type PluginEntry, type ScopeEntry } from './entries.ts'
export { planData, planEntries } from './plan-data.ts'

/**
 * Parse a deployment file's text into its entries: a map with a `plugins:`
 * key (ours), or a list of entries (cordis 4's own form, see `list-form.ts`).
 * @throws {DeploymentError} for unparsable YAML (with its position) or a malformed layout.
 */
export function planDeployment(text: string, env: NodeJS.ProcessEnv = process.env): Entry[] {
  let data: unknown
  try {
    data = parse(text) ?? {}
  } catch (error) {
    // The position only: yaml's own message quotes the source line.
    const position = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0]
    const code = (error as { code?: string }).code
    throw new DeploymentError(`the deployment file is not valid YAML${position ? ` at line ${position.line}, column ${position.col}` : ''}${code ? ` (${code})` : ''}`)
  }
  return planData(data, env)
}
