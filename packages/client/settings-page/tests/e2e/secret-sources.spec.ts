/**
 * Secrets the document does not hold, in chromium, in English and in Chinese:
 * a secret the host supplies (here an environment variable) shows where it
 * comes from instead of an input, with no replace or clear action; one kept
 * in the secret store keeps its input with a note. The provider is the YAML
 * file provider, told by a subclass where each secret comes from.
 */
import type { Context } from 'cordis'
import type { SectionKey, SettingsSecretOrigin } from 'dsh-settings'
import { FileSettingsProvider } from 'dsh-settings-file'
import Schema from 'schemastery'
import { expect, it } from 'vitest'
import { messagesOf, type PageLocale } from '../../src/app/i18n.ts'
import { describeBrowser, pageSecretsScan, recordTraffic } from './harness/browser.ts'
import { useDeploymentSession } from './harness/browser-session.ts'
import { startDeployment } from './harness/deployment.ts'

const ENV_VALUE = 'sk-env-e2e-5be1c0'
const STORED_VALUE = 'sk-store-e2e-90d2aa'

/** The file provider, saying the document's `apiKey` comes from SEARCH_API_KEY and `token` from the secret store. */
class ReferencingFileProvider extends FileSettingsProvider {
  protected override secretSource(key: SectionKey, path: readonly string[]): SettingsSecretOrigin | undefined {
    if (key.ns !== 'search' || key.scope !== undefined) return undefined
    if (path.join('.') === 'apiKey') return { source: 'env', reference: 'SEARCH_API_KEY' }
    if (path.join('.') === 'token') return { source: 'store', reference: 'search.token' }
    return undefined
  }
}

const SEARCH = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  apiKey: Schema.string().role('secret'),
  token: Schema.string().role('secret'),
})

const DOCUMENT = `search:\n  apiKey: ${ENV_VALUE}\n  token: ${STORED_VALUE}\n`

describeBrowser('secrets from the host and from the secret store, in the page', (executablePath) => {
  const { session, slots } = useDeploymentSession(executablePath)

  it.each(['en-US', 'zh-CN'] as PageLocale[])('%s: shows where the host’s secret comes from instead of an input, and notes the store’s', async (locale) => {
    const m = messagesOf(locale)
    const plugin = (ctx: Context) => void ctx.settings.register('search', SEARCH)
    const deployment = (slots.deployment = await startDeployment({ assets: session.assets.dir, document: DOCUMENT, plugins: [plugin], provider: ReferencingFileProvider }))
    const page = (slots.page = await session.newPage())
    await page.addInitScript((picked) => localStorage.setItem('dsh-settings-locale', picked), locale)
    const traffic = recordTraffic(page)
    await page.goto(deployment.pageUrl)
    await page.getByRole('status').filter({ hasText: m.connection.live }).waitFor()
    const region = page.getByRole('region', { name: 'search', exact: true })
    await region.waitFor()

    await region.getByText(m.secretFromEnv('SEARCH_API_KEY'), { exact: true }).waitFor()
    expect(await region.getByText(m.secretHostNote).isVisible()).toBe(true)
    expect(await region.getByRole('button', { name: m.replaceNamed('apiKey') }).count()).toBe(0)
    expect(await region.getByRole('button', { name: m.clearNamed('apiKey') }).count()).toBe(0)

    expect(await region.getByText(m.secretInStore).isVisible()).toBe(true)
    expect(await region.getByRole('button', { name: m.replaceNamed('token') }).isVisible()).toBe(true)
    for (const secret of [ENV_VALUE, STORED_VALUE]) expect(await pageSecretsScan(page, secret, traffic)).toEqual([])
  })
})
