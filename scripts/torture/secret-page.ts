/**
 * The secret scan's browser part, once per run: the settings page built and
 * served by a stack of its own, one kind per secret position (one scoped),
 * secrets set before the page loads and after (by wire and by hand, so the
 * page re-reads on its event stream), then the page's DOM, field values, web
 * storage, cookies, URL, console and every response it received searched in
 * headless chromium, in the global scope and in `preset/x`. Reuses the page's
 * e2e harness; without chromium or a page build it says why and skips.
 */
import { findChromium, launchBrowser, openPage, readFieldValues, readStorage, recordTraffic, type LaunchedBrowser } from 'dsh-testing/browser'
import { buildPage } from 'dsh-settings-page/build'
import { removeTemp, sleep, tempDir } from './harness.ts'
import { registerSecretKind } from './secret-case.ts'
import { buildSecretSchema, freshNumber, freshSecret, LEAVES, WRAPPERS, type SecretSchema, type Wrapper } from './secret-schemas.ts'
import { scanText, type Leak, type SecretLedger } from './secret-search.ts'
import { bootStack, type Stack } from './stack.ts'
import { parseDocument } from './yaml.ts'

/** What the page part did. */
export interface PageScan {
  /** `failed`: the part threw (the note says what); it fails the row. */
  status: 'scanned' | 'skipped' | 'failed'
  /** Why it was skipped, or what was searched. */
  note: string
  leaks: Leak[]
  /** Texts searched (DOM, fields, storage entries, cookies, URL, console lines, responses). */
  searched: number
}

const SCOPE = 'preset/x'

/** playwright's page, typed through the harness (the workspace root does not depend on playwright-core). */
type Page = LaunchedBrowser['page']

/** Set a fresh secret at the kind's leaf through the wire (a mutate once the structure exists), then switch its unions. */
async function setSecret(stack: Stack, ns: string, secrets: SecretSchema, ledger: SecretLedger, setBy: string, scope?: string): Promise<void> {
  const secret = secrets.plan.leaf === 'number' ? freshNumber() : freshSecret()
  ledger.add(secret, { schema: `${secrets.label} (page)`, setBy, path: secrets.leafPath.join('.') })
  if (setBy === 'wire update') await stack.remote.settings.update(ns, secrets.section(secret), null, scope)
  else await stack.remote.settings.mutate(ns, [{ op: 'set', path: secrets.leafPath, value: secret }], null, scope)
  for (const path of secrets.unions) await stack.remote.settings.mutate(ns, [{ op: 'set', path: [...path, 'kind'], value: 'b' }], null, scope)
}

/** Search everything the page holds and received; each text searched counts once. */
async function searchPage(page: Page, traffic: ReturnType<typeof recordTraffic>, consoleLines: readonly string[], ledger: SecretLedger, label: string): Promise<{ leaks: Leak[]; searched: number }> {
  const texts: [string, string][] = [[`page dom (${label})`, await page.content()], [`page url (${label})`, page.url()], [`page cookies (${label})`, JSON.stringify(await page.context().cookies())]]
  for (const { field, value } of await readFieldValues(page)) texts.push([`page field ${field} (${label})`, value])
  const storage = await readStorage(page)
  for (const area of ['sessionStorage', 'localStorage'] as const) for (const [key, value] of Object.entries(storage[area])) texts.push([`page ${area}[${key}]`, `${key}\n${value}`])
  for (const line of consoleLines) texts.push(['page console', line])
  for (const { url, body } of await traffic.responses()) texts.push([`page response ${new URL(url).pathname}`, body])
  return { leaks: texts.flatMap(([surface, text]) => scanText(surface, text, ledger, 'text')), searched: texts.length }
}

/** Run the browser part; see the module comment. */
export async function scanPage(ledger: SecretLedger): Promise<PageScan> {
  const executablePath = findChromium()
  if (!executablePath) return { status: 'skipped', note: 'no chromium (install Debian chromium or set CHROMIUM_PATH)', leaks: [], searched: 0 }
  const assets = await tempDir('page-assets')
  try {
    await buildPage(assets)
  } catch (error) {
    await removeTemp(assets)
    return { status: 'skipped', note: `the page does not build: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, leaks: [], searched: 0 }
  }
  const dir = await tempDir('secrets-page')
  let stack: Stack | undefined
  let browser: LaunchedBrowser | undefined
  try {
    stack = await bootStack(dir, { assets, watch: true, document: '# torture: secret scan (page)\n' })
    const kinds: [string, SecretSchema][] = []
    for (const [index, chain] of ([[], ...WRAPPERS.map((wrapper) => [wrapper])] as Wrapper[][]).entries()) {
      const secrets = buildSecretSchema({ chain, leaf: LEAVES[index % LEAVES.length]!, scoped: index === 1, withBase: index % 3 === 0, recursive: index === 2 })
      const ns = `page-${index}`
      await registerSecretKind(stack, ns, secrets, ledger)
      await setSecret(stack, ns, secrets, ledger, 'wire update', secrets.plan.scoped ? SCOPE : undefined)
      kinds.push([ns, secrets])
    }
    try {
      browser = await launchBrowser(executablePath)
    } catch (error) {
      return { status: 'skipped', note: `chromium at ${executablePath} does not launch: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, leaks: [], searched: 0 }
    }
    // tsx compiles the harness's `page.evaluate` callbacks with esbuild's keepNames, whose `__name` helper the page lacks.
    await browser.context.addInitScript({ content: 'globalThis.__name = (fn) => fn' })
    const { page } = browser
    const consoleLines: string[] = []
    page.on('console', (message) => void consoleLines.push(message.text()))
    page.on('pageerror', (error) => void consoleLines.push(error.message))
    const traffic = recordTraffic(page)
    await openPage(page, `${stack.url}/#token=${stack.token}`)
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor()
    await page.getByRole('region', { name: 'page-0', exact: true }).waitFor()
    // After load: a mutate per kind and a hand edit, which the page hears about and re-reads.
    for (const [ns, secrets] of kinds) await setSecret(stack, ns, secrets, ledger, 'wire mutate, page open', secrets.plan.scoped ? SCOPE : undefined)
    const [handNs, handSecrets] = kinds[0]!
    const handSecret = handSecrets.plan.leaf === 'number' ? freshNumber() : freshSecret()
    ledger.add(handSecret, { schema: `${handSecrets.label} (page)`, setBy: 'hand edit, page open', path: handSecrets.leafPath.join('.') })
    const document = parseDocument(await stack.readDocument())
    document.setIn([handNs], handSecrets.section(handSecret))
    await stack.writeDocument(document.toString())
    await sleep(1500)
    const global = await searchPage(page, traffic, consoleLines, ledger, 'global')
    await page.getByLabel('Scope', { exact: true }).selectOption(SCOPE)
    await page.getByRole('region', { name: kinds[1]![0], exact: true }).getByText('Inherited:', { exact: false }).first().waitFor()
    const scoped = await searchPage(page, traffic, consoleLines, ledger, SCOPE)
    traffic.stop()
    const responses = (await traffic.responses()).length
    return {
      status: 'scanned',
      note: `${kinds.length} kinds, ${responses} responses, global and ${SCOPE}`,
      leaks: [...global.leaks, ...scoped.leaks],
      searched: global.searched + scoped.searched,
    }
  } finally {
    await browser?.close().catch(() => {})
    await stack?.dispose()
    await removeTemp(assets)
    await removeTemp(dir)
  }
}
