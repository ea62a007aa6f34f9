import type { Context } from 'cordis'
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { runDeployment, type Deployment } from '../src/run.ts'
import { eventually } from 'dsh-testing'
import { fibersSettled } from './fibers.ts'

/** A plugin module that logs its config when applied and again when disposed. */
const PROBE = `
export const name = 'probe'
export function apply(ctx, config) {
  const logger = ctx.logger('probe')
  logger.info('apply %s', JSON.stringify(config))
  ctx.effect(() => () => logger.info('dispose %s', JSON.stringify(config)))
}
`

/**
 * Package names resolve from the deployment file's folder, so a deployment that
 * plugs workspace packages lives under the workspace's node_modules.
 */
const WORKSPACE_CACHE = resolve(fileURLToPath(import.meta.url), '../../../../../node_modules/.cache/dsh-loader-tests')

const dirs: string[] = []
const running: Deployment[] = []

afterEach(async () => {
  for (const deployment of running.splice(0)) await deployment.stop()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** A temp folder holding `plugin.mjs`, outside the workspace unless asked. */
async function tempDir(inWorkspace = false): Promise<string> {
  let parent = tmpdir()
  if (inWorkspace) await mkdir((parent = WORKSPACE_CACHE), { recursive: true })
  const dir = await realpath(await mkdtemp(join(parent, 'run-')))
  dirs.push(dir)
  await writeFile(join(dir, 'plugin.mjs'), PROBE)
  return dir
}

const yaml = (...lines: string[]) => ['plugins:', ...lines, ''].join('\n')

/** A deployment that records its log lines. */
async function start(file: string, options: { watch?: boolean; debounceMs?: number } = {}): Promise<{ deployment: Deployment; lines: string[] }> {
  const lines: string[] = []
  const deployment = await runDeployment(file, { watch: false, ...options, write: (line) => lines.push(line) })
  running.push(deployment)
  return { deployment, lines }
}

/** The probe's lines: `apply {...}` / `dispose {...}`. */
const probeLines = (lines: string[]) => lines.filter((line) => line.startsWith('[I] probe ')).map((line) => line.slice('[I] probe '.length))

/** The example web-search plugin's ready lines. */
const webSearchReady = (lines: string[]) => lines.filter((line) => line.startsWith('[I] web-search ready:'))
const readyLine = (engine: string) => `[I] web-search ready: engine=${engine} limit=7 safeSearch=moderate apiKey=unset mirrors=0`

/** Resolves once the global example (bing) and the preset/coder one (duckduckgo) are ready over a document with limit 7. */
async function bothExamplesReady(lines: string[]): Promise<void> {
  await eventually(() => expect(webSearchReady(lines)).toHaveLength(2))
  expect(webSearchReady(lines)).toEqual(expect.arrayContaining([readyLine('bing'), readyLine('duckduckgo')]))
}

const twoProbes = (twoN: number) => yaml('  ./plugin.mjs:one:', '    id: one', '  ./plugin.mjs:two:', '    id: two', `    n: ${twoN}`)

/** `twoProbes(1)` deployed from a fresh folder, once both probes have applied. */
async function startTwoProbes() {
  const file = join(await tempDir(), 'cordis.yml')
  await writeFile(file, twoProbes(1))
  const started = await start(file)
  await eventually(() => expect(probeLines(started.lines)).toHaveLength(2))
  return { file, ...started }
}

describe('runDeployment', () => {
  it('says on its root which file it runs and the version of each plugin package, before any entry is plugged, and again after an edit', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'local-probe', version: '1.2.3' }))
    const link = join(dir, 'link.yml')
    await writeFile(join(dir, 'cordis.yml'), yaml('  ./plugin.mjs: {}'))
    await symlink(join(dir, 'cordis.yml'), link)
    const seen: unknown[] = []
    await writeFile(join(dir, 'plugin.mjs'), `export function apply(ctx) { globalThis.__factsSeen__.push(ctx.deployment) }`)
    ;(globalThis as { __factsSeen__?: unknown[] }).__factsSeen__ = seen
    try {
      const { deployment } = await start(link)
      expect(seen).toEqual([{ file: join(dir, 'cordis.yml'), packages: { './plugin.mjs': '1.2.3' } }])
      expect(deployment.root.deployment).toEqual(seen[0])
      await writeFile(join(dir, 'cordis.yml'), yaml('  ./plugin.mjs:', '    changed: true', '  ./missing.mjs: {}'))
      await deployment.reload()
      expect(deployment.root.deployment).toEqual({ file: join(dir, 'cordis.yml'), packages: { './plugin.mjs': '1.2.3' } })
      expect(seen).toHaveLength(2)
    } finally {
      delete (globalThis as { __factsSeen__?: unknown[] }).__factsSeen__
    }
  })

  it('logs an error passed after the message by name, code, message and stack, not as {}', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'failing.mjs'), "export const name = 'failing'\nexport function apply(ctx) { const error = new Error('the lock is held by pid 42'); error.code = 'LOCKED'; ctx.logger('failing').warn('writing failed:', error) }\n")
    await writeFile(join(dir, 'cordis.yml'), yaml('  ./failing.mjs: {}'))
    const { lines } = await start(join(dir, 'cordis.yml'))
    await eventually(() => expect(lines.join('\n')).toContain('[W] failing writing failed: Error [LOCKED]: the lock is held by pid 42'))
    expect(lines.join('\n')).toMatch(/\n\s+at /)
  })

  it('plugs the entries of the file in order and writes their log lines', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'cordis.yml'), twoProbes(1))
    const { lines } = await start(join(dir, 'cordis.yml'))
    await eventually(() => expect(probeLines(lines)).toHaveLength(2))
    expect(probeLines(lines)).toEqual(['apply {"id":"one"}', 'apply {"id":"two","n":1}'])
    expect(lines).toContain('[I] probe apply {"id":"one"}')
  })

  it('resolves ./ specifiers against the file’s folder, not the working directory', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'sub'))
    await writeFile(join(dir, 'sub', 'plugin.mjs'), PROBE.replace('apply %s', 'apply sub %s'))
    await writeFile(join(dir, 'sub', 'cordis.yml'), yaml('  ./plugin.mjs:', '    where: sub'))
    const { lines } = await start(join(dir, 'sub', 'cordis.yml'))
    await eventually(() => expect(probeLines(lines)).toEqual(['apply sub {"where":"sub"}']))
  })

  it('interpolates environment variables from the process environment', async () => {
    const dir = await tempDir()
    const name = 'DSH_RUN_SPEC_PROBE_ID'
    process.env[name] = 'from-env'
    try {
      await writeFile(join(dir, 'cordis.yml'), yaml('  ./plugin.mjs:', `    id: \${${name}}`, '    other: ${DSH_RUN_SPEC_UNSET:-fallback}'))
      const { lines } = await start(join(dir, 'cordis.yml'))
      await eventually(() => expect(probeLines(lines)).toEqual(['apply {"id":"from-env","other":"fallback"}']))
    } finally {
      delete process.env[name]
    }
  })

  it('re-plugs only the entry whose config changed on reload', async () => {
    const { file, deployment, lines } = await startTwoProbes()

    await writeFile(file, twoProbes(2))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(4))
    expect(probeLines(lines).slice(2)).toEqual(['dispose {"id":"two","n":1}', 'apply {"id":"two","n":2}'])
  })

  it('re-plugs a plugin whose Config converts its values only when its own entry is edited', async () => {
    // Under the workspace, so that the module can import schemastery.
    const dir = await tempDir(true)
    await writeFile(
      join(dir, 'converting.mjs'),
      [
        "import Schema from 'schemastery'",
        "export const name = 'converting'",
        'export const Config = Schema.object({ port: Schema.union([Schema.natural(), Schema.transform(Schema.string().pattern(/^\\d+$/), Number)]) })',
        'export function apply(ctx, config) {',
        "  ctx.logger('converting').info('apply %s', JSON.stringify(config))",
        "  ctx.effect(() => () => ctx.logger('converting').info('dispose %s', JSON.stringify(config)))",
        '}',
        '',
      ].join('\n'),
    )
    const file = join(dir, 'cordis.yml')
    const text = (port: string, probe: string, comment = '') => yaml('  ./converting.mjs:', `    port: "${port}"${comment}`, '  ./plugin.mjs:', `    id: ${probe}`)
    const converting = (lines: string[]) => lines.filter((line) => line.startsWith('[I] converting ')).map((line) => line.slice('[I] converting '.length))
    await writeFile(file, text('5140', 'one'))
    const { deployment, lines } = await start(file)
    await eventually(() => expect(converting(lines)).toEqual(['apply {"port":5140}']))
    await eventually(() => expect(probeLines(lines)).toEqual(['apply {"id":"one"}']))

    // A comment: the reload settles (a re-plug would have disposed before it did) and nothing moved.
    await writeFile(file, `# edited\n${text('5140', 'one', '   # the port')}`)
    await deployment.reload()
    // Another entry: it alone is re-plugged; its new application is the fence.
    await writeFile(file, text('5140', 'two'))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toEqual(['apply {"id":"one"}', 'dispose {"id":"one"}', 'apply {"id":"two"}']))
    expect(converting(lines)).toEqual(['apply {"port":5140}'])

    // Its own entry: exactly it is re-plugged.
    await writeFile(file, text('5141', 'two'))
    await deployment.reload()
    await eventually(() => expect(converting(lines)).toEqual(['apply {"port":5140}', 'dispose {"port":5140}', 'apply {"port":5141}']))
    expect(probeLines(lines)).toHaveLength(3)
  })

  it('plugs an added entry and disposes a removed or disabled one on reload', async () => {
    const dir = await tempDir()
    const file = join(dir, 'cordis.yml')
    await writeFile(file, yaml('  ./plugin.mjs:one:', '    id: one', '  ./plugin.mjs:two:', '    id: two'))
    const { deployment, lines } = await start(file)
    await eventually(() => expect(probeLines(lines)).toHaveLength(2))

    await writeFile(file, yaml('  ./plugin.mjs:one:', '    id: one', '  ~./plugin.mjs:two:', '    id: two', '  ./plugin.mjs:three:', '    id: three'))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(4))
    expect(probeLines(lines).slice(2)).toEqual(['dispose {"id":"two"}', 'apply {"id":"three"}'])

    await writeFile(file, yaml('  ./plugin.mjs:three:', '    id: three'))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(5))
    expect(probeLines(lines)[4]).toBe('dispose {"id":"one"}')
  })

  it('re-plugs on its own when the watcher sees the file change', { timeout: 60_000 }, async () => {
    const dir = await tempDir()
    const file = join(dir, 'cordis.yml')
    await writeFile(file, twoProbes(1))
    const { lines } = await start(file, { watch: true, debounceMs: 50 })
    await eventually(() => expect(probeLines(lines)).toHaveLength(2))

    await writeFile(file, twoProbes(3))
    await eventually(() => expect(probeLines(lines)).toContain('apply {"id":"two","n":3}'), 10_000)
    expect(probeLines(lines).slice(2)).toEqual(['dispose {"id":"two","n":1}', 'apply {"id":"two","n":3}'])
  })

  it('reports an edit that does not parse and keeps the running plugins', async () => {
    const { file, deployment, lines } = await startTwoProbes()

    await writeFile(file, 'plugins:\n  ./plugin.mjs:one: [oops\n  ./plugin.mjs:two: {}\n')
    await deployment.reload()
    const warning = lines.find((line) => line.startsWith('[W] loader'))
    expect(warning).toBeDefined()
    expect(warning).toContain(file)
    expect(warning).toMatch(/not valid YAML/)
    expect(warning).toMatch(/keeping the running plugins/)
    expect(probeLines(lines)).toHaveLength(2)

    // A later good edit still applies.
    await writeFile(file, twoProbes(5))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toContain('apply {"id":"two","n":5}'))
    expect(probeLines(lines).filter((line) => line.startsWith('dispose'))).toEqual(['dispose {"id":"two","n":1}'])
  })

  it('reports an edit naming an unset variable and keeps the running plugins', async () => {
    const { file, deployment, lines } = await startTwoProbes()

    await writeFile(file, yaml('  ./plugin.mjs:one:', '    id: ${DSH_RUN_SPEC_NEVER_SET}'))
    await deployment.reload()
    expect(lines.some((line) => line.startsWith('[W] loader') && line.includes('DSH_RUN_SPEC_NEVER_SET'))).toBe(true)
    expect(probeLines(lines)).toHaveLength(2)
  })

  it('fails to start when the first load does not parse, naming the position', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'cordis.yml'), 'plugins:\n  a: [b\n  c: 1\n')
    await expect(runDeployment(join(dir, 'cordis.yml'), { watch: false, write: () => {} })).rejects.toThrow(/not valid YAML at line \d+, column \d+/)
  })

  it('fails to start when the file does not exist', async () => {
    const dir = await tempDir()
    await expect(runDeployment(join(dir, 'missing.yml'), { watch: false, write: () => {} })).rejects.toThrow(/ENOENT/)
  })

  it('logs why an entry could not be loaded and plugs the others', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'cordis.yml'), yaml('  ./missing.mjs:', '    id: gone', '  ./plugin.mjs:', '    id: here'))
    const { lines } = await start(join(dir, 'cordis.yml'))
    await eventually(() => expect(probeLines(lines)).toEqual(['apply {"id":"here"}']))
    const error = lines.find((line) => line.startsWith('[E] loader'))
    expect(error).toBeDefined()
    expect(error).toContain('./missing.mjs could not be loaded')
    // The reason, not an empty rendering of the error object.
    expect(error).toContain('Cannot find module')
  })

  it('plugs nothing when reloaded after it has stopped', async () => {
    const { file, deployment, lines } = await startTwoProbes()
    await deployment.stop()
    expect(probeLines(lines)).toHaveLength(4)

    await writeFile(file, twoProbes(2))
    await deployment.reload()
    // Whatever the reload plugged has applied once every fiber has settled.
    await fibersSettled(deployment.root)
    expect(probeLines(lines).filter((line) => line.startsWith('apply'))).toHaveLength(2)
  })

  it('disposes every plugin, last first, when stopped', async () => {
    const dir = await tempDir()
    const file = join(dir, 'cordis.yml')
    await writeFile(file, yaml('  ./plugin.mjs:one:', '    id: one', '  scope:preset/coder:', '    ./plugin.mjs:two:', '      id: two', '  ./plugin.mjs:three:', '    id: three'))
    const { deployment, lines } = await start(file, { watch: true })
    await eventually(() => expect(probeLines(lines)).toHaveLength(3))

    await deployment.stop()
    expect(probeLines(lines).slice(3)).toEqual(['dispose {"id":"three"}', 'dispose {"id":"two"}', 'dispose {"id":"one"}'])
    // Stopping again settles the same way and disposes nothing twice.
    await deployment.stop()
    expect(probeLines(lines)).toHaveLength(6)
  })

  it('waits for a reload in flight before stopping', async () => {
    const { file, deployment, lines } = await startTwoProbes()

    await writeFile(file, twoProbes(2))
    const reloading = deployment.reload()
    await deployment.stop()
    await reloading
    const events = probeLines(lines)
    // Every instance that was applied is disposed by the time stop() settles.
    expect(events.filter((line) => line.startsWith('apply')).length).toBe(events.filter((line) => line.startsWith('dispose')).length)
  })

  it('runs the real file provider and an example plugin from the workspace, re-plugging the example on an edit', { timeout: 60_000 }, async () => {
    const dir = await tempDir(true)
    const file = join(dir, 'cordis.yml')
    const document = join(dir, 'settings.yaml')
    await writeFile(document, 'web-search:\n  limit: 7\n')
    const deployment = (engine: string) =>
      yaml(
        '  dsh-settings-file:',
        `    path: ${document}`,
        '    watch: false',
        '  dsh-example-web-search:',
        `    engine: ${engine}`,
        '  ./plugin.mjs:',
        '    id: probe',
        '  scope:preset/coder:',
        '    dsh-example-web-search:',
        '      engine: duckduckgo',
      )
    await writeFile(file, deployment('bing'))
    const { deployment: running, lines } = await start(file)
    const ready = () => webSearchReady(lines)
    await bothExamplesReady(lines)

    let documentPath: string | undefined
    running.root.inject(['settings'], (ctx: Context) => {
      documentPath = ctx.settings.documentPath
    })
    await eventually(() => expect(documentPath).toBe(document))

    await writeFile(file, deployment('google'))
    await running.reload()
    await eventually(() => expect(ready()).toHaveLength(3))
    expect(ready()[2]).toBe(readyLine('google'))
    // The provider, the probe and the scoped example kept running.
    expect(probeLines(lines)).toEqual(['apply {"id":"probe"}'])
    expect(lines.filter((line) => line.startsWith('[E]'))).toEqual([])

    await running.stop()
    expect(probeLines(lines)).toEqual(['apply {"id":"probe"}', 'dispose {"id":"probe"}'])
    expect((await readdir(dir)).filter((name) => /\.(lock|tmp)$/.test(name))).toEqual([])
  })
})

describe('runDeployment with cordis 4 list form', () => {
  const list = (...entries: string[]) => `${entries.join('\n')}\n`
  const probe = (id: string, n: number, disabled = false) => `- id: ${id}\n  name: ./plugin.mjs\n${disabled ? '  disabled: true\n' : ''}  config:\n    id: ${id}\n    n: ${n}`
  const group = (id: string, children: string[], disabled = false) =>
    `- id: ${id}\n  name: cordis/group\n  group: true\n${disabled ? '  disabled: true\n' : ''}  config:\n${children.map((child) => child.replace(/^/gm, '    ')).join('\n')}`

  it('re-plugs by id exactly as the map form does: a changed config, a disabled entry or group, a removed entry', async () => {
    const dir = await tempDir()
    const file = join(dir, 'cordis.yml')
    await writeFile(file, list(probe('one', 1), probe('two', 1), group('g', [probe('three', 1)])))
    const { deployment, lines } = await start(file)
    await eventually(() => expect(probeLines(lines)).toHaveLength(3))

    // One config changed: only that entry re-plugs.
    await writeFile(file, list(probe('one', 1), probe('two', 2), group('g', [probe('three', 1)])))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(5))
    expect(probeLines(lines).slice(3)).toEqual(['dispose {"id":"two","n":1}', 'apply {"id":"two","n":2}'])

    // The group disabled: its child goes; the others stay.
    await writeFile(file, list(probe('one', 1), probe('two', 2), group('g', [probe('three', 1)], true)))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(6))
    expect(probeLines(lines)[5]).toBe('dispose {"id":"three","n":1}')

    // Enabled again, one entry disabled and one removed.
    await writeFile(file, list(probe('one', 1, true), group('g', [probe('three', 1)])))
    await deployment.reload()
    await eventually(() => expect(probeLines(lines)).toHaveLength(9))
    expect(probeLines(lines).slice(6).sort()).toEqual(['apply {"id":"three","n":1}', 'dispose {"id":"one","n":1}', 'dispose {"id":"two","n":2}'])
    await deployment.stop()
    expect(probeLines(lines).at(-1)).toBe('dispose {"id":"three","n":1}')
  })

  it('runs the default plugins from a list-form file, re-plugging only the edited one', { timeout: 60_000 }, async () => {
    const dir = await tempDir(true)
    const file = join(dir, 'cordis.yml')
    const document = join(dir, 'settings.yaml')
    await writeFile(document, 'web-search:\n  limit: 7\n')
    const deployment = (engine: string) =>
      list(
        `- id: files\n  name: dsh-settings-file\n  config:\n    path: ${document}\n    watch: false`,
        `- id: search\n  name: dsh-example-web-search\n  config:\n    engine: ${engine}`,
        '- id: coder\n  name: cordis/group\n  group: true\n  scope: preset/coder\n  config:\n    - id: search\n      name: dsh-example-web-search\n      config:\n        engine: duckduckgo',
        '- id: off\n  name: dsh-example-assistant\n  disabled: true',
      )
    await writeFile(file, deployment('bing'))
    const { deployment: running, lines } = await start(file)
    const ready = () => webSearchReady(lines)
    await bothExamplesReady(lines)
    expect(lines.some((line) => line.startsWith('[I] assistant'))).toBe(false)

    await writeFile(file, deployment('google'))
    await running.reload()
    await eventually(() => expect(ready()).toHaveLength(3))
    expect(ready()[2]).toBe(readyLine('google'))
    expect(lines.filter((line) => line.startsWith('[E]'))).toEqual([])
  })
})
