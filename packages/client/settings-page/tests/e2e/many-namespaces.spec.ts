/**
 * The page with 1,000 namespaces, in chromium (issue 34). One deployment for
 * the file: 1,000 plugins' namespaces, each with a schema object of its own.
 *
 * What these tests prove: the namespace list is a scroll container of its own
 * (sticky, no taller than the viewport) that scrolls to the link of a section
 * jumped to, marks the section at the top of the viewport `aria-current` and
 * keeps that link in its view while the page scrolls; a save reads no
 * `describe` (its answer is the section's view; an outside change made after
 * it is read with a describe of that one namespace, so the page did hear the
 * save's events first); clearing a search shows every section again, the same
 * elements as before (a draft typed before the search is still there).
 */
import type { Context } from 'cordis'
import { eventually } from 'dsh-testing'
import type { Locator, Page } from 'playwright-core'
import Schema from 'schemastery'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BROWSER_HOOK_TIMEOUT_MS, describeBrowser } from './harness/browser.ts'
import { useBrowserSession } from './harness/browser-session.ts'
import { serviceOf, startDeployment, type Deployment } from './harness/deployment.ts'

const COUNT = 1000
const names = Array.from({ length: COUNT }, (_, index) => `plugin-${String(index).padStart(3, '0')}`)

/** One plugin's schema, built anew for each namespace as each plugin builds its own. */
const pluginSchema = () =>
  Schema.object({
    limit: Schema.natural().max(1000).default(10).description('Results per query.'),
    label: Schema.string().default(''),
    enabled: Schema.boolean().default(true),
  })

const registerAll = (ctx: Context) => names.forEach((ns) => void ctx.settings.register(ns, pluginSchema()))

describeBrowser('the page with 1,000 namespaces, in chromium', (executablePath) => {
  let deployment: Deployment
  let page: Page | undefined
  const session = useBrowserSession(executablePath, async () => {
    await page?.close()
    page = undefined
  })

  beforeAll(async () => {
    deployment = await startDeployment({ assets: session.assets.dir, plugins: [registerAll] })
  }, BROWSER_HOOK_TIMEOUT_MS)
  afterAll(() => deployment?.dispose())

  /** Open the page with every describe request it sends recorded (their bodies). */
  async function open(): Promise<{ page: Page; describes: string[] }> {
    const opened = (page = await session.newPage())
    const describes: string[] = []
    opened.on('request', (request) => {
      if (request.url().endsWith('/remote/settings/describe')) describes.push(request.postData() ?? '')
    })
    await opened.goto(deployment.pageUrl)
    await opened.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    await region(opened, names[0]!).waitFor()
    return { page: opened, describes }
  }

  const region = (on: Page, ns: string): Locator => on.getByRole('region', { name: ns, exact: true })
  const nav = (on: Page): Locator => on.getByRole('navigation', { name: 'Namespaces' })
  /** The namespace whose link the list marks as current. */
  const current = (on: Page) => nav(on).locator('a[aria-current]').textContent()
  /** Whether the current link lies inside the list's visible box. */
  const currentInListView = (on: Page) =>
    nav(on).evaluate((list) => {
      const link = list.querySelector('a[aria-current]')
      if (!link) return false
      const outer = list.getBoundingClientRect()
      const inner = link.getBoundingClientRect()
      return inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1
    })
  /** The namespace of the last section whose top is at or above the viewport's top edge (plus a few pixels). */
  const sectionAtTop = (on: Page) =>
    on.evaluate(() => {
      const slots = Array.from(document.querySelectorAll<HTMLElement>('.section-slot:not([hidden])'))
      const above = slots.filter((slot) => slot.getBoundingClientRect().top <= 8)
      return (above.at(-1) ?? slots[0])?.dataset.ns
    })

  it('scrolls its namespace list on its own and follows the section in view', async () => {
    const { page } = await open()
    expect(await nav(page).getByRole('link').count()).toBe(COUNT)
    const box = await nav(page).evaluate((list) => ({
      position: getComputedStyle(list).position,
      overflow: getComputedStyle(list).overflowY,
      height: list.getBoundingClientRect().height,
      viewport: window.innerHeight,
      scrollable: list.scrollHeight > list.clientHeight,
    }))
    expect(box).toMatchObject({ position: 'sticky', overflow: 'auto', scrollable: true })
    expect(box.height).toBeLessThanOrEqual(box.viewport)
    expect(await current(page)).toBe(names[0])

    // A section far down, reached through the list: the section comes into view, its link is current and in the list's view.
    await nav(page).getByRole('link', { name: 'plugin-600', exact: true }).click()
    await eventually(async () => expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('plugin-600'))
    await eventually(async () => expect(await current(page)).toBe(await sectionAtTop(page)))
    expect(await currentInListView(page)).toBe(true)
    const listTop = await nav(page).evaluate((list) => list.scrollTop)
    expect(listTop).toBeGreaterThan(0)

    // Scrolling the page by hand: the list follows.
    await page.mouse.move(900, 400)
    await page.mouse.wheel(0, 6000)
    await eventually(async () => {
      const top = await sectionAtTop(page)
      expect(top).not.toBe('plugin-600')
      expect(await current(page)).toBe(top)
    })
    expect(await currentInListView(page)).toBe(true)
    expect(await nav(page).evaluate((list) => list.scrollTop)).toBeGreaterThan(listTop)
  })

  it('saves a field with no describe request; a later outside change reads its one namespace', async () => {
    const { page, describes } = await open()
    expect(describes).toEqual(['{"args":[]}'])
    const settings = await serviceOf(deployment.root, 'settings')
    const limit = region(page, 'plugin-000').getByLabel('limit', { exact: true })
    const value = 100 + Math.floor(Math.random() * 800)
    await limit.fill(String(value))
    await limit.press('Enter')
    await eventually(() => expect(settings.get('plugin-000')).toMatchObject({ limit: value }))
    await eventually(async () => expect(await region(page, 'plugin-000').getAttribute('aria-busy')).toBe('false'))
    // The stream carries the save's events before this change's: once the page shows this change, it has heard them.
    await settings.update('plugin-001', { label: 'outside' })
    await eventually(async () => expect(await region(page, 'plugin-001').getByLabel('label', { exact: true }).inputValue()).toBe('outside'))
    expect(describes).toEqual(['{"args":[]}', '{"args":[null,["plugin-001"]]}'])
    expect(await limit.inputValue()).toBe(String(value))
  })

  it('shows every section again when a search is cleared, the same elements, a draft still in its field', async () => {
    const { page } = await open()
    const label = region(page, 'plugin-002').getByLabel('label', { exact: true })
    await label.fill('typed, not sent')
    await page.evaluate(() => void ((document.getElementById('f-plugin-002') as HTMLElement & { kept?: true }).kept = true))

    await page.getByRole('searchbox', { name: 'Search settings' }).fill('plugin-01')
    await page.getByText('Showing 10 of 1,000 namespaces.').waitFor()
    expect(await nav(page).getByRole('link').count()).toBe(10)
    expect(await region(page, 'plugin-002').count()).toBe(0)

    await page.getByRole('button', { name: 'Clear search' }).click()
    await eventually(async () => expect(await nav(page).getByRole('link').count()).toBe(COUNT))
    expect(await page.locator('.section-slot[hidden]').count()).toBe(0)
    expect(await page.locator('.section-slot').count()).toBe(COUNT)
    expect(await label.inputValue()).toBe('typed, not sent')
    expect(await page.evaluate(() => (document.getElementById('f-plugin-002') as HTMLElement & { kept?: true }).kept)).toBe(true)
  })
})
