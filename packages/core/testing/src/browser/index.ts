/**
 * Headless chromium for the workspace's browser tests and the torture:
 * finding Debian's chromium (`chromium.ts`), launching it through
 * playwright-core in a throwaway profile, and the checks they share (axe,
 * screenshots under `test-results/settings-page/`, traffic, storage and
 * secret scans). No vitest here: `describeBrowser` lives with the page's specs.
 */
import { mkdirSync, statSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page, type Response } from 'playwright-core'
import type { AxeResults } from 'axe-core'
export { browserSupport, findChromium, INSTALL_HINT, missingBrowserMessage, skipLine, type BrowserSupport } from './chromium.ts'

/** The launch flags from the toolchain notes: no sandbox (root in a container), no GPU, no background traffic. */
export const CHROMIUM_FLAGS: readonly string[] = Object.freeze([
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
])

/** Options passed through to the browser context. */
export interface LaunchOptions {
  /** The page size; `null` leaves it to the window. Playwright's default is 1280×720. */
  viewport?: { width: number; height: number } | null
  /** The `prefers-color-scheme` the page sees. */
  colorScheme?: 'light' | 'dark' | 'no-preference' | null
  /** The browser's language (`navigator.language`, `Accept-Language`); `en-US` unless given, whatever the machine's. */
  locale?: string
  /**
   * Milliseconds a Playwright action, wait or navigation may take; 10 000 unless given. Kept under
   * vitest's 20 s test timeout so a missing element fails with Playwright's message naming the locator.
   */
  actionTimeoutMs?: number
}

/** The default of {@link LaunchOptions.actionTimeoutMs}. */
export const ACTION_TIMEOUT_MS = 10_000

/** A headless chromium with its own profile and one open page. */
export interface LaunchedBrowser {
  context: BrowserContext
  /** The context's first page, ready to `goto`. */
  page: Page
  /** Close the browser and delete its profile folder. Calling it again returns the same settlement. */
  close(): Promise<void>
}

/**
 * Launch chromium headless in a fresh temp profile with the toolchain's flags.
 * The profile is deleted by `close()`, or at once if the launch fails.
 */
export async function launchBrowser(executablePath: string, options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'dsh-chromium-'))
  const removeProfile = () => rm(profile, { recursive: true, force: true, maxRetries: 3 })
  const { actionTimeoutMs = ACTION_TIMEOUT_MS, ...contextOptions } = options
  let context: BrowserContext
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: [...CHROMIUM_FLAGS], locale: 'en-US', ...contextOptions })
  } catch (error) {
    await removeProfile()
    throw error
  }
  let closing: Promise<void> | undefined
  const close = () => (closing ??= context.close().finally(removeProfile))
  try {
    context.setDefaultTimeout(actionTimeoutMs)
    const page = context.pages()[0] ?? (await context.newPage())
    return { context, page, close }
  } catch (error) {
    await close()
    throw error
  }
}

/**
 * Load `url` as a new document. A plain `page.goto` to the URL the page is
 * already on, or one differing only in its `#fragment` (as every `#token=` page
 * URL of one deployment does), is a same-document navigation: nothing is
 * fetched and the old DOM stays. Passing through `about:blank` forces a real load.
 */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto('about:blank')
  await page.goto(url)
}

/** The workspace root: the nearest folder above this file that holds `pnpm-workspace.yaml`. */
function workspaceRoot(): string {
  let folder = dirname(fileURLToPath(import.meta.url))
  while (!isFile(join(folder, 'pnpm-workspace.yaml'))) {
    const parent = dirname(folder)
    if (parent === folder) throw new Error('no pnpm-workspace.yaml above dsh-testing')
    folder = parent
  }
  return folder
}

/** Whether `path` exists as a regular file. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * Where a test artifact named `name` goes: under `<workspace>/test-results/settings-page/`
 * (git-ignored), with the folders on the way created. `name` may hold sub-folders.
 * @throws {Error} for a name that is absolute or climbs out of that folder.
 */
export function artifactPath(name: string): string {
  const folder = join(workspaceRoot(), 'test-results', 'settings-page')
  const path = resolve(folder, name)
  const inside = relative(folder, path)
  if (isAbsolute(name) || !inside || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`artifact name ${JSON.stringify(name)} must stay inside ${folder}`)
  mkdirSync(dirname(path), { recursive: true })
  return path
}

/** Save a full-page PNG of `page` as artifact `name` (`.png` is added when missing); resolves with its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const path = artifactPath(name.endsWith('.png') ? name : `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

/** One serious or critical accessibility violation axe found. */
export interface AxeViolation {
  /** The axe rule id, e.g. `label` or `color-contrast`. */
  id: string
  impact: 'serious' | 'critical'
  /** The rule's one-line summary. */
  help: string
  /** Where the rule is explained. */
  helpUrl: string
  /** One CSS selector per offending element (frames and shadow roots joined by ` >>> `). */
  targets: string[]
}

/** The axe bundle's path, resolved from this package's dependencies. */
function axeScriptPath(): string {
  return createRequire(import.meta.url).resolve('axe-core/axe.min.js')
}

/** Whether `window.axe` is defined in the page. */
function hasAxe(page: Page): Promise<boolean> {
  return page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object')
}

/**
 * Put axe into the page by evaluating its bundle through the debugger
 * protocol, which a Content-Security-Policy does not govern (a script tag
 * would be refused, and logged as a violation, by the page's policy). Idempotent.
 */
async function injectAxe(page: Page): Promise<void> {
  if (await hasAxe(page)) return
  await page.evaluate(await readFile(axeScriptPath(), 'utf8'))
  if (!(await hasAxe(page))) throw new Error('axe-core could not be injected into the page')
}

/** Run axe on the whole document and keep the violations rated serious or critical, as plain data. */
function runAxeInPage(): Promise<AxeViolation[]> {
  const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResults> } }).axe
  const selector = (part: string | string[]) => (Array.isArray(part) ? part.join(' >>> ') : part)
  return axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact as 'serious' | 'critical',
        help: violation.help,
        helpUrl: violation.helpUrl,
        targets: violation.nodes.map((node) => node.target.map(selector).join(' >>> ')),
      })),
  )
}

/**
 * Run axe-core on the page as it is now and answer its serious and critical
 * violations (an empty array means none). Minor and moderate findings are left out.
 */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  await injectAxe(page)
  return page.evaluate(runAxeInPage)
}

/** One response body the page received. */
export interface RecordedResponse {
  url: string
  /** The body text; empty when it could not be read (a redirect, a page that navigated away). */
  body: string
}

/** Responses the page received since {@link recordTraffic} was called. */
export interface TrafficRecord {
  /** Every response URL, in arrival order (event streams included). */
  readonly urls: string[]
  /** Every response except event streams, with its body, once all have been read. */
  responses(): Promise<RecordedResponse[]>
  /** The body texts of {@link TrafficRecord.responses}. */
  bodies(): Promise<string[]>
  /** Stop recording. */
  stop(): void
}

/** Whether a response is a Server-Sent Events stream, whose body never ends. */
function isEventStream(response: Response): boolean {
  return (response.headers()['content-type'] ?? '').startsWith('text/event-stream')
}

/** Read a response's text, answering an empty string where there is none to read. */
async function bodyOf(response: Response): Promise<RecordedResponse> {
  const body = await response.text().catch(() => '')
  return { url: response.url(), body }
}

/**
 * Record what the page receives: every response's URL and, except for event
 * streams, its body text. An event stream never finishes, so its data is not
 * captured here: watch the server side instead, for instance with
 * `deployment.remote.events(…)`, which gets the same broadcasts the page does.
 */
export function recordTraffic(page: Page): TrafficRecord {
  const urls: string[] = []
  const reads: Promise<RecordedResponse>[] = []
  const onResponse = (response: Response) => {
    urls.push(response.url())
    if (!isEventStream(response)) reads.push(bodyOf(response))
  }
  page.on('response', onResponse)
  const responses = () => Promise.all(reads)
  return {
    urls,
    responses,
    bodies: async () => (await responses()).map((response) => response.body),
    stop: () => void page.off('response', onResponse),
  }
}

/** The page's two web storages, as plain records. */
export interface PageStorage {
  sessionStorage: Record<string, string>
  localStorage: Record<string, string>
}

/** Read every `sessionStorage` and `localStorage` entry of the page's origin. */
export function readStorage(page: Page): Promise<PageStorage> {
  return page.evaluate(() => {
    const entries = (storage: Storage) => Object.fromEntries(Array.from({ length: storage.length }, (_, index) => storage.key(index) ?? '').map((key) => [key, storage.getItem(key) ?? '']))
    return { sessionStorage: entries(window.sessionStorage), localStorage: entries(window.localStorage) }
  })
}

/** The live value of every input, textarea and select (which `page.content()` does not show), labelled by element. */
export function readFieldValues(page: Page): Promise<{ field: string; value: string }[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>('input, textarea, select')).map((element, index) => ({
      field: `${element.tagName.toLowerCase()}#${element.id || element.name || index}`,
      value: element.value,
    })),
  )
}

/**
 * Look for `secret` everywhere the page keeps state: its serialized DOM, the
 * live values of its fields, both web storages, cookies, the URL, and (when
 * `traffic` is given) every response body recorded. Answers the places it was
 * found, e.g. `dom`, `field input#apiKey`, `sessionStorage[draft]`,
 * `response http://…/remote/settings/describe`; an empty array means clean.
 */
export async function pageSecretsScan(page: Page, secret: string, traffic?: TrafficRecord): Promise<string[]> {
  if (!secret) throw new Error('pageSecretsScan needs a non-empty secret')
  const found: string[] = []
  if ((await page.content()).includes(secret)) found.push('dom')
  for (const { field, value } of await readFieldValues(page)) if (value.includes(secret)) found.push(`field ${field}`)
  const storage = await readStorage(page)
  for (const area of ['sessionStorage', 'localStorage'] as const) {
    for (const [key, value] of Object.entries(storage[area])) if (key.includes(secret) || value.includes(secret)) found.push(`${area}[${key}]`)
  }
  if ((await page.evaluate(() => document.cookie)).includes(secret)) found.push('cookie')
  if (page.url().includes(secret)) found.push('url')
  if (traffic) found.push(...(await scanTraffic(traffic, secret)))
  return found
}

/** The recorded responses whose body contains `secret`, named by URL. */
async function scanTraffic(traffic: TrafficRecord, secret: string): Promise<string[]> {
  return (await traffic.responses()).filter((response) => response.body.includes(secret)).map((response) => `response ${response.url}`)
}
