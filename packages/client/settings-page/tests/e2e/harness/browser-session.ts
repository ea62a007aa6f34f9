import type { Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, expect } from 'vitest'
import { launchBrowser, type LaunchedBrowser, type LaunchOptions } from './browser.ts'
import { buildAssets, type BuiltAssets, type Deployment } from './deployment.ts'

/** What a browser spec gets from {@link useBrowserSession}. */
export interface BrowserSession {
  /** The built page, served by each test's deployment. */
  readonly assets: BuiltAssets
  /** A new page that records its script and console errors; each test must end with none. */
  newPage(): Promise<Page>
}

/**
 * The hooks every chromium spec of the page needs, inside its `describeBrowser`
 * block: the page built and the browser launched once, a check after each test
 * that its pages logged no script or console error (a CSP refusal shows up
 * there), then `endTest` (close the test's page, dispose its deployment).
 * `launch` is handed to `launchBrowser` (the browser's language, for one).
 */
export function useBrowserSession(executablePath: string, endTest: () => Promise<void>, launch: LaunchOptions = {}): BrowserSession {
  let assets: BuiltAssets | undefined
  let browser: LaunchedBrowser | undefined
  let problems: string[] = []

  beforeAll(async () => {
    assets = await buildAssets()
    browser = await launchBrowser(executablePath, launch)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await assets?.remove()
  })

  afterEach(async () => {
    const seen = problems
    problems = []
    expect(seen).toEqual([])
  })

  afterEach(endTest)

  return {
    get assets() {
      if (!assets) throw new Error('the page is built in beforeAll')
      return assets
    },
    async newPage() {
      const opened = await browser!.context.newPage()
      opened.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      opened.on('console', (message) => {
        // Refused calls (409, 422, …) are logged by chromium as failed loads; the page handles them.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`)
      })
      return opened
    },
  }
}

/** The page and the deployment one test opened; both are closed after it. */
export interface TestSlots {
  page?: Page | undefined
  deployment?: Deployment | undefined
}

/**
 * {@link useBrowserSession} for the usual spec: each test puts what it opens in
 * `slots`, and after it the page is closed and the deployment disposed.
 * `launch` is handed to `launchBrowser`, as for {@link useBrowserSession}.
 */
export function useDeploymentSession(executablePath: string, launch: LaunchOptions = {}): { session: BrowserSession; slots: TestSlots } {
  const slots: TestSlots = {}
  const session = useBrowserSession(executablePath, async () => {
    await slots.page?.close()
    slots.page = undefined
    await slots.deployment?.dispose()
    slots.deployment = undefined
  }, launch)
  return { session, slots }
}
