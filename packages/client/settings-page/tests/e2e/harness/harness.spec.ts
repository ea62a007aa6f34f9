/**
 * The e2e harness itself. What these tests prove: the page builds into a temp
 * folder and a real deployment (file provider, remote server, controller,
 * global and scoped plugins) serves it; the Node client describes both scopes;
 * an external edit of `settings.yaml` reaches describe; a plugin that fails to
 * apply fails the boot and leaves no home behind; chromium is found on `PATH`
 * or through `CHROMIUM_PATH` and never through a non-executable file; and, with
 * chromium, the page loads under its token URL with the title "Settings", a
 * stuck action fails with Playwright's message before vitest's timeout, axe
 * answers an array (also under a Content-Security-Policy), screenshots land in
 * `test-results/settings-page/`, and the secret scan finds a string wherever the
 * page keeps it and reports a clean page as clean.
 */
import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Schema from 'schemastery'
import { eventually } from 'dsh-testing'
import type { Context } from 'cordis'
import {
  artifactPath,
  BROWSER_HOOK_TIMEOUT_MS,
  browserSupport,
  describeBrowser,
  findChromium,
  launchBrowser,
  missingBrowserMessage,
  openPage,
  pageSecretsScan,
  recordTraffic,
  runAxe,
  saveScreenshot,
  type LaunchedBrowser,
} from './browser.ts'
import { buildAssets, startDeployment, tempFolder, type BuiltAssets, type Deployment } from './deployment.ts'

const SECRET = 'sk-harness-SECRET-4711'

const Demo = Schema.object({
  engine: Schema.union(['bing', 'google']).default('bing'),
  apiKey: Schema.string().role('secret'),
})

/** Register the demo namespace, as an example plugin would. */
const registerDemo = (ctx: Context) => void ctx.settings.register('demo', Demo)

let assets: BuiltAssets
let deployment: Deployment

beforeAll(async () => {
  assets = await buildAssets()
  deployment = await startDeployment({
    assets: assets.dir,
    document: `demo:\n  engine: google # chosen by hand\n  apiKey: ${SECRET}\n`,
    plugins: [registerDemo],
    scoped: { 'preset/coder': [registerDemo] },
  })
}, BROWSER_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await deployment?.dispose()
  await assets?.remove()
})

describe('deployment', () => {
  it('serves the built index.html from the assets folder without a token', async () => {
    const built = await readFile(join(assets.dir, 'index.html'), 'utf8')
    const response = await fetch(`${deployment.url}/`)
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(built)
    expect(built).toContain('<title>Settings</title>')
  })

  it('answers describe through the Node client, globally and in a named scope, redacted', async () => {
    const global = await deployment.remote.settings.describe()
    expect(global.document).toBe(true)
    expect(global.namespaces.map((view) => view.ns)).toEqual(['demo'])
    expect(global.namespaces[0]!.value).toMatchObject({ engine: 'google' })
    expect(global.scopes).toContain('preset/coder')
    const scoped = await deployment.remote.settings.describe('preset/coder')
    expect(scoped.namespaces[0]).toMatchObject({ ns: 'demo', scope: 'preset/coder' })
    expect(JSON.stringify([global, scoped])).not.toContain(SECRET)
  })

  it('knows its home, document and page URL, and captures the log', async () => {
    expect(deployment.file).toBe(join(deployment.home, 'settings.yaml'))
    expect(deployment.pageUrl).toBe(`${deployment.url}/#token=${deployment.token}`)
    expect(deployment.scopes.has('preset/coder')).toBe(true)
    expect(deployment.logs().some((line) => line.includes(`page and API: ${deployment.pageUrl}`))).toBe(true)
    expect(deployment.logs().join('\n')).not.toContain(SECRET)
  })

  it('sees an external edit of settings.yaml', async () => {
    const before = await deployment.readFile()
    await deployment.writeFile(before.replace('engine: google', 'engine: bing'))
    await eventually(async () => {
      const { namespaces } = await deployment.remote.settings.describe()
      expect(namespaces[0]!.value).toMatchObject({ engine: 'bing' })
    })
    await deployment.writeFile(before)
    await eventually(async () => {
      const { namespaces } = await deployment.remote.settings.describe()
      expect(namespaces[0]!.value).toMatchObject({ engine: 'google' })
    })
    expect(await deployment.readFile()).toBe(before)
  })

  it('fails the boot when a plugin fails to apply, and removes the home', async () => {
    let home: string | undefined
    const failing = startDeployment({
      assets: assets.dir,
      plugins: [
        (ctx) => void (home = dirname(ctx.settings.documentPath!)),
        () => {
          throw new Error('plugin exploded')
        },
      ],
    })
    await expect(failing).rejects.toThrow('plugin exploded')
    expect(home).toBeDefined()
    await expect(stat(home!)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('finding chromium', () => {
  let bin: string
  beforeAll(async () => {
    bin = await tempFolder('dsh-fake-bin-')
    await mkdir(join(bin, 'plain'))
    await mkdir(join(bin, 'exec'))
    await writeFile(join(bin, 'plain', 'chromium'), '#!/bin/sh\n')
    await writeFile(join(bin, 'exec', 'chromium'), '#!/bin/sh\n')
    await chmod(join(bin, 'exec', 'chromium'), 0o755)
  })
  afterAll(() => rm(bin, { recursive: true, force: true }))

  it('scans PATH in order and passes over files that are not executable', () => {
    const PATH = ['', join(bin, 'missing'), join(bin, 'plain'), join(bin, 'exec')].join(':')
    expect(findChromium({ PATH })).toBe(join(bin, 'exec', 'chromium'))
    expect(findChromium({ PATH: join(bin, 'plain') })).toBeUndefined()
    expect(findChromium({})).toBeUndefined()
  })

  it('prefers CHROMIUM_PATH, and reports a wrong one instead of falling back', () => {
    const PATH = join(bin, 'exec')
    expect(findChromium({ PATH, CHROMIUM_PATH: join(bin, 'plain', 'chromium') })).toBeUndefined()
    expect(browserSupport({ PATH, CHROMIUM_PATH: join(bin, 'plain', 'chromium') })).toEqual({
      path: undefined,
      required: false,
      reason: `CHROMIUM_PATH=${join(bin, 'plain', 'chromium')} is not an executable file`,
    })
    expect(browserSupport({ CHROMIUM_PATH: join(bin, 'exec', 'chromium') })).toEqual({ path: join(bin, 'exec', 'chromium') })
  })

  it('marks a missing browser as required under DSH_REQUIRE_BROWSER=1 and says what to install', () => {
    const support = browserSupport({ PATH: '', DSH_REQUIRE_BROWSER: '1' })
    expect(support).toMatchObject({ path: undefined, required: true })
    expect(missingBrowserMessage('no chromium found on PATH')).toContain(
      "DSH_REQUIRE_BROWSER=1 but no chromium: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH",
    )
  })

  it('refuses artifact names that leave test-results/settings-page', () => {
    expect(() => artifactPath('../escape.png')).toThrow(/must stay inside/)
    expect(() => artifactPath('/tmp/escape.png')).toThrow(/must stay inside/)
    expect(artifactPath('harness/inside.png')).toMatch(/test-results\/settings-page\/harness\/inside\.png$/)
  })
})

describeBrowser('the page in chromium', (executablePath) => {
  let browser: LaunchedBrowser
  beforeAll(async () => {
    browser = await launchBrowser(executablePath, { viewport: { width: 1024, height: 768 }, colorScheme: 'dark' })
  }, BROWSER_HOOK_TIMEOUT_MS)
  afterAll(() => browser?.close())

  it('loads the page URL, records its traffic, and the title is "Settings"', async () => {
    const traffic = recordTraffic(browser.page)
    await openPage(browser.page, deployment.pageUrl)
    expect(await browser.page.title()).toBe('Settings')
    expect(await browser.page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true)
    traffic.stop()
    expect(traffic.urls).toContain(`${deployment.url}/`)
    const pages = (await traffic.responses()).filter((response) => response.url === `${deployment.url}/`)
    expect(pages[0]!.body).toContain('<title>Settings</title>')
  })

  it("fails a stuck action with Playwright's own message, inside the test timeout", async () => {
    const quick = await launchBrowser(executablePath, { actionTimeoutMs: 300 })
    try {
      await quick.page.setContent('<p>nothing to click</p>', { timeout: 10_000 })
      await expect(quick.page.locator('#nothing-here').click()).rejects.toThrow(/Timeout 300ms exceeded[\s\S]*#nothing-here/)
    } finally {
      await quick.close()
    }
    await quick.close()
  })

  it('runs axe and answers an array of serious or critical violations', async () => {
    const violations = await runAxe(browser.page)
    expect(Array.isArray(violations)).toBe(true)
    for (const violation of violations) expect(['serious', 'critical']).toContain(violation.impact)
  })

  it('runs axe under a Content-Security-Policy that refuses inline script, and reports a real violation', async () => {
    await browser.page.setContent(
      `<!doctype html><html lang="en"><head><meta http-equiv="Content-Security-Policy" content="script-src 'self'"><title>t</title></head>` +
        `<body><main><input id="nameless"></main></body></html>`,
    )
    const violations = await runAxe(browser.page)
    expect(violations).toContainEqual(expect.objectContaining({ id: 'label', impact: 'critical', targets: ['#nameless'] }))
  })

  it('writes a screenshot under test-results/settings-page', async () => {
    await openPage(browser.page, deployment.pageUrl)
    const path = await saveScreenshot(browser.page, `harness/page-${process.pid}-${Date.now()}`)
    try {
      expect(path).toMatch(/test-results\/settings-page\/harness\/page-\d+-\d+\.png$/)
      const bytes = await readFile(path)
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    } finally {
      await rm(path, { force: true })
    }
  })

  it('finds a secret in the DOM, field values, storage and responses, and reports a clean page as clean', async () => {
    const traffic = recordTraffic(browser.page)
    await openPage(browser.page, deployment.pageUrl)
    traffic.stop()
    expect(await pageSecretsScan(browser.page, SECRET, traffic)).toEqual([])
    expect(await pageSecretsScan(browser.page, '<title>Settings</title>', traffic)).toEqual(['dom', `response ${deployment.url}/`])
    await browser.page.evaluate((secret) => {
      const input = document.createElement('input')
      input.id = 'planted'
      document.body.append(input)
      input.value = secret
      sessionStorage.setItem('draft', `{"apiKey":"${secret}"}`)
    }, SECRET)
    expect(await pageSecretsScan(browser.page, SECRET)).toEqual(['field input#planted', 'sessionStorage[draft]'])
    await browser.page.evaluate(() => sessionStorage.clear())
  })
})
