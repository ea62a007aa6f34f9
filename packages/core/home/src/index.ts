import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Expand a leading `~` to the user's home directory. */
export function expandHome(path: string): string {
  if (path === '~') return homedir()
  if (path.startsWith('~/') || path.startsWith('~\\')) return join(homedir(), path.slice(2))
  return path
}

/** The deployment's settings home: `home` if given, else a non-blank `$DSH_HOME`, else `~/.dsh`. */
export function resolveHome(home: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = home?.trim() || env.DSH_HOME?.trim() || '~/.dsh'
  return resolve(expandHome(chosen))
}

/** The absolute document path: `path` if given, else `settings.yaml` under the home. */
export function resolveDocumentPath(path: string | undefined, home: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (path?.trim()) return resolve(expandHome(path.trim()))
  return join(resolveHome(home, env), 'settings.yaml')
}

export { readOwnFile, type OwnFileRead, type OwnFileRefusal } from './own-file.ts'
