/**
 * The settings page in chromium with 10, 100 and 1,000 namespaces (issue 34):
 * a real deployment per size (page-deployment.ts: memory provider, remote
 * server, controller, the corpus's published Configs) opened in headless
 * Debian chromium through playwright-core. Per size:
 *
 * - first render, from navigation start (the page's `performance` time
 *   origin): until the first section is interactive (its first control is in
 *   the DOM), until the first screen is rendered (every section slot in the
 *   viewport holds its section, no placeholder), and, where the page mounts
 *   every section (up to 100 namespaces), until all are; median of loads;
 * - search: typing a query until its result line and the filtered namespace
 *   list are painted, and clearing it until every namespace is listed and
 *   shown again (the frame after the change; median of rounds);
 * - one save: a number field of `bench-target` typed and committed with
 *   Enter, until its section's `aria-busy` drops back (the write's answer
 *   applied), painted; then 600 ms more for the events the save causes. Over
 *   that window: main-thread busy time (the CDP `TaskDuration` metric), bytes
 *   the page read (CDP `Network.dataReceived`: the answer, the event stream,
 *   anything a refresh fetches) and `describe` requests (the goal: none).
 *
 * Targets: first render ≤ 1 s at 1,000, judged on the first screen (beyond
 * 100 namespaces the page renders the rest as they near the viewport); a save
 * at 1,000 within 2× of the same save at 10 in time, busy time and bytes.
 * Without chromium the measurement says so on stderr and reports no rows.
 */
import { browserSupport, launchBrowser, type LaunchedBrowser } from 'dsh-testing/browser'
import { buildPageAssets, startPageDeployment } from './page-deployment.ts'
import type { Row } from './harness.ts'
import { median, summarize } from './stats.ts'

/** playwright-core's types, reached through dsh-testing (the workspace root does not depend on it). */
type Page = LaunchedBrowser['page']
type CDPSession = Awaited<ReturnType<ReturnType<Page['context']>['newCDPSession']>>

const SIZES = [10, 100, 1000] as const
const LOADS = 3
const SEARCH_ROUNDS = 3
const SAVES = 5
/** How long after a save's answer events and any refresh they cause are still counted. */
const AFTER_SAVE_MS = 600
const QUERY = 'token'
/** The ids the page gives `bench-target`'s heading and its `limit` control (`fieldId` in the page). */
const TARGET_HEADING = 'f-bench-target'
const TARGET_INPUT = 'f-bench-target--limit'
const TIMEOUT_MS = 60_000
/** The page mounts every section in the background up to this many namespaces (its `BACKGROUND_MOUNT_LIMIT`); beyond, as they near the viewport. */
const ALL_MOUNTED_UP_TO = 100

/** What one size measured. */
interface SizeFigures {
  count: number
  firstInteractive: number[]
  firstScreen: number[]
  /** Every section in the document: measured where the page mounts them all (up to {@link ALL_MOUNTED_UP_TO} namespaces). */
  allRendered: number[]
  searchType: number[]
  searchClear: number[]
  saveMs: number[]
  saveBusyMs: number[]
  saveBytes: number[]
  saveDescribes: number[]
}

/**
 * In-page helpers, installed before the page's own scripts (as text, so the
 * bundler's helpers never reach the page): `__benchUntil(ready)` resolves with
 * `performance.now()` at the first frame where `ready()` holds, once painted;
 * `__benchSearch` and `__benchSave` drive the controls as a person would.
 */
const PAGE_HELPERS = `
  window.__benchUntil = (ready) => new Promise((resolve, reject) => {
    const started = performance.now()
    const tick = () => {
      if (ready()) return setTimeout(() => resolve(performance.now()), 0)
      if (performance.now() - started > ${TIMEOUT_MS}) return reject(new Error('the page did not get there'))
      requestAnimationFrame(tick)
    }
    requestAnimationFrame(tick)
  })
  window.__benchRendered = async (count, waitAll) => {
    const interactive = await window.__benchUntil(() => document.querySelector('section.section :is(input, select, textarea)') !== null)
    const onScreen = () => [...document.querySelectorAll('.section-slot')].filter((slot) => {
      const box = slot.getBoundingClientRect()
      return box.bottom > 0 && box.top < window.innerHeight
    })
    const screen = await window.__benchUntil(() => {
      const shown = onScreen()
      return shown.length > 0 && shown.every((slot) => slot.querySelector('section.section h2') !== null)
    })
    const all = waitAll ? await window.__benchUntil(() => document.querySelectorAll('section.section h2').length >= count) : undefined
    return { interactive, screen, all }
  }
  window.__benchSearch = async (query, count) => {
    const input = document.getElementById('search-text')
    const listed = () => document.querySelectorAll('nav.toc li').length
    const summary = () => document.getElementById('search-hint')?.textContent ?? ''
    const hidden = () => document.querySelectorAll('.section-slot[hidden]').length
    const set = (text) => {
      input.value = text
      input.dispatchEvent(new Event('input', { bubbles: true }))
    }
    let start = performance.now()
    set(query)
    const type = (await window.__benchUntil(() => summary() !== '' && listed() < count)) - start
    start = performance.now()
    set('')
    const clear = (await window.__benchUntil(() => summary() === '' && listed() === count && hidden() === 0)) - start
    return { type, clear }
  }
  window.__benchSave = async (headingId, inputId, value) => {
    const section = document.getElementById(headingId).closest('section')
    const input = document.getElementById(inputId)
    input.focus()
    input.value = String(value)
    input.dispatchEvent(new Event('input', { bubbles: true }))
    // The control takes its draft on the next render; Enter commits it.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
    let sawBusy = false
    const observer = new MutationObserver(() => { sawBusy = sawBusy || section.getAttribute('aria-busy') === 'true' })
    observer.observe(section, { attributes: true, attributeFilter: ['aria-busy'] })
    const start = performance.now()
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    const done = await window.__benchUntil(() => sawBusy && section.getAttribute('aria-busy') === 'false')
    observer.disconnect()
    return done - start
  }
`

/** The in-page helpers' signatures. */
interface BenchWindow {
  __benchRendered(count: number, waitAll: boolean): Promise<{ interactive: number; screen: number; all?: number }>
  __benchSearch(query: string, count: number): Promise<{ type: number; clear: number }>
  __benchSave(headingId: string, inputId: string, value: number): Promise<number>
}

/** Load the page afresh; answers the first-render figures, in ms after navigation start. */
async function firstRender(page: Page, url: string, count: number): Promise<{ interactive: number; screen: number; all?: number }> {
  await page.goto('about:blank')
  await page.goto(url, { waitUntil: 'commit' })
  // The helpers are in before the page's own scripts, and time from its own origin (navigation start).
  return page.evaluate(([n, all]) => (window as unknown as BenchWindow).__benchRendered(n, all), [count, count <= ALL_MOUNTED_UP_TO] as const)
}

/** Type the query, then clear it; each timed to the frame that shows the outcome. */
function searchRound(page: Page, count: number): Promise<{ type: number; clear: number }> {
  return page.evaluate(([query, n]) => (window as unknown as BenchWindow).__benchSearch(query, n), [QUERY, count] as const)
}

/** Metrics of the page's CDP session, by name. */
async function metrics(cdp: CDPSession): Promise<Map<string, number>> {
  const { metrics: list } = await cdp.send('Performance.getMetrics')
  return new Map(list.map((metric) => [metric.name, metric.value]))
}

/** One save of `value` into bench-target's `limit`, with what it cost. */
async function saveOnce(page: Page, cdp: CDPSession, value: number, describes: () => number): Promise<{ ms: number; busy: number; bytes: number; describes: number }> {
  let bytes = 0
  const onData = (event: { dataLength: number }) => void (bytes += event.dataLength)
  // Settle anything still in flight from the previous round before counting.
  await page.waitForTimeout(200)
  const before = await metrics(cdp)
  const describesBefore = describes()
  cdp.on('Network.dataReceived', onData)
  const ms = await page.evaluate(([heading, input, next]) => (window as unknown as BenchWindow).__benchSave(heading, input, next), [TARGET_HEADING, TARGET_INPUT, value] as const)
  await page.waitForTimeout(AFTER_SAVE_MS)
  cdp.off('Network.dataReceived', onData)
  const after = await metrics(cdp)
  const busy = ((after.get('TaskDuration') ?? 0) - (before.get('TaskDuration') ?? 0)) * 1000
  return { ms, busy, bytes, describes: describes() - describesBefore }
}

/** Every figure of one size, on a deployment of its own. */
async function measureSize(browser: LaunchedBrowser, assets: string, count: number): Promise<SizeFigures> {
  const deployment = await startPageDeployment(assets, count)
  const page = await browser.context.newPage()
  const figures: SizeFigures = { count, firstInteractive: [], firstScreen: [], allRendered: [], searchType: [], searchClear: [], saveMs: [], saveBusyMs: [], saveBytes: [], saveDescribes: [] }
  try {
    await page.addInitScript(PAGE_HELPERS)
    for (let load = 0; load < LOADS; load++) {
      const { interactive, screen, all } = await firstRender(page, deployment.pageUrl, count)
      figures.firstInteractive.push(interactive)
      figures.firstScreen.push(screen)
      if (all !== undefined) figures.allRendered.push(all)
    }
    await page.getByText('Live', { exact: true }).waitFor({ timeout: TIMEOUT_MS })
    for (let round = 0; round < SEARCH_ROUNDS; round++) {
      const { type, clear } = await searchRound(page, count)
      figures.searchType.push(type)
      figures.searchClear.push(clear)
    }
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    await cdp.send('Network.enable')
    let describeCalls = 0
    page.on('request', (request) => void (request.url().endsWith('/remote/settings/describe') && describeCalls++))
    for (let save = 0; save < SAVES; save++) {
      const outcome = await saveOnce(page, cdp, 100 + save, () => describeCalls)
      figures.saveMs.push(outcome.ms)
      figures.saveBusyMs.push(outcome.busy)
      figures.saveBytes.push(outcome.bytes)
      figures.saveDescribes.push(outcome.describes)
    }
    await cdp.detach()
    return figures
  } finally {
    await page.close()
    await deployment.dispose()
  }
}

/** The rows of one size. */
function rowsOf(figures: SizeFigures, small: SizeFigures | undefined): Row[] {
  const n = figures.count
  const label = `${n.toLocaleString('en-US')} namespaces`
  const screen = median(figures.firstScreen)
  const save = median(figures.saveMs)
  const busy = median(figures.saveBusyMs)
  const bytes = median(figures.saveBytes)
  const judged = n === 1000 && small !== undefined
  const versus = (ours: number, base: number) => (judged ? { comparison: base, comparisonLabel: 'the same at 10 namespaces', ratio: ours / base, ratioKind: 'ours/comparison' as const } : {})
  const everySection = figures.allRendered.length ? `every section ${Math.round(median(figures.allRendered))} ms` : 'the rest as they near the viewport'
  return [
    {
      id: `page.first-render.${n}`,
      measurement: `page first render: first screen of sections rendered (${label}; first control ${Math.round(median(figures.firstInteractive))} ms, ${everySection})`,
      ours: screen,
      unit: 'ms',
      target: n === 1000 ? '≤ 1 s' : 'report',
      ...(n === 1000 ? { met: screen <= 1000 } : {}),
      detail: { firstScreen: summarize(figures.firstScreen), firstInteractive: summarize(figures.firstInteractive), ...(figures.allRendered.length ? { allRendered: summarize(figures.allRendered) } : {}) },
    },
    {
      id: `page.search.${n}`,
      measurement: `page search: type "${QUERY}" (clear: ${Math.round(median(figures.searchClear))} ms) (${label})`,
      ours: median(figures.searchType),
      unit: 'ms',
      target: 'report',
      detail: { type: summarize(figures.searchType), clear: summarize(figures.searchClear) },
    },
    {
      id: `page.save.${n}`,
      measurement: `page save: request → form updated (${label}; main thread busy ${Math.round(busy)} ms, ${Math.round(bytes / 1024)} KB read, ${Math.max(...figures.saveDescribes)} describe)`,
      ours: save,
      unit: 'ms',
      ...versus(save, small ? median(small.saveMs) : save),
      target: n === 1000 ? '≤ 2× the save at 10' : 'report',
      ...(judged ? { met: save <= 2 * median(small!.saveMs) && busy <= 2 * Math.max(median(small!.saveBusyMs), 5) && bytes <= 2 * median(small!.saveBytes) } : {}),
      detail: { ms: summarize(figures.saveMs), busyMs: summarize(figures.saveBusyMs), bytes: summarize(figures.saveBytes), describeRequests: figures.saveDescribes },
    },
  ]
}

/** Measure every size; no rows (and one line on stderr) without chromium. */
export async function benchPage(): Promise<Row[]> {
  const found = browserSupport()
  if (found.path === undefined) {
    process.stderr.write(` (no chromium: ${found.reason}; page rows skipped)`)
    return []
  }
  const assets = await buildPageAssets()
  const browser = await launchBrowser(found.path, { viewport: { width: 1280, height: 900 } })
  try {
    const measured: SizeFigures[] = []
    for (const count of SIZES) measured.push(await measureSize(browser, assets.dir, count))
    return measured.flatMap((figures) => rowsOf(figures, measured[0]))
  } finally {
    await browser.close()
    await assets.remove()
  }
}
