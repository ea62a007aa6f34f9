import { spawn, type ChildProcess } from 'node:child_process'
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Context, type Plugin } from 'cordis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { importPlugin, processConditions, resolveSpecifier } from '../src/import-plugin.ts'
import { endChildren } from 'dsh-testing'

/** The checkout this test runs in (the tests folder is three levels below it). */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
/** A dual package whose `source`, `import` and `require` branches each say which one they are. */
const DUAL = fileURLToPath(new URL('./fixtures/dual-plugin', import.meta.url))
const DUAL_NAME = 'dsh-loader-dual-fixture'

let dir: string
const children: ChildProcess[] = []

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-loader-import-')))
})

afterEach(async () => {
  await endChildren(children)
  await rm(dir, { recursive: true, force: true })
})

/** Install the dual fixture into `<root>/node_modules`, as npm would. */
async function installDual(root: string): Promise<string> {
  const target = join(root, 'node_modules', DUAL_NAME)
  await cp(DUAL, target, { recursive: true })
  return target
}

/** What a plugin module of the dual fixture says it is. */
const buildOf = (plugin: Plugin) => (plugin as unknown as { build: string }).build

describe('processConditions', () => {
  it('reads every form of --conditions from the flags', () => {
    expect(processConditions(['--conditions=source'], undefined)).toEqual(['source'])
    expect(processConditions(['--conditions', 'source', '--conditions', 'development'], undefined)).toEqual(['source', 'development'])
    expect(processConditions(['-C', 'edge', '--import', 'tsx'], undefined)).toEqual(['edge'])
  })

  it('reads NODE_OPTIONS too, with quoted values, and keeps each condition once', () => {
    expect(processConditions(['--conditions=source'], '--max-old-space-size=512 --conditions=source -C "my cond" -C "a \\"b\\""')).toEqual(['source', 'my cond', 'a "b"'])
    expect(processConditions([], '  --conditions   spaced  ')).toEqual(['spaced'])
  })

  it('finds nothing when the process has no conditions, and does not read evaluated code as flags', () => {
    expect(processConditions([], undefined)).toEqual([])
    expect(processConditions(['--import', 'tsx'], '')).toEqual([])
    expect(processConditions(['-e', '-C', '--print', '--conditions=x'], undefined)).toEqual([])
  })
})

describe('resolveSpecifier: ESM resolution', () => {
  it('picks the import branch of a dual package, where require would pick the CommonJS one', async () => {
    const installed = await installDual(dir)
    // The fixture really is dual: its require branch is a CommonJS plugin that says so.
    const require = createRequire(join(dir, 'package.json'))
    expect((require(join(installed, 'package.json')) as { exports: Record<string, Record<string, string>> }).exports['.']!.require).toBe('./cjs.cjs')
    expect((require(join(installed, 'cjs.cjs')) as { build: string }).build).toBe('require')
    expect(resolveSpecifier(DUAL_NAME, dir, { conditions: [] })).toBe(join(installed, 'esm.mjs'))
    expect(buildOf(await importPlugin(DUAL_NAME, dir, { conditions: [] }))).toBe('import')
  })

  it('takes the branch of a condition it is given before the import branch', async () => {
    const installed = await installDual(dir)
    expect(resolveSpecifier(DUAL_NAME, dir, { conditions: ['source'] })).toBe(join(installed, 'source.mjs'))
    expect(buildOf(await importPlugin(DUAL_NAME, dir, { conditions: ['source'] }))).toBe('source')
  })

  it('resolves a ./ folder holding a dual package through its exports, import branch first', () => {
    expect(resolveSpecifier('./dual-plugin', join(DUAL, '..'), { conditions: [] })).toBe(join(DUAL, 'esm.mjs'))
    expect(resolveSpecifier('./dual-plugin', join(DUAL, '..'), { conditions: ['source'] })).toBe(join(DUAL, 'source.mjs'))
  })

  it('resolves a workspace package to its TypeScript source under the source condition', () => {
    expect(resolveSpecifier('dsh-settings-file', WORKSPACE, { conditions: ['source'] })).toBe(join(WORKSPACE, 'packages/settings/settings-file/src/index.ts'))
  })

  it('resolves a ./ specifier against the base folder', async () => {
    await writeFile(join(dir, 'tiny.mjs'), 'export default { name: "tiny", apply() {} }\n')
    expect(resolveSpecifier('./tiny.mjs', dir)).toBe(join(dir, 'tiny.mjs'))
    await mkdir(join(dir, 'deploy'))
    expect(resolveSpecifier('../tiny.mjs', join(dir, 'deploy'))).toBe(join(dir, 'tiny.mjs'))
    expect(resolveSpecifier(join(dir, 'tiny.mjs'), join(dir, 'deploy'))).toBe(join(dir, 'tiny.mjs'))
  })

  it('wants a ./ file with its extension, as import does', async () => {
    await writeFile(join(dir, 'tiny.mjs'), 'export default { name: "tiny", apply() {} }\n')
    expect(() => resolveSpecifier('./tiny', dir)).toThrow(/Cannot find module/)
  })

  it('resolves a ./ folder holding a package by its exports, or by its main without them', async () => {
    await mkdir(join(dir, 'pkg', 'lib'), { recursive: true })
    await writeFile(join(dir, 'pkg', 'package.json'), JSON.stringify({ name: 'local-pkg', type: 'module', exports: { '.': './lib/entry.mjs' } }))
    await writeFile(join(dir, 'pkg', 'lib', 'entry.mjs'), 'export default { name: "local-pkg", apply() {} }\n')
    expect(resolveSpecifier('./pkg', dir)).toBe(join(dir, 'pkg', 'lib', 'entry.mjs'))
    expect(((await importPlugin('./pkg', dir)) as { name: string }).name).toBe('local-pkg')

    await mkdir(join(dir, 'plain', 'lib'), { recursive: true })
    await writeFile(join(dir, 'plain', 'package.json'), JSON.stringify({ name: 'plain-pkg', type: 'module', main: 'lib/main.mjs' }))
    await writeFile(join(dir, 'plain', 'lib', 'main.mjs'), 'export default { name: "plain-pkg", apply() {} }\n')
    expect(resolveSpecifier('./plain', dir)).toBe(join(dir, 'plain', 'lib', 'main.mjs'))
  })

  it('resolves a package name from the node_modules around the base folder', async () => {
    await mkdir(join(dir, 'node_modules', 'probe-pkg'), { recursive: true })
    await writeFile(join(dir, 'node_modules', 'probe-pkg', 'package.json'), JSON.stringify({ name: 'probe-pkg', type: 'module', exports: './index.mjs' }))
    await writeFile(join(dir, 'node_modules', 'probe-pkg', 'index.mjs'), 'export default { name: "probe-pkg", apply() {} }\n')
    await mkdir(join(dir, 'deploy'))
    expect(resolveSpecifier('probe-pkg', join(dir, 'deploy'))).toBe(join(dir, 'node_modules', 'probe-pkg', 'index.mjs'))
  })

  it('refuses a specifier that names a Node builtin rather than a module file', () => {
    expect(() => resolveSpecifier('node:fs', dir)).toThrow(/not a plugin module file/)
  })

  it('fails for a module that does not exist', async () => {
    expect(() => resolveSpecifier('./missing.mjs', dir)).toThrow(/Cannot find module/)
    expect(() => resolveSpecifier('no-such-package-dsh', dir)).toThrow(/Cannot find (module|package)/)
    await expect(importPlugin('./missing.mjs', dir)).rejects.toThrow(/Cannot find module/)
  })
})

describe('importPlugin', () => {
  it('imports the default export of a ./ module as the plugin, and it plugs', async () => {
    await mkdir(join(dir, 'plugins'))
    await writeFile(
      join(dir, 'plugins', 'tiny.mjs'),
      ['export const seen = []', 'export default {', '  name: "tiny",', '  apply(ctx, config) { seen.push(config) },', '}', ''].join('\n'),
    )
    const plugin = (await importPlugin('./plugins/tiny.mjs', dir)) as Plugin.Object & { name: string }
    expect(plugin.name).toBe('tiny')
    const { seen } = (await import(join(dir, 'plugins', 'tiny.mjs'))) as { seen: unknown[] }
    const ctx = new Context()
    await ctx.plugin(plugin, { hello: 'world' }).await()
    expect(seen).toEqual([{ hello: 'world' }])
  })

  it('imports a module without a default export as the plugin itself', async () => {
    await writeFile(join(dir, 'named.mjs'), 'export const name = "named"\nexport function apply() {}\n')
    const plugin = (await importPlugin('./named.mjs', dir)) as unknown as { name: string; apply: unknown }
    expect(plugin.name).toBe('named')
    expect(typeof plugin.apply).toBe('function')
  })
})

/**
 * Code a child Node process evaluates: run the deployment file with the
 * loader's sources, wait until the dual fixture has logged its application
 * (or the loader an error), then stop.
 */
const RUN_ONCE = `
const { runDeployment } = await import(process.env.DSH_LOADER_ENTRY)
let seen
const applied = new Promise((done) => (seen = done))
const deployment = await runDeployment(process.env.DSH_LOADER_FILE, {
  watch: false,
  write: (line) => {
    console.log(line)
    if (line.includes('dual-fixture') || line.startsWith('[E]')) seen()
  },
})
await applied
await deployment.stop()
`

/** Run `cordis.yml` in `deployDir` in a child Node with the given flags and NODE_OPTIONS; its stdout once it exits 0. */
async function runInChild(deployDir: string, flags: string[], nodeOptions: string | undefined): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DSH_LOADER_ENTRY: pathToFileURL(join(WORKSPACE, 'packages/core/loader/src/index.ts')).href,
    DSH_LOADER_FILE: join(deployDir, 'cordis.yml'),
  }
  delete env.NODE_OPTIONS
  if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', RUN_ONCE], { cwd: WORKSPACE, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const code = await new Promise<number | null>((done) => child.once('exit', (exitCode) => done(exitCode)))
  if (code !== 0) throw new Error(`the child exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`)
  return stdout
}

describe('runDeployment in a process started with conditions', () => {
  // The loader runs from its TypeScript sources here, which need the workspace's `source` condition
  // themselves; each case gives it in one form only, so the plugin can only be the source build if
  // the resolver read that form (it would be the import build otherwise).
  it.each([
    ['--conditions=source', ['--conditions=source'], undefined],
    ['--conditions source', ['--conditions', 'source'], undefined],
    ['-C source', ['-C', 'source'], undefined],
    ['NODE_OPTIONS=--conditions=source', [], '--conditions=source'],
  ])('plugs the branch the process’s conditions pick (%s)', { timeout: 60_000 }, async (_form, flags, nodeOptions) => {
    await installDual(dir)
    await writeFile(join(dir, 'cordis.yml'), `plugins:\n  ${DUAL_NAME}: {}\n`)
    const stdout = await runInChild(dir, flags, nodeOptions)
    expect(stdout).toContain('[I] dual-fixture applied the source build')
    expect(stdout).not.toMatch(/^\[E\]/m)
  })
})
