/**
 * A union's forms in the page, in chromium: the published auth plugin's
 * "enable to reveal" (`admin.enabled`) is a checkbox that shows its fields,
 * asks for the required password before one save, and keeps it when turned
 * off; an adapter's forms are named by the key that tells them apart, with the
 * schema's description of it; a required field without a default offers no
 * reset to default.
 */
import type { Context } from 'cordis'
import { corpusEntries, corpusSchema } from 'dsh-testing/corpus'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { fieldId } from '../../src/app/format.ts'
import { messagesOf } from '../../src/app/i18n.ts'
import { describeBrowser } from './harness/browser.ts'
import { useDeploymentSession } from './harness/browser-session.ts'
import { serviceOf, startDeployment } from './harness/deployment.ts'
import { expectNotKept, expectSecretInStore } from './harness/stored-secrets.ts'

const en = messagesOf('en-US')
const auth = corpusEntries().find((entry) => entry.package === '@koishijs/plugin-auth')!
const PASSWORD = 'pw-reveal-e2e-41c7'

const Adapter = Schema.intersect([
  Schema.object({
    token: Schema.string().role('secret').required(),
    protocol: Schema.union(['http', 'ws']).description('How the bot reaches its service.'),
  }),
  Schema.union([
    Schema.object({ protocol: Schema.const('http').required(), endpoint: Schema.string().required() }),
    Schema.object({ protocol: Schema.const('ws').required(), heartbeat: Schema.natural().default(30) }),
  ]),
])

describeBrowser('union forms and required fields in the page', (executablePath) => {
  const { session, slots } = useDeploymentSession(executablePath)

  it('ticks the auth plugin’s admin.enabled: its fields show, the password is asked for, one save stores both, and unticking keeps it', async () => {
    const plugin = (ctx: Context) => void ctx.settings.register('auth', corpusSchema(auth))
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document: 'auth:\n  admin:\n    enabled: false\n', plugins: [plugin] }))
    const settings = await serviceOf(deployment.root, 'settings')
    const page = (slots.page = await session.newPage())
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: en.connection.live }).waitFor()
    const region = page.getByRole('region', { name: 'auth', exact: true })
    const toggle = page.locator(`#${fieldId('auth', ['admin', 'enabled'])}`)
    await toggle.waitFor()
    expect(await toggle.isChecked()).toBe(false)
    expect(await page.locator(`#${fieldId('auth', ['admin', 'username'])}`).count()).toBe(0)

    await toggle.click()
    // The revealed fields show at once; nothing is written while the required password is missing.
    await page.locator(`#${fieldId('auth', ['admin', 'username'])}`).waitFor()
    await region.getByText(en.draftNotice).waitFor()
    await region.getByRole('button', { name: en.draftSave, exact: true }).click()
    await region.getByText(en.draftMissing('admin › password')).waitFor()
    expect(settings.get('auth')).toMatchObject({ admin: { enabled: false } })

    await region.getByRole('button', { name: en.replaceNamed('password') }).click()
    await region.getByLabel(en.newSecret('password')).fill(PASSWORD)
    await region.getByRole('button', { name: en.saveNamed('password') }).click()
    await region.getByRole('button', { name: en.draftSave, exact: true }).click()
    await expect.poll(() => settings.get('auth')).toMatchObject({ admin: { enabled: true, username: 'admin', password: PASSWORD } })
    expect(await page.content()).not.toContain(PASSWORD)
    await expectSecretInStore(deployment.file, { ns: 'auth', path: ['admin', 'password'] }, PASSWORD)

    // Off again: sent at once (nothing newly missing), the password kept for the next time it is turned on.
    // The checkbox shows what is stored: it turns off once the write answers.
    await toggle.click()
    await expect.poll(() => settings.get('auth')).toMatchObject({ admin: { enabled: false } })
    await expect.poll(() => toggle.isChecked()).toBe(false)
    // Kept: the reference stays in the document and the value in secrets.yaml, never in the document or a kept version.
    expect(await deployment.readFile()).toContain('password: !secret auth.admin.password')
    await expectSecretInStore(deployment.file, { ns: 'auth', path: ['admin', 'password'] }, PASSWORD)
    await expectNotKept(deployment.file, [PASSWORD])
    expect(await page.locator(`#${fieldId('auth', ['admin', 'username'])}`).count()).toBe(0)
  }, 60_000)

  it('names an adapter’s forms by protocol with its description, not by the namespace, and offers no reset on a required value', async () => {
    const required = Schema.object({ host: Schema.string().required(), port: Schema.natural().default(80) })
    const waiting = (ctx: Context) => void ctx.settings.register('bot', Adapter)
    const plain = (ctx: Context) => void ctx.settings.register('server', required)
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document: 'server:\n  host: example.org\n  port: 8080\n', plugins: [plain], waiting: [waiting] }))
    const page = (slots.page = await session.newPage())
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: en.connection.live }).waitFor()
    const bot = page.getByRole('region', { name: 'bot', exact: true })
    const group = bot.locator('fieldset').first()
    expect((await group.locator('legend').first().textContent())?.trim()).toMatch(/^protocol/)
    await group.getByText('How the bot reaches its service.').waitFor()
    expect(await page.getByRole('radiogroup', { name: 'protocol' }).count()).toBe(1)
    expect(await bot.locator('legend', { hasText: /^bot/ }).count()).toBe(0)

    const server = page.getByRole('region', { name: 'server', exact: true })
    await server.getByRole('button', { name: en.resetField('port', false) }).waitFor()
    expect(await server.getByRole('button', { name: en.resetField('host', false) }).count()).toBe(0)
  }, 60_000)
})
