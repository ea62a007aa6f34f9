/**
 * The settings page end to end: a real deployment (file provider on a temp
 * document, controller, remote server on port 0 serving the built page) driven
 * by headless chromium. Screenshots of the main states go to
 * `test-results/settings-page/`.
 */
import type { Context } from 'cordis'
import { stat } from 'node:fs/promises'
import { eventually } from 'dsh-testing'
import type { Locator, Page } from 'playwright-core'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { describeBrowser, pageSecretsScan, recordTraffic, readStorage, runAxe, saveScreenshot } from './harness/browser.ts'
import { serviceOf, startDeployment, type Deployment } from './harness/deployment.ts'
import { expectNotKept, expectSecretInStore, readSecretStore } from './harness/stored-secrets.ts'
import { useBrowserSession } from './harness/browser-session.ts'
import { ASSISTANT, SEARCH } from './harness/schemas.ts'

/** One field of every kind the page renders, for the walk through all controls. */
const KINDS = Schema.object({
  notes: Schema.string().role('textarea').description('Free text.'),
  homepage: Schema.string().role('link'),
  ratio: Schema.percent().default(0.5),
  level: Schema.number().role('slider').min(0).max(10).step(1).default(3),
  mode: Schema.const('fixed'),
  color: Schema.union(['red', 'green', 'blue', 'black']).default('red'),
  point: Schema.tuple([Schema.number(), Schema.number()]).default([1, 2]),
  tags: Schema.array(Schema.string()).default([]),
  headers: Schema.dict(Schema.string()).default({}),
})

const KINDS_DOCUMENT = `kinds:
  tags: [a, b]
  headers:
    x-one: "1"
`

const ORIGINAL_SECRET = 'sk-original-4f1c9e'
const MIRROR_SECRET = 'mirror-token-77ab'

/** The document every test starts from: comments, odd spacing and a scoped section, to check byte stability. */
const DOCUMENT = `# my settings
search:
  engine: bing   # the default engine
  limit: 10
  filters:
    safe: true
    region: us  # keep
  apiKey: ${ORIGINAL_SECRET}
  mirrors:
    - url: https://a.example
      token: ${MIRROR_SECRET}
scopes:
  preset/coder:
    search:
      limit: 25 # coder wants more
`

/** Only the server knows this rule, so the page must show its refusal. */
const noRegionXx = (value: { filters: { region: string } }) => {
  if (value.filters.region === 'xx') throw new Error('region xx is not served')
}
const registerSearch = (ctx: Context) => void ctx.settings.register('search', SEARCH, { validate: noRegionXx })
const registerAssistant = (ctx: Context) => void ctx.settings.register('assistant', ASSISTANT, { applies: 'restart' })

describeBrowser('the settings page in chromium', (executablePath) => {
  let deployment: Deployment | undefined
  let page: Page | undefined
  const session = useBrowserSession(executablePath, async () => {
    await page?.close()
    page = undefined
    await deployment?.dispose()
    deployment = undefined
  })
  const newPage = () => session.newPage()

  /** Boot the deployment (secrets written to `secrets`, `secrets.yaml` by default) and open the page on it, waiting until the forms and the event stream are up. */
  async function open(document = DOCUMENT, opener: string[] | false = false, secrets: 'file' | 'inline' = 'file'): Promise<{ deployment: Deployment; page: Page }> {
    deployment = await startDeployment({ assets: session.assets.dir, document, opener, secrets, plugins: [registerSearch, registerAssistant], scoped: { 'preset/coder': [registerSearch] } })
    page = await newPage()
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    await section(page, 'search').waitFor()
    return { deployment, page }
  }

  const section = (page: Page, ns: string): Locator => page.getByRole('region', { name: ns, exact: true })
  // A group's name is its legend: the key, then the marks the field carries.
  const group = (scope: Locator, name: string): Locator => scope.getByRole('group', { name: new RegExp(`^${name}(\\s+(modified|required|set in this scope))*$`) })

  async function showScope(page: Page, scope: string): Promise<void> {
    await page.getByLabel('Scope', { exact: true }).selectOption(scope)
    await section(page, 'search').getByText('Inherited:', { exact: false }).first().waitFor()
  }

  it('clears the token from the address bar, keeps it for the tab, and shows every namespace', async () => {
    const { page, deployment } = await open()
    expect(page.url()).not.toContain('token')
    expect((await readStorage(page)).sessionStorage['dsh-settings-token']).toBe(deployment.token)
    expect(await section(page, 'assistant').getByText('Applies after restart').isVisible()).toBe(true)
    expect(await section(page, 'search').getByText('Web search.').isVisible()).toBe(true)
    await saveScreenshot(page, 'global-light')
  })

  it('edits a nested field and the YAML changes only there', async () => {
    const { page, deployment } = await open()
    const region = group(section(page, 'search'), 'filters').getByLabel('region', { exact: true })
    await region.fill('eu')
    await region.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toBe(DOCUMENT.replace('region: us  # keep', 'region: eu  # keep')))
    await page.getByText('Saved search.').waitFor()
    expect(await region.inputValue()).toBe('eu')
    // The write left the inline secrets alone: nothing went to the secret store.
    expect((await readSecretStore(deployment.file)).exists).toBe(false)
  })

  it('checks what the schema states before sending, and shows the refusal at the field', async () => {
    const { page, deployment } = await open()
    const limit = section(page, 'search').getByLabel('limit', { exact: true })
    await limit.fill('99')
    await limit.press('Enter')
    const problem = section(page, 'search').getByRole('alert')
    await problem.waitFor()
    expect(await problem.textContent()).toContain('at most 50')
    expect(await limit.getAttribute('aria-invalid')).toBe('true')
    expect(await deployment.readFile()).toBe(DOCUMENT)
  })

  it("shows a refusal only the plugin's validate can make, and leaves the file alone", async () => {
    const { page, deployment } = await open()
    const region = group(section(page, 'search'), 'filters').getByLabel('region', { exact: true })
    await region.fill('xx')
    await region.press('Enter')
    const refusal = section(page, 'search').getByRole('alert').filter({ hasText: 'region xx is not served' })
    await refusal.waitFor()
    expect(await deployment.readFile()).toBe(DOCUMENT)
  })

  it('replaces a secret without the value ever reaching the page', async () => {
    const { page, deployment } = await open()
    const traffic = recordTraffic(page)
    const key = group(section(page, 'search'), 'apiKey')
    expect(await key.getByText('Set, set in the settings file').isVisible()).toBe(true)
    expect(await key.getByText('Kept in the secret store', { exact: false }).count()).toBe(0)
    await key.getByRole('button', { name: 'Replace apiKey' }).click()
    const fresh = 'sk-NEW-secret-0d93b2'
    await key.getByLabel('New value for apiKey').fill(fresh)
    await key.getByRole('button', { name: 'Save apiKey' }).click()
    // The new value goes to secrets.yaml; the document gets its reference in the old value's place, nothing else changes.
    await eventually(async () => expect(await deployment.readFile()).toBe(DOCUMENT.replace(ORIGINAL_SECRET, '!secret search.apiKey')))
    await page.getByText('Saved search.').waitFor()
    await expectSecretInStore(deployment.file, { ns: 'search', path: ['apiKey'] }, fresh)
    expect((await readSecretStore(deployment.file)).values).toEqual({ 'search.apiKey': fresh })
    expect(await serviceOf(deployment.root, 'settings').then((settings) => settings.get('search'))).toMatchObject({ apiKey: fresh, mirrors: [{ token: MIRROR_SECRET }] })
    // The page now says where the value is kept.
    await key.getByText('Kept in the secret store: a new value replaces the stored one.').waitFor()
    // Edit another field too, so responses after the secret write are in the record; the unseen inline secret stays in place.
    const mirrorUrl = section(page, 'search').getByLabel('url', { exact: true })
    await mirrorUrl.fill('https://b.example')
    await mirrorUrl.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toContain(`url: https://b.example\n      token: ${MIRROR_SECRET}`))
    await expectNotKept(deployment.file, [fresh])
    for (const secret of [fresh, ORIGINAL_SECRET, MIRROR_SECRET]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
    expect(traffic.urls.some((url) => url.includes('/remote/settings/mutate'))).toBe(true)
    for (const line of deployment.logs()) expect(line).not.toContain(fresh)
    await saveScreenshot(page, 'secret-replaced')
  })

  it('replaces a secret in the document itself when the provider keeps secrets inline', async () => {
    const { page, deployment } = await open(DOCUMENT, false, 'inline')
    const traffic = recordTraffic(page)
    const key = group(section(page, 'search'), 'apiKey')
    await key.getByRole('button', { name: 'Replace apiKey' }).click()
    const fresh = 'sk-NEW-inline-5e7f01'
    await key.getByLabel('New value for apiKey').fill(fresh)
    await key.getByRole('button', { name: 'Save apiKey' }).click()
    await eventually(async () => expect(await deployment.readFile()).toBe(DOCUMENT.replace(ORIGINAL_SECRET, fresh)))
    await page.getByText('Saved search.').waitFor()
    expect((await readSecretStore(deployment.file)).exists).toBe(false)
    expect(await key.getByText('Set, set in the settings file').isVisible()).toBe(true)
    expect(await key.getByText('Kept in the secret store', { exact: false }).count()).toBe(0)
    for (const secret of [fresh, ORIGINAL_SECRET, MIRROR_SECRET]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  })

  it('adds and removes list items that hold secrets, keeping the unseen secrets in place', async () => {
    const { page, deployment } = await open()
    const mirrors = group(section(page, 'search'), 'mirrors')
    expect(await mirrors.getByRole('button', { name: /Move/ }).count()).toBe(0)
    await mirrors.getByRole('button', { name: 'Add mirrors item' }).click()
    await eventually(async () => expect(await mirrors.getByRole('listitem').count()).toBe(2))
    await mirrors.getByLabel('url', { exact: true }).nth(1).fill('https://c.example')
    await mirrors.getByLabel('url', { exact: true }).nth(1).press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toContain('url: https://c.example'))
    const text = await deployment.readFile()
    expect(text).toContain(`token: ${MIRROR_SECRET}`)
    // A token typed into the new item goes to the store under the item's place; the first item's stays inline.
    const typed = 'mirror-token-typed-3d0e'
    await mirrors.getByRole('button', { name: 'Replace token' }).nth(1).click()
    await mirrors.getByLabel('New value for token').fill(typed)
    await mirrors.getByRole('button', { name: 'Save token' }).click()
    await eventually(async () => expect(await deployment.readFile()).toContain('token: !secret search.mirrors.1.token'))
    await expectSecretInStore(deployment.file, { ns: 'search', path: ['mirrors', '1', 'token'] }, typed)
    expect(await deployment.readFile()).toContain(`url: https://a.example\n      token: ${MIRROR_SECRET}\n`)
    const settings = await serviceOf(deployment.root, 'settings')
    expect(settings.get('search')).toMatchObject({ mirrors: [{ token: MIRROR_SECRET }, { url: 'https://c.example', token: typed }] })
    await mirrors.getByRole('button', { name: 'Remove mirrors item 2' }).click()
    await eventually(async () => expect(await deployment.readFile()).toBe(DOCUMENT))
    // The removed item's secret leaves the store with it.
    expect((await readSecretStore(deployment.file)).values).toEqual({})
    await expectNotKept(deployment.file, [typed])
  })

  it('shows what a named scope inherits, and resets one field to it', async () => {
    const { page, deployment } = await open()
    await showScope(page, 'preset/coder')
    const limit = section(page, 'search').getByLabel('limit', { exact: true })
    expect(await limit.inputValue()).toBe('25')
    expect(await section(page, 'search').getByText('set in this scope').count()).toBeGreaterThan(0)
    expect(await section(page, 'search').getByText('Overrides the inherited value').first().isVisible()).toBe(true)
    expect(await group(section(page, 'search'), 'apiKey').getByText('inherited from the global settings').isVisible()).toBe(true)
    await saveScreenshot(page, 'scope-preset-coder')
    const violations = await runAxe(page)
    expect(violations).toEqual([])
    await section(page, 'search').getByRole('button', { name: 'Reset limit to inherited' }).click()
    await eventually(async () => expect(await limit.inputValue()).toBe('10'))
    await eventually(async () => expect(await deployment.readFile()).not.toContain('coder wants more'))
    const view = (await deployment.remote.settings.describe('preset/coder')).namespaces.find((ns) => ns.ns === 'search')
    expect(view?.user).toEqual({})
    expect((view?.value as { limit: number }).limit).toBe(10)
  })

  it('opens a named scope nobody registered under, after refusing a malformed id', async () => {
    const { page } = await open()
    const box = page.getByLabel('Open scope')
    await box.fill('Not A Scope')
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    expect(await page.getByText('A scope id is <kind>/<id>').isVisible()).toBe(true)
    await box.fill('preset/writer')
    await page.getByRole('button', { name: 'Open', exact: true }).click()
    await eventually(async () => expect(await page.getByLabel('Scope', { exact: true }).inputValue()).toBe('preset/writer'))
    await eventually(async () => expect(await section(page, 'assistant').getByText('Not registered in this scope').isVisible()).toBe(true))
  })

  it('sees an external edit arrive live', async () => {
    const { page, deployment } = await open()
    await deployment.writeFile(DOCUMENT.replace('engine: bing', 'engine: google'))
    const google = section(page, 'search').getByRole('radio', { name: 'google' })
    await eventually(async () => expect(await google.isChecked()).toBe(true))
  })

  it('says at the section that an edited file is not in effect, and resets the section on request', async () => {
    const { page, deployment } = await open()
    await deployment.writeFile(DOCUMENT.replace('  limit: 10\n', '  limit: lots-and-lots\n'))
    const notice = section(page, 'search').getByRole('alert').filter({ hasText: 'not in effect' })
    await notice.waitFor()
    expect(await notice.textContent()).toContain('limit')
    expect(await notice.textContent()).not.toContain('lots-and-lots')
    await saveScreenshot(page, 'section-problem')
    await notice.getByRole('button', { name: 'Reset section to defaults' }).click()
    await eventually(async () => expect(await deployment.readFile()).not.toContain('lots-and-lots'))
    await eventually(async () => expect(await notice.count()).toBe(0))
    expect(await deployment.readFile()).toContain('# my settings')
  })

  it('flags an edit that met a change underneath, shows what changed, and re-applies it', async () => {
    const { page, deployment } = await open()
    const region = group(section(page, 'search'), 'filters').getByLabel('region', { exact: true })
    await region.fill('jp')
    // The person is still typing when somebody edits the file.
    await deployment.writeFile(DOCUMENT.replace('limit: 10', 'limit: 12'))
    await section(page, 'search').getByText('This section changed elsewhere').waitFor()
    await region.press('Enter')
    const conflict = section(page, 'search').getByRole('alert').filter({ hasText: 'Not saved' })
    await conflict.waitFor()
    expect(await conflict.textContent()).toContain('Changed: limit')
    const violations = await runAxe(page)
    expect(violations).toEqual([])
    await saveScreenshot(page, 'conflict')
    await conflict.getByRole('button', { name: 'Re-apply my edit' }).click()
    await eventually(async () => expect(await deployment.readFile()).toBe(DOCUMENT.replace('limit: 10', 'limit: 12').replace('region: us  # keep', 'region: jp  # keep')))
    await eventually(async () => expect(await section(page, 'search').getByLabel('limit', { exact: true }).inputValue()).toBe('12'))
  })

  it('lets a conflict be resolved by reloading, dropping the edit', async () => {
    const { page, deployment } = await open()
    const limit = section(page, 'search').getByLabel('limit', { exact: true })
    await limit.fill('30')
    await deployment.writeFile(DOCUMENT.replace('limit: 10', 'limit: 11'))
    await section(page, 'search').getByText('This section changed elsewhere').waitFor()
    await limit.press('Enter')
    const conflict = section(page, 'search').getByRole('alert').filter({ hasText: 'Not saved' })
    await conflict.getByRole('button', { name: 'Reload' }).click()
    await eventually(async () => expect(await limit.inputValue()).toBe('11'))
    expect(await deployment.readFile()).toBe(DOCUMENT.replace('limit: 10', 'limit: 11'))
  })

  it('renders and edits every kind of field', async () => {
    deployment = await startDeployment({ assets: session.assets.dir, document: KINDS_DOCUMENT, opener: false, plugins: [(ctx) => void ctx.settings.register('kinds', KINDS)] })
    page = await newPage()
    await page.goto(deployment.pageUrl)
    const kinds = section(page, 'kinds')
    await kinds.waitFor()
    const stored = async () => (await deployment!.remote.settings.describe()).namespaces.find((view) => view.ns === 'kinds')?.user as Record<string, unknown>

    expect(await kinds.getByLabel('notes', { exact: true }).evaluate((element) => element.tagName)).toBe('TEXTAREA')
    expect(await kinds.getByLabel('homepage', { exact: true }).getAttribute('type')).toBe('url')
    expect(await kinds.getByLabel('ratio', { exact: true }).getAttribute('type')).toBe('range')
    expect(await kinds.getByLabel('mode', { exact: true }).textContent()).toBe('fixed')
    expect(await kinds.getByLabel('color', { exact: true }).evaluate((element) => element.tagName)).toBe('SELECT')
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'every-kind')

    await kinds.getByLabel('notes', { exact: true }).fill('line one\nline two')
    await kinds.getByLabel('notes', { exact: true }).blur()
    await eventually(async () => expect((await stored()).notes).toBe('line one\nline two'))

    // A slider moves by keyboard and sends on release.
    await kinds.getByLabel('level', { exact: true }).focus()
    await page.keyboard.press('ArrowRight')
    await eventually(async () => expect((await stored()).level).toBe(4))

    await kinds.getByLabel('color', { exact: true }).selectOption({ label: 'blue' })
    await eventually(async () => expect((await stored()).color).toBe('blue'))

    // A tuple the section does not store is written whole, the other position kept.
    await kinds.getByLabel('point 2', { exact: true }).fill('5')
    await kinds.getByLabel('point 2', { exact: true }).press('Enter')
    await eventually(async () => expect((await stored()).point).toEqual([1, 5]))

    await kinds.getByRole('button', { name: 'Move tags item 2 up' }).click()
    await eventually(async () => expect((await stored()).tags).toEqual(['b', 'a']))

    const headers = group(kinds, 'headers')
    await headers.getByRole('button', { name: 'Rename x-one' }).click()
    await headers.getByLabel('New name for x-one').fill('x-two')
    await headers.getByRole('button', { name: 'Rename', exact: true }).click()
    await eventually(async () => expect((await stored()).headers).toEqual({ 'x-two': '1' }))
    await headers.getByLabel('New headers key').fill('x-three')
    await headers.getByRole('button', { name: 'Add', exact: true }).click()
    await eventually(async () => expect((await stored()).headers).toEqual({ 'x-two': '1', 'x-three': '' }))
    await headers.getByRole('button', { name: 'Remove x-two' }).click()
    await eventually(async () => expect((await stored()).headers).toEqual({ 'x-three': '' }))
    expect(await deployment.readFile()).toContain('x-three: ""')
  })

  it('hands the settings file to the host opener, and says so when there is none', async () => {
    // The opener gets the document path as its last argument: this one leaves a marker beside it.
    const { page, deployment } = await open(DOCUMENT, [process.execPath, '-e', "require('fs').writeFileSync(process.argv[1] + '.opened', '')"])
    await page.getByRole('button', { name: 'Open settings file' }).click()
    await page.getByText('Opened the settings file in its editor.').waitFor()
    await eventually(async () => expect(await stat(`${deployment.file}.opened`).then(() => true, () => false)).toBe(true))
    await page.close()
    await deployment.dispose()
    const second = await open()
    await second.page.getByRole('button', { name: 'Open settings file' }).click()
    await second.page.getByText('Could not open the settings file').waitFor()
  })

  it('works by keyboard alone, in document order', async () => {
    const { page, deployment } = await open()
    // No control jumps the queue with a positive tabindex.
    expect(await page.locator('[tabindex]:not([tabindex="-1"]):not([tabindex="0"])').count()).toBe(0)
    const region = group(section(page, 'search'), 'filters').getByLabel('region', { exact: true })
    const order: string[] = []
    for (let step = 0; step < 40 && !(await region.evaluate((element) => element === document.activeElement)); step++) {
      await page.keyboard.press('Tab')
      order.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || document.activeElement?.tagName || ''))
    }
    expect(await region.evaluate((element) => element === document.activeElement)).toBe(true)
    // The scope switcher comes before the forms, and the engine choice before the nested region field.
    expect(order[0]).toBe('Open settings file')
    expect(order.indexOf('scope-open-id')).toBeLessThan(order.indexOf('f-search--limit'))
    await page.keyboard.press('Control+A')
    await page.keyboard.type('ca')
    await page.keyboard.press('Enter')
    await eventually(async () => expect(await deployment.readFile()).toContain('region: ca  # keep'))
    // Back to the checkbox before it (past its reset button), which toggles with the space bar.
    const safe = group(section(page, 'search'), 'filters').getByLabel('safe', { exact: true })
    for (let step = 0; step < 4 && !(await safe.evaluate((element) => element === document.activeElement)); step++) await page.keyboard.press('Shift+Tab')
    expect(await safe.evaluate((element) => element === document.activeElement)).toBe(true)
    await page.keyboard.press('Space')
    await eventually(async () => expect(await deployment.readFile()).toContain('safe: false'))
  })

  it('fits a 375 px screen and follows dark mode, with no serious accessibility violations', async () => {
    const { page } = await open()
    expect(await runAxe(page)).toEqual([])
    await page.setViewportSize({ width: 375, height: 812 })
    await page.emulateMedia({ colorScheme: 'dark' })
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    const [r, g, b] = (background.match(/\d+/g) ?? []).map(Number)
    expect((r! + g! + b!) / 3).toBeLessThan(60)
    expect(await runAxe(page)).toEqual([])
    await saveScreenshot(page, 'narrow-dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await saveScreenshot(page, 'narrow-light')
  })
})
