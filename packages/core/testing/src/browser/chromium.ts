/**
 * Whether the browser tests can run on this machine: where Debian's chromium
 * is, and what to say when it is missing. No vitest imports, so the run's
 * global setup can use it to print the one skip line.
 */
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** What to install when chromium is missing, quoted by every message that says so. */
export const INSTALL_HINT = "install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH"

/** Whether `path` is a regular file (or a link to one) this process may execute. */
function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The first `chromium` executable in the `PATH` directories, in order. */
function chromiumOnPath(pathList: string | undefined): string | undefined {
  for (const directory of (pathList ?? '').split(delimiter)) {
    if (!directory) continue
    const candidate = join(directory, 'chromium')
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

/**
 * Where chromium is: `CHROMIUM_PATH` when it is set (and only if it names an
 * executable file; a wrong one is not papered over by a `PATH` match), else the
 * first `chromium` in a `PATH` directory. Nothing is run and no shell is used.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CHROMIUM_PATH) return isExecutableFile(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : undefined
  return chromiumOnPath(env.PATH)
}

/** Whether browser tests can run here: the chromium path, or why not and whether that must fail the run. */
export type BrowserSupport = { path: string } | { path: undefined; required: boolean; reason: string }

/**
 * Look for chromium and read `DSH_REQUIRE_BROWSER`. Call it from a spec (for
 * example `const support = browserSupport()`) rather than keeping the answer in
 * module state.
 */
export function browserSupport(env: NodeJS.ProcessEnv = process.env): BrowserSupport {
  const path = findChromium(env)
  if (path !== undefined) return { path }
  const reason = env.CHROMIUM_PATH ? `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file` : 'no chromium found on PATH'
  return { path: undefined, required: env.DSH_REQUIRE_BROWSER === '1', reason }
}

/** The failure a run that requires the browser reports when it has none. */
export function missingBrowserMessage(reason: string): string {
  return `DSH_REQUIRE_BROWSER=1 but no chromium: ${INSTALL_HINT} (${reason})`
}

/** The one line a run without chromium prints, saying how to get the browser tests back. */
export function skipLine(reason: string): string {
  return `SKIPPED the settings page's browser tests: ${reason}; ${INSTALL_HINT}`
}
