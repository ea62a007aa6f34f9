/**
 * The page over every published Config of the corpus (dsh-testing/corpus), in
 * chromium: a deployment registers all of them, one field of each is edited
 * through the page and lands in the settings file; the page speaks zh-CN and
 * en-US (browser language, switch that sticks, `lang`, descriptions in the
 * reader's locale); a plugin with a required secret waits for setup, is
 * listed first, and starts once the token is typed in the page.
 */
import type { Context } from 'cordis'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import type { Page } from 'playwright-core'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { buildForm, flatten, getAt, hasAt, type Edit, type Field } from '../../src/model/index.ts'
import { fieldId } from '../../src/app/format.ts'
import { messagesOf } from '../../src/app/i18n.ts'
import { someEdit } from '../model/corpus-edits.ts'
import { artifactPath, describeBrowser, launchBrowser, runAxe, saveScreenshot } from './harness/browser.ts'
import { useDeploymentSession } from './harness/browser-session.ts'
import { serviceOf, startDeployment, type Deployment } from './harness/deployment.ts'
import { expectNotKept, expectSecretInStore } from './harness/stored-secrets.ts'

const entries = corpusEntries()
const en = messagesOf('en-US')
const zh = messagesOf('zh-CN')

/** Each corpus plugin, as its author wrote it: register its Config and read it. */
const corpusPlugins = entries.map((entry) => (ctx: Context) => void ctx.settings.register(entry.ns, corpusSchema(entry)).get())

/** Every plugin's section as a person would have written it (JSON is YAML). */
const corpusDocument = JSON.stringify(Object.fromEntries(entries.map((entry) => [entry.ns, sampleSection(corpusSchema(entry)).section])), null, 1)

const TYPED_TOKEN = 'bot-token-typed-e2e-5c21'
const Bot = Schema.object({
  token: Schema.string().role('secret').required().description('Bot token.'),
  greeting: Schema.string().default('hello'),
}).description('A chat bot that needs its token.')

describeBrowser('the page over the corpus of published Configs, in two languages', (executablePath) => {
  const { session, slots } = useDeploymentSession(executablePath)

  async function open(options: { waiting?: ((ctx: Context) => void)[] } = {}): Promise<{ deployment: Deployment; page: Page }> {
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document: corpusDocument, plugins: corpusPlugins, ...options }))
    const page = (slots.page = await session.newPage())
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: en.connection.live }).waitFor()
    return { deployment, page }
  }

  /** Do `edit` on the page with the controls a person would use. */
  async function perform(page: Page, ns: string, field: Field, edit: Edit): Promise<void> {
    const id = fieldId(ns, field.path)
    const control = page.locator(`#${id}`)
    if (edit.type === 'choose-variant') {
      const picker = page.locator(`#${id}-form`)
      if ((await picker.evaluate((element) => element.tagName)) === 'SELECT') await picker.selectOption(String(edit.index))
      else await picker.locator('input[type=radio]').nth(edit.index).click()
      return
    }
    if (edit.type !== 'set') throw new Error(`no page action for ${edit.type}`)
    if (field.kind === 'boolean') return control.click()
    if (field.kind === 'select') {
      const index = field.options!.findIndex((option) => JSON.stringify(option.value) === JSON.stringify(edit.value))
      if ((await control.evaluate((element) => element.tagName)) === 'SELECT') await control.selectOption(String(index))
      else await control.locator('input[type=radio]').nth(index).click()
      return
    }
    await control.fill(String(edit.value))
    await control.blur()
  }

  it('edits one field of every corpus plugin through the page, and each lands in the settings file', async () => {
    const { deployment, page } = await open()
    const settings = await serviceOf(deployment.root, 'settings')
    let edited = 0
    for (const entry of entries) {
      const view = settings.describe({ ns: entry.ns, redactSecrets: true })[0]!
      const model = buildForm(view as never, { locale: 'en-US' })
      const target = someEdit(model)
      if (!target) {
        // A Config with no field (a plugin that takes no settings): its section is listed with nothing to edit.
        expect(model.root.children ?? [], entry.ns).toEqual([])
        await page.getByRole('region', { name: entry.ns, exact: true }).waitFor()
        continue
      }
      const shown = findField(model.root, target.path)!
      await perform(page, entry.ns, shown, target.edit)
      const before = JSON.stringify(getAt(view.value, target.path))
      // Landed: stored in the section, and the value is the one typed (or, for a switch of forms, another one).
      const landed = () => {
        const now = settings.describe({ ns: entry.ns })[0]!
        if (!hasAt(now.user, target.path)) return false
        const value = getAt(now.value, target.path)
        return 'value' in target ? JSON.stringify(value) === JSON.stringify(target.value) : JSON.stringify(value) !== before
      }
      await expect.poll(landed, { timeout: 10_000, message: entry.ns }).toBe(true)
      edited++
    }
    expect(edited).toBeGreaterThanOrEqual(25)
    const text = await deployment.readFile()
    expect(text).toContain('edited-')
  }, 180_000)

  it('ticks a flag of the Discord adapter’s intents and types a JSON value into chatluna, both through the page', async () => {
    const { deployment, page } = await open()
    const settings = await serviceOf(deployment.root, 'settings')
    const form = (ns: string) => buildForm(settings.describe({ ns, redactSecrets: true })[0] as never, { locale: 'en-US' })

    const intents = flatten(form('adapter-discord').root).find((field) => field.kind === 'bitset')!
    expect(intents.path).toEqual(['intents'])
    const before = intents.value as number
    await page.locator(`#${fieldId('adapter-discord', intents.path)} input[type=checkbox]`).first().click()
    await expect.poll(() => getAt(settings.describe({ ns: 'adapter-discord' })[0]!.user, ['intents'])).toBe(before ^ 1)

    const json = flatten(form('chatluna').root).find((field) => field.kind === 'json' && !field.hidden)!
    const box = page.locator(`#${fieldId('chatluna', json.path)}`)
    await box.fill('"raw"')
    await box.blur()
    await expect.poll(() => getAt(settings.describe({ ns: 'chatluna' })[0]!.user, json.path)).toBe('raw')
    // Text that is not JSON is refused at the field and never sent.
    await box.fill('{ not json')
    await box.blur()
    await page.getByText(en.jsonInvalid).waitFor()
    expect(getAt(settings.describe({ ns: 'chatluna' })[0]!.user, json.path)).toBe('raw')
  })

  it('speaks the browser’s language, switches to the other, and keeps the pick', async () => {
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document: corpusDocument, plugins: corpusPlugins }))
    const chinese = await launchBrowser(executablePath, { locale: 'zh-CN' })
    try {
      const zhPage = chinese.page
      await zhPage.goto(deployment.pageUrl)
      await zhPage.getByRole('status').filter({ hasText: zh.connection.live }).waitFor()
      expect(await zhPage.evaluate(() => document.documentElement.lang)).toBe('zh-CN')
      expect(await zhPage.title()).toBe(zh.settings)
      expect(await zhPage.getByRole('heading', { level: 1 }).textContent()).toBe(zh.settings)
      expect(await zhPage.getByLabel(zh.searchLabel).count()).toBe(1)
      // A description given as { zh-CN, en-US } shows in Chinese; one given only in Chinese shows in both languages.
      const onebot = zhPage.getByRole('region', { name: 'adapter-onebot', exact: true })
      expect(await onebot.getByText('机器人的账号。').count()).toBeGreaterThan(0)
      const chatluna = zhPage.getByRole('region', { name: 'chatluna', exact: true })
      expect(await chatluna.getByText(/[\u4e00-\u9fff]/).count()).toBeGreaterThan(5)
      const zhShot = await saveScreenshot(zhPage, 'corpus-zh-CN')
      // The first screen, as the READMEs show it (copied to docs/images by hand when the page changes).
      await zhPage.screenshot({ path: artifactPath('readme/page-zh-CN.png') })
      expect(await runAxe(zhPage)).toEqual([])

      await zhPage.getByRole('combobox', { name: zh.language }).selectOption('en-US')
      await zhPage.getByRole('heading', { level: 1, name: en.settings }).waitFor()
      expect(await zhPage.evaluate(() => document.documentElement.lang)).toBe('en-US')
      const englishDescriptions = await chatluna.locator('.field-desc').allTextContents()
      expect(englishDescriptions.some((text) => /^[\x20-\x7e]+$/.test(text) && /[a-z]{3}/.test(text))).toBe(true)
      // The pick sticks: a new load speaks English although the browser asks for Chinese.
      await zhPage.reload()
      await zhPage.getByRole('status').filter({ hasText: en.connection.live }).waitFor()
      expect(await zhPage.evaluate(() => document.documentElement.lang)).toBe('en-US')
      expect(await zhPage.getByLabel(en.searchLabel).count()).toBe(1)
      expect(zhShot).toMatch(/corpus-zh-CN\.png$/)
    } finally {
      await chinese.close()
    }
    const page = (slots.page = await session.newPage())
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: en.connection.live }).waitFor()
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en-US')
    await saveScreenshot(page, 'corpus-en-US')
    await page.screenshot({ path: artifactPath('readme/page-en-US.png') })
    // Numbers go through Intl in the page's language: the search tally counts the namespaces.
    await page.getByLabel(en.searchLabel).fill('adapter')
    await page.getByText(/^Showing \d+ of \d+ namespaces\.$/).waitFor()
  }, 120_000)

  it('lists a plugin that needs its token first, and starts it once the token is typed in the page and saved', async () => {
    const starts: unknown[] = []
    const bot = (ctx: Context) => void starts.push(ctx.settings.register('chat-bot', Bot).get())
    const { deployment, page } = await open({ waiting: [bot] })
    const region = page.getByRole('region', { name: 'chat-bot', exact: true })
    await region.getByText(en.needsSetupBadge).waitFor()
    // First in the list of namespaces and first on the page.
    expect((await page.getByRole('navigation', { name: en.namespaces }).getByRole('link').first().textContent())?.trim()).toBe('chat-bot')
    expect(await page.locator('section.section').first().getAttribute('aria-labelledby')).toBe(fieldId('chat-bot', []))
    expect(await region.getByText(en.needsSetupText('token')).count()).toBe(1)
    expect(starts).toEqual([])
    await saveScreenshot(page, 'needs-setup')
    await page.screenshot({ path: artifactPath('readme/needs-setup.png') })

    await region.getByRole('button', { name: en.replaceNamed('token') }).click()
    await region.getByLabel(en.newSecret('token')).fill(TYPED_TOKEN)
    await region.getByRole('button', { name: en.saveNamed('token') }).click()
    // The value is held in the page until the section's one save: nothing is written before it.
    await region.getByRole('button', { name: en.draftSave, exact: true }).waitFor()
    expect(starts).toEqual([])
    expect(await deployment.readFile().catch(() => '')).not.toContain(TYPED_TOKEN)
    await region.getByRole('button', { name: en.draftSave, exact: true }).click()
    await expect.poll(() => starts.length, { timeout: 10_000 }).toBe(1)
    expect(starts[0]).toEqual({ token: TYPED_TOKEN, greeting: 'hello' })
    await region.getByText(en.secretSet(en.layer.global)).waitFor()
    await region.getByText(en.secretInStore).waitFor()
    await expect.poll(() => region.getByText(en.needsSetupBadge).count()).toBe(0)
    expect(await page.content()).not.toContain(TYPED_TOKEN)
    // Stored in secrets.yaml; the document holds the reference, never the token.
    await expectSecretInStore(deployment.file, { ns: 'chat-bot', path: ['token'] }, TYPED_TOKEN)
    await expectNotKept(deployment.file, [TYPED_TOKEN])
  }, 60_000)
})

/** The field at `path` in the form as the page renders it (through the chosen form of each union). */
function findField(root: Field, path: readonly string[]): Field | undefined {
  let current: Field | undefined = root
  for (let depth = 0; current && depth < path.length; depth++) current = current.children?.find((child) => child.path[depth] === path[depth])
  if (current?.kind === 'union' && current.path.length === path.length) return current
  return current
}
