/**
 * The browser half of the settings page's end-to-end tests: `describeBrowser`
 * (skip or fail without chromium) here, everything else from `dsh-testing/browser`.
 */
import { describe, it } from 'vitest'
import { browserSupport, missingBrowserMessage } from 'dsh-testing/browser'

export * from 'dsh-testing/browser'

/** A timeout for `beforeAll` hooks that build the page and launch the browser (vitest's default of 10 s is tight under load). */
export const BROWSER_HOOK_TIMEOUT_MS = 60_000

/**
 * `describe(name, …)` for tests that need chromium; `fn` gets its path.
 * Without chromium the block is skipped (the run's global setup prints the
 * one loud line saying so), unless
 * `DSH_REQUIRE_BROWSER=1`, in which case a failing test says what to install.
 * When skipped, `fn` still runs to register the (skipped) tests, with an empty
 * path: only use the path inside hooks and tests, which never run then.
 */
export function describeBrowser(name: string, fn: (executablePath: string) => void, env: NodeJS.ProcessEnv = process.env): void {
  const support = browserSupport(env)
  if (support.path === undefined && support.required) {
    const message = missingBrowserMessage(support.reason)
    describe(name, () => {
      it('has a chromium to run in', () => {
        throw new Error(message)
      })
    })
    return
  }
  // The one sanctioned skip: no browser on a machine that did not ask for one.
  // The run's global setup (announce.ts) has already printed the one line saying so.
  describe.skipIf(support.path === undefined)(name, () => fn(support.path ?? ''))
}

