/**
 * Search, the "modified" filter and the history view, end to end: a real
 * deployment (file provider keeping versions, controller, remote server)
 * driven by headless chromium, with the same harness as `page.spec.ts`.
 * Screenshots go to `test-results/settings-page/` (`search.png` and
 * `history.png` are the ones the README shows).
 */
import type { Context } from 'cordis'
import { eventually } from 'dsh-testing'
import type { Locator, Page } from 'playwright-core'
import { expect, it } from 'vitest'
import { describeBrowser, pageSecretsScan, readStorage, recordTraffic, runAxe, saveScreenshot, type TrafficRecord } from './harness/browser.ts'
import { serviceOf, startDeployment, type Deployment } from './harness/deployment.ts'
import { expectSecretInStore } from './harness/stored-secrets.ts'
import { useBrowserSession } from './harness/browser-session.ts'
import { ASSISTANT, SEARCH } from './harness/schemas.ts'

const ORIGINAL_SECRET = 'sk-original-history-5e2a'
const HAND_SECRET = 'sk-by-hand-history-9c41'

/** Some fields set, some left to their defaults (so "Modified only" has something to hide), and a scoped section. */
const DOCUMENT = `# my settings
search:
  engine: bing
  limit: 10
  filters:
    region: us
  apiKey: ${ORIGINAL_SECRET}
scopes:
  preset/coder:
    search:
      limit: 25
`

const registerSearch = (ctx: Context) => void ctx.settings.register('search', SEARCH)
const registerAssistant = (ctx: Context) => void ctx.settings.register('assistant', ASSISTANT, { applies: 'restart' })

describeBrowser('search and history in chromium', (executablePath) => {
  let deployment: Deployment | undefined
  let page: Page | undefined
  const session = useBrowserSession(executablePath, async () => {
    await page?.close()
    page = undefined
    await deployment?.dispose()
    deployment = undefined
  })
  const newPage = () => session.newPage()

  /** Boot the deployment and open the page (with `fragment` after the token), recording its traffic from the first request. */
  async function open(fragment = ''): Promise<{ deployment: Deployment; page: Page; traffic: TrafficRecord }> {
    deployment = await startDeployment({ assets: session.assets.dir, document: DOCUMENT, plugins: [registerSearch, registerAssistant], scoped: { 'preset/coder': [registerSearch] } })
    page = await newPage()
    const traffic = recordTraffic(page)
    await page.goto(`${deployment.pageUrl}${fragment}`)
    await live(page)
    return { deployment, page, traffic }
  }

  /** Wait until the page is connected and has read the settings. */
  async function live(page: Page): Promise<void> {
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    await page.getByRole('searchbox', { name: 'Search settings' }).waitFor()
  }

  const section = (page: Page, ns: string): Locator => page.getByRole('region', { name: ns, exact: true })
  const searchBox = (page: Page): Locator => page.getByRole('searchbox', { name: 'Search settings' })
  const modifiedOnly = (page: Page): Locator => page.getByRole('checkbox', { name: 'Modified only' })
  const hash = (page: Page): string => new URL(page.url()).hash
  /** The labels of the fields shown in a section, in order (group legends included). */
  const shownFields = (scope: Locator): Promise<string[]> =>
    scope.locator('.field-label label, legend').evaluateAll((elements) => elements.map((element) => (element.childNodes[0]?.textContent ?? '').trim()))

  /** No secret anywhere the page keeps state or received data. */
  async function expectNoSecrets(page: Page, traffic: TrafficRecord): Promise<void> {
    for (const secret of [ORIGINAL_SECRET, HAND_SECRET]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  }

  it('narrows the fields as you type, keeps the query in the address, and survives a reload', async () => {
    const { page, deployment } = await open()
    await searchBox(page).fill('limit')
    await eventually(async () => expect(await section(page, 'assistant').count()).toBe(0))
    expect(await shownFields(section(page, 'search'))).toEqual(['limit'])
    expect(hash(page)).toBe('#q=limit')
    expect(page.url()).not.toContain('token')
    expect(await page.getByText('Showing 1 of 2 namespaces.').isVisible()).toBe(true)
    expect(await page.getByRole('navigation', { name: 'Namespaces' }).getByRole('link').allTextContents()).toEqual(['search'])
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'search')

    // A description matches too, and a nested field brings its group along.
    await searchBox(page).fill('REGION CODE')
    await eventually(async () => expect(await shownFields(section(page, 'search'))).toEqual(['filters', 'region']))
    // A namespace name shows its whole section.
    await searchBox(page).fill('assist')
    await eventually(async () => expect(await section(page, 'search').count()).toBe(0))
    expect(await shownFields(section(page, 'assistant'))).toEqual(['model', 'providers'])
    expect(hash(page)).toBe('#q=assist')

    // The reload finds its token in the tab's storage and its query in the address.
    await page.reload()
    await live(page)
    expect(await searchBox(page).inputValue()).toBe('assist')
    await section(page, 'assistant').waitFor()
    expect(await section(page, 'search').count()).toBe(0)
    expect(hash(page)).toBe('#q=assist')
    expect((await readStorage(page)).sessionStorage['dsh-settings-token']).toBe(deployment.token)

    // The namespace list moves to a section without touching the query in the address.
    await page.getByRole('button', { name: 'Clear search' }).click()
    await section(page, 'search').waitFor()
    expect(hash(page)).toBe('')
    await searchBox(page).fill('model')
    await page.getByRole('navigation', { name: 'Namespaces' }).getByRole('link', { name: 'assistant' }).click()
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('assistant'))
    expect(hash(page)).toBe('#q=model')
  })

  it('opens filtered from a link that carries the token and the query, and takes the token out of the address', async () => {
    const { page, deployment } = await open('&q=region&modified=1')
    await eventually(async () => expect(hash(page)).toBe('#q=region&modified=1'))
    expect(page.url()).not.toContain(deployment.token)
    expect(await searchBox(page).inputValue()).toBe('region')
    expect(await modifiedOnly(page).isChecked()).toBe(true)
    await eventually(async () => expect(await shownFields(section(page, 'search'))).toEqual(['filters', 'region']))
    expect(await section(page, 'assistant').count()).toBe(0)
  })

  it('shows only what the shown section sets with "Modified only", in the global scope and in a named one', async () => {
    const { page, deployment, traffic } = await open()
    await modifiedOnly(page).check()
    await eventually(async () => expect(await section(page, 'assistant').count()).toBe(0))
    // Set in the file: engine, limit, filters.region and the secret; safe and mirrors are left to their defaults.
    expect(await shownFields(section(page, 'search'))).toEqual(['engine', 'limit', 'filters', 'region', 'apiKey'])
    expect(hash(page)).toBe('#modified=1')
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'search-modified')

    // Setting a field makes it show; the filter and the query combine.
    await searchBox(page).fill('model')
    await page.getByText('Nothing matches “model” among the modified fields.').waitFor()
    await modifiedOnly(page).uncheck()
    const model = section(page, 'assistant').getByLabel('model', { exact: true })
    await model.fill('large')
    await model.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toContain('model: large'))
    await modifiedOnly(page).check()
    await eventually(async () => expect(await shownFields(section(page, 'assistant'))).toEqual(['model']))
    expect(hash(page)).toBe('#q=model&modified=1')

    // In a named scope, "modified" means set by that scope itself.
    await searchBox(page).fill('')
    await page.getByLabel('Scope', { exact: true }).selectOption('preset/coder')
    await eventually(async () => expect(await shownFields(section(page, 'search'))).toEqual(['limit']))
    expect(await page.getByText('Fields this scope sets itself.').isVisible()).toBe(true)
    await expectNoSecrets(page, traffic)
  })

  it('lists an outside edit in the history with its difference, restores an older version, and never shows a secret', async () => {
    const { page, deployment, traffic } = await open()
    const search = section(page, 'search')

    // A write from the page, so the host has a record of what it wrote.
    const limit = search.getByLabel('limit', { exact: true })
    await limit.fill('15')
    await limit.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toContain('limit: 15'))

    // Somebody edits the file by hand: a region, the secret and the scoped limit.
    const byHand = (await deployment.readFile()).replace('region: us', 'region: fr').replace(ORIGINAL_SECRET, HAND_SECRET).replace('limit: 25', 'limit: 30')
    await deployment.writeFile(byHand)
    await eventually(async () => expect(await search.getByLabel('region', { exact: true }).inputValue()).toBe('fr'))

    // Another write from the page replaces the hand-edited file, which is kept as a version.
    await search.getByRole('radio', { name: 'google' }).click()
    await eventually(async () => expect(await deployment.readFile()).toContain('engine: google'))

    await page.getByRole('button', { name: 'History', exact: true }).click()
    const history = page.getByRole('region', { name: 'History', exact: true })
    const versions = history.getByRole('list', { name: 'Kept versions' }).getByRole('button')
    await eventually(async () => expect(await versions.count()).toBe(2))
    expect(await versions.nth(0).textContent()).toContain('by an outside edit')
    expect(await versions.nth(0).textContent()).toContain('Changed: search, search in preset/coder')
    expect(await versions.nth(1).textContent()).toContain('by unknown (no record left)')
    // The history view stands in for the forms.
    expect(await section(page, 'search').count()).toBe(0)

    // The hand-edited version differs from now only by the engine the page set afterwards.
    await versions.nth(0).click()
    const diffOf = (name: string) => history.getByRole('region', { name, exact: true })
    const row = (name: string, field: string) => diffOf(name).getByRole('row').filter({ has: page.getByRole('rowheader', { name: field, exact: true }) })
    const cellsOf = async (name: string, field: string) => (await row(name, field).getByRole('cell').allTextContents()).map((text) => text.trim())
    await eventually(async () => expect(await cellsOf('search', 'engine')).toEqual(['bing', 'google']))
    expect(await diffOf('search').getByRole('row').count()).toBe(2)
    expect(await diffOf('search in preset/coder').count()).toBe(0)
    expect(await versions.nth(0).getAttribute('aria-pressed')).toBe('true')

    // The oldest version shows everything since, the outside edit included, and the secret only as replaced.
    await versions.nth(1).click()
    await eventually(async () => expect(await cellsOf('search', 'limit')).toEqual(['10', '15']))
    expect(await cellsOf('search', 'filters › region')).toEqual(['us', 'fr'])
    expect(await cellsOf('search', 'engine')).toEqual(['bing', 'google'])
    expect(await cellsOf('search', 'apiKey secret')).toEqual(['Set (secret, not shown)', 'Replaced (secret, not shown)'])
    expect(await cellsOf('search in preset/coder', 'limit')).toEqual(['25', '30'])
    await expectNoSecrets(page, traffic)
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'history')

    // One section back, checked against the revision read with the difference: the scoped limit.
    await diffOf('search in preset/coder').getByRole('button', { name: 'Restore this section' }).click()
    await eventually(async () => expect(await deployment.readFile()).toContain('limit: 25'))
    await eventually(async () => expect(await versions.count()).toBe(3))
    expect(await versions.nth(0).textContent()).toContain('by this host (wire)')
    await eventually(async () => expect(await diffOf('search in preset/coder').count()).toBe(0))
    await page.getByText('Restored search in preset/coder from the selected version.').waitFor()

    // The whole version back: its values, its secret, and a new version for the restore itself.
    await history.getByRole('button', { name: 'Restore this version' }).click()
    await eventually(async () => expect(await versions.count()).toBe(4))
    await history.getByText('This version matches the current settings.').waitFor()
    // The version held its secret inline; the restore writes it like any new secret: to secrets.yaml, the reference in the document.
    const text = await deployment.readFile()
    expect(text).toContain('apiKey: !secret search.apiKey')
    expect(text).not.toContain(HAND_SECRET)
    await expectSecretInStore(deployment.file, { ns: 'search', path: ['apiKey'] }, ORIGINAL_SECRET)
    expect((await serviceOf(deployment.root, 'settings')).get('search')).toMatchObject({ apiKey: ORIGINAL_SECRET, limit: 10 })
    const restored = (await deployment.remote.settings.describe()).namespaces.find((view) => view.ns === 'search')!
    expect(restored.value).toMatchObject({ engine: 'bing', limit: 10, filters: { region: 'us' } })
    expect(restored.secrets).toContainEqual(expect.objectContaining({ path: ['apiKey'], set: true, source: 'store', reference: 'search.apiKey' }))
    expect(await versions.nth(0).textContent()).toContain('by this host (wire)')
    expect(await versions.nth(1).getAttribute('aria-pressed')).toBe('false')
    expect(await runAxe(page)).toEqual([])

    // The view fits a 375 px screen in dark mode too.
    await page.setViewportSize({ width: 375, height: 812 })
    await page.emulateMedia({ colorScheme: 'dark' })
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0)
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'history-narrow-dark')
    await page.setViewportSize({ width: 1280, height: 720 })
    await page.emulateMedia({ colorScheme: 'light' })

    // Back to the forms, which took the restored values through the event stream.
    await page.getByRole('button', { name: 'History', exact: true }).click()
    await eventually(async () => expect(await section(page, 'search').getByLabel('limit', { exact: true }).inputValue()).toBe('10'))
    expect(await section(page, 'search').getByRole('radio', { name: 'bing' }).isChecked()).toBe(true)
    await expectNoSecrets(page, traffic)
    expect(traffic.urls.some((url) => url.endsWith('/remote/settings/compare'))).toBe(true)
    expect(traffic.urls.some((url) => url.endsWith('/remote/settings/restore'))).toBe(true)
  })

  it('pages back through the history with "Load more"', async () => {
    const { page, deployment } = await open()
    for (let limit = 1; limit <= 22; limit++) await deployment.remote.settings.update('search', { limit }, null)
    await page.getByRole('button', { name: 'History', exact: true }).click()
    const versions = page.getByRole('list', { name: 'Kept versions' }).getByRole('button')
    await eventually(async () => expect(await versions.count()).toBe(20))
    await page.getByRole('button', { name: 'Load more' }).click()
    await eventually(async () => expect(await versions.count()).toBe(22))
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0)
  })
})
