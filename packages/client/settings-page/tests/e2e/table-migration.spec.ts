/**
 * `role('table')` lists and dicts of objects, and migration steps in the page's
 * language, in chromium.
 *
 * What these tests prove: a list and a dict of objects laid out as a table are
 * real `<table>`s, named by a caption, with a header row of the item's field
 * labels (and row headers: the item's number, the entry's key), one row per
 * item, a control in each cell that a screen reader names by column and row;
 * an edit typed in a cell lands in the settings file and nowhere else; the
 * controls are reached by Tab in row order; at 375 px the table scrolls
 * sideways inside its own box while the page does not; axe finds nothing
 * serious. A migrated section says its steps in Chinese on the zh-CN page
 * (move, drop, an old default, a function) and in English on the en-US page.
 */
import type { Context } from 'cordis'
import { eventually } from 'dsh-testing'
import type { Locator, Page } from 'playwright-core'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { messagesOf } from '../../src/app/i18n.ts'
import { describeBrowser, runAxe, saveScreenshot } from './harness/browser.ts'
import { useDeploymentSession } from './harness/browser-session.ts'
import { startDeployment, type Deployment } from './harness/deployment.ts'
import { readSecretStore } from './harness/stored-secrets.ts'

const en = messagesOf('en-US')
const zh = messagesOf('zh-CN')

const Mirror = Schema.object({
  url: Schema.string().role('link').description('Where the mirror answers.'),
  weight: Schema.natural().default(1),
  token: Schema.string().role('secret'),
})
const Routes = Schema.object({
  mirrors: Schema.array(Mirror).role('table').default([]),
  headers: Schema.dict(Schema.object({ value: Schema.string(), secure: Schema.boolean().default(false) })).role('table').default({}),
})

const ROUTES_DOCUMENT = `routes:
  mirrors:
    - url: https://a.example
      weight: 2
      token: mirror-token-TABLE
    - url: https://b.example
  headers:
    x-trace:
      value: "on"
`

/** A plugin at version 2 of its settings: a declarative step (a move, a drop, an old default) and a function. */
function splitHost(section: Record<string, any>) {
  const [host, port] = String(section.server?.host ?? '').split(':')
  if (port) section.server = { ...section.server, host, port: Number(port) }
  return section
}
const Server = Schema.object({
  token: Schema.string().role('secret'),
  server: Schema.object({ host: Schema.string().default('localhost'), port: Schema.natural().default(80) }),
  retries: Schema.natural().default(3),
})
const registerServer = (ctx: Context) =>
  void ctx.settings.register('server', Server, {
    version: 2,
    migrations: [[{ op: 'move', from: 'apiKey', to: 'token' }, { op: 'move', from: 'host', to: ['server', 'host'] }, { op: 'drop', path: 'legacy' }, { op: 'default', path: 'retries', value: 5 }], splitHost],
  })
const SERVER_DOCUMENT = `server:
  apiKey: sk-migrated-SECRET
  host: example.org:8080
  legacy: true
`

describeBrowser('tables and migration steps in chromium', (executablePath) => {
  const { session, slots } = useDeploymentSession(executablePath)

  async function open(document: string, plugin: (ctx: Context) => void, ns: string): Promise<{ deployment: Deployment; page: Page; region: Locator }> {
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document, plugins: [plugin] }))
    const page = (slots.page = await session.newPage())
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    const region = page.getByRole('region', { name: ns, exact: true })
    await region.waitFor()
    return { deployment, page, region }
  }

  /** Each row of a table as the text of its cells (header row first). */
  const rowsOf = (table: Locator) => table.locator('tr').evaluateAll((rows) => rows.map((row) => Array.from(row.children).map((cell) => (cell.tagName === 'TH' ? `${cell.getAttribute('scope')}:` : '') + (cell.firstChild?.textContent ?? '').trim())))

  it('lays a list and a dict of objects out as tables, and an edit in a cell lands in the file', async () => {
    const { deployment, page, region } = await open(ROUTES_DOCUMENT, (ctx) => void ctx.settings.register('routes', Routes), 'routes')
    const mirrors = region.getByRole('table', { name: 'mirrors' })
    const headers = region.getByRole('table', { name: 'headers' })
    const mirrorRows = await rowsOf(mirrors)
    expect(mirrorRows[0]).toEqual(['col:Item', 'col:url', 'col:weight', 'col:token', 'col:Actions'])
    expect(mirrorRows.slice(1).map((row) => row[0])).toEqual(['row:1', 'row:2'])
    expect((await rowsOf(headers))[0]).toEqual(['col:Key', 'col:value', 'col:secure', 'col:Actions'])
    expect(await headers.getByRole('rowheader').allTextContents()).toEqual(['x-trace'])
    // A cell's control is named by its column and its row.
    const weight = mirrors.getByRole('spinbutton', { name: 'weight of mirrors item 2' })
    expect(await weight.inputValue()).toBe('1')
    expect(await mirrors.getByRole('textbox', { name: 'url of mirrors item 1' }).inputValue()).toBe('https://a.example')
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'table')

    const before = await deployment.readFile()
    await weight.fill('7')
    await weight.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toBe(before.replace('    - url: https://b.example\n', '    - url: https://b.example\n      weight: 7\n')))
    // The inline token of the first row was not written, so it stays where it is: nothing went to the secret store.
    expect((await readSecretStore(deployment.file)).exists).toBe(false)
    // A toggle sends on change; the box shows the answer once it is back.
    await headers.getByRole('checkbox', { name: 'secure of x-trace' }).click()
    await eventually(async () => expect(await deployment.readFile()).toContain('      secure: true'))
  })

  it('reaches the cells by Tab in row order, and scrolls a wide table inside its own box at 375 px', async () => {
    const { page, region } = await open(ROUTES_DOCUMENT, (ctx) => void ctx.settings.register('routes', Routes), 'routes')
    const mirrors = region.getByRole('table', { name: 'mirrors' })
    await mirrors.getByRole('textbox', { name: 'url of mirrors item 1' }).focus()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent)).toBe('weight of mirrors item 1')

    await page.setViewportSize({ width: 375, height: 800 })
    const wrap = region.getByRole('region', { name: 'mirrors' })
    await eventually(async () => expect(await wrap.evaluate((box) => box.scrollWidth > box.clientWidth)).toBe(true))
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await wrap.focus()
    await page.keyboard.press('ArrowRight')
    await eventually(async () => expect(await wrap.evaluate((box) => box.scrollLeft)).toBeGreaterThan(0))
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'table-375')
  })

  it('says a migration’s steps in Chinese on the zh-CN page, and in English on the en-US page', async () => {
    const { deployment, page, region } = await open(SERVER_DOCUMENT, registerServer, 'server')
    await eventually(async () => expect(await deployment.readFile()).toContain('$version: 2'))
    await page.reload()
    await region.waitFor()
    const english = 'Migrated from version 0 to version 2 (rename apiKey to token, move host to server › host, remove legacy, keep the earlier default of retries; run splitHost).'
    await region.getByText(english).waitFor()

    await page.getByRole('combobox', { name: en.language }).selectOption('zh-CN')
    const chinese = '已从版本 0 迁移到版本 2（将 apiKey 重命名为 token，将 host 移至 server › host，删除 legacy，为 retries 保留此前的默认值；运行 splitHost）。'
    await region.getByText(chinese).waitFor()
    expect(await region.getByText(english).count()).toBe(0)
    expect(zh.migrationSteps(['x'])).toBe('（x）')
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'migration-zh-CN')
  })
})
