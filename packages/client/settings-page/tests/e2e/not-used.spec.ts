/**
 * Keys the plugin does not use, and a migrated section, in chromium: the
 * section lists the stored keys its schema does not declare (paths only,
 * never values) with a remove action that sends one path op, and says that
 * the section was migrated from an older version, with the step names; the
 * history view shows the migration as a version change.
 */
import type { Context } from 'cordis'
import { eventually } from 'dsh-testing'
import type { Locator, Page } from 'playwright-core'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { describeBrowser, pageSecretsScan, recordTraffic, runAxe, saveScreenshot, type TrafficRecord } from './harness/browser.ts'
import { startDeployment, type Deployment } from './harness/deployment.ts'
import { useBrowserSession } from './harness/browser-session.ts'

const RENAMED_SECRET = 'sk-renamed-e2e-71c0b3'
const TYPED_SECRET = 'sk-typed-by-hand-e2e-4a9d'
const SCOPED_LEFTOVER = 'leftover-scoped-value-83f1'

/** Version 1 of the plugin: `apiKey` became `token`. */
const SEARCH = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing').description('Search engine.'),
  limit: Schema.natural().max(50).default(10),
  token: Schema.string().role('secret').description('API token.'),
}).description('Web search.')

/** Written for version 0, plus a key typed by hand (`apikey`) and one an older version used (`legacy`). */
const DOCUMENT = `# my settings
search:
  engine: google # hand-picked
  apiKey: ${RENAMED_SECRET}
  apikey: ${TYPED_SECRET}
  legacy:
    deep: 1
scopes:
  preset/coder:
    search:
      limit: 25
      proxy: ${SCOPED_LEFTOVER}
`

const registerSearch = (ctx: Context) => void ctx.settings.register('search', SEARCH, { version: 1, migrations: [{ op: 'move', from: 'apiKey', to: 'token' }] })

describeBrowser('keys not used by the plugin, and migrations, in chromium', (executablePath) => {
  let deployment: Deployment | undefined
  let page: Page | undefined
  const session = useBrowserSession(executablePath, async () => {
    await page?.close()
    page = undefined
    await deployment?.dispose()
    deployment = undefined
  })

  /** Boot the deployment, wait until the migration was written back, and open the page with its traffic recorded. */
  async function open(): Promise<{ deployment: Deployment; page: Page; traffic: TrafficRecord }> {
    deployment = await startDeployment({ assets: session.assets.dir, document: DOCUMENT, plugins: [registerSearch], scoped: { 'preset/coder': [registerSearch] } })
    await eventually(async () => expect((await deployment!.readFile()).match(/\$version: 1/g)).toHaveLength(2))
    page = await session.newPage()
    const traffic = recordTraffic(page)
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    await section(page).waitFor()
    return { deployment, page, traffic }
  }

  const section = (page: Page): Locator => page.getByRole('region', { name: 'search', exact: true })
  const notUsed = (page: Page): Locator => section(page).getByRole('region', { name: 'Not used by this plugin' })

  it('lists the keys the plugin does not use without their values, and removes one with a path op that touches nothing else', async () => {
    const { deployment, page, traffic } = await open()
    const list = notUsed(page)
    expect(await list.getByRole('listitem').allTextContents()).toEqual(['apikeyRemove', 'legacyRemove'])
    expect(await section(page).getByText('Migrated from version 0 to version 1 (rename apiKey to token).', { exact: false }).isVisible()).toBe(true)
    await saveScreenshot(page, 'not-used')
    expect(await runAxe(page)).toEqual([])

    const before = await deployment.readFile()
    expect(before).toContain(`apikey: ${TYPED_SECRET}`)
    await list.getByRole('button', { name: 'Remove apikey' }).click()
    await page.getByText('Saved search.').waitFor()
    expect(await deployment.readFile()).toBe(before.replace(`  apikey: ${TYPED_SECRET}\n`, ''))
    await eventually(async () => expect(await list.getByRole('listitem').allTextContents()).toEqual(['legacyRemove']))
    await list.getByRole('button', { name: 'Remove legacy' }).click()
    await eventually(async () => expect(await notUsed(page).count()).toBe(0))
    expect(await deployment.readFile()).toBe(before.replace(`  apikey: ${TYPED_SECRET}\n`, '').replace('  legacy:\n    deep: 1\n', ''))
    // The renamed secret is still set, under its new name; no value of any of them reached the page.
    expect(await section(page).getByText('Set, set in the settings file').isVisible()).toBe(true)
    for (const secret of [RENAMED_SECRET, TYPED_SECRET, SCOPED_LEFTOVER]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  })

  it('in a named scope, removes the scope\'s own leftovers and points at the global ones', async () => {
    const { deployment, page, traffic } = await open()
    await page.getByLabel('Scope', { exact: true }).selectOption('preset/coder')
    const list = notUsed(page)
    await list.getByText('proxy').waitFor()
    const items = await list.getByRole('listitem').allTextContents()
    expect(items).toEqual(['apikeyin the global settings; remove it there', 'legacyin the global settings; remove it there', 'proxyRemove'])
    expect(await list.getByRole('button').count()).toBe(1)
    const before = await deployment.readFile()
    await list.getByRole('button', { name: 'Remove proxy' }).click()
    await eventually(async () => expect(await deployment.readFile()).toBe(before.replace(`      proxy: ${SCOPED_LEFTOVER}\n`, '')))
    await eventually(async () => expect(await list.getByRole('button').count()).toBe(0))
    for (const secret of [RENAMED_SECRET, TYPED_SECRET, SCOPED_LEFTOVER]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  })

  it('shows the migration in the history as a version change with its step', async () => {
    const { page, traffic } = await open()
    await page.getByRole('button', { name: 'History' }).click()
    const versions = page.getByRole('list', { name: 'Kept versions' })
    await versions.getByRole('button').first().click()
    const difference = page.locator('.diff-section').filter({ hasText: 'search' }).first()
    // Worded by the page from the step's data (the host's English name would read `rename $.apiKey to $.token`).
    await difference.getByText('Migrated from version 0 to version 1: rename apiKey to token.').waitFor()
    expect(await difference.getByRole('row', { name: /apiKey/ }).textContent()).toContain('not used by this plugin')
    for (const secret of [RENAMED_SECRET, TYPED_SECRET]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  })
})
