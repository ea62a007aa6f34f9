/**
 * Docs that run: every fenced block of `docs/settings.md`, the root READMEs and
 * the package READMEs that is a plugin, a provider, a deployment, a script or
 * a command is run as written, against the built packages, the way a user's
 * project would run it (see `blocks.ts` for how a block says what it is,
 * `runners.ts` and `commands.ts` for what each kind must do). A block that is
 * only a sketch says so in its first line and is skipped; the test prints the
 * list. TypeScript blocks also type-check against the packages' declarations.
 * The settings page's README is its own engineer's and is not read here.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensurePageBuilt } from 'dsh-settings-page/build'
import { PAGE_ASSETS } from 'dsh-settings-page-assets'
import { postgresAvailable, startPostgres, type PostgresServer } from 'dsh-testing/postgres'
import { TempDirs } from '../lib/temp-dirs.ts'
import { buildPackages } from '../pack/packing.ts'
import { ROOT } from '../pack/workspace.ts'
import { blockPlace, docBlocks, type DocBlock } from './blocks.ts'
import { runCommandBlock } from './commands.ts'
import { installCommands, INSTALL_SECTION, TYPESCRIPT_SECTION } from './install.ts'
import { runDeploymentBlock, runPlugin, runScript, type RunContext } from './runners.ts'
import { blockFile, mountedBy } from './sections.ts'
import { Site } from './site.ts'
import { typecheckEach } from './typecheck.ts'

/** Every README of the packages, but the settings page's. */
function packageReadmes(): string[] {
  const areas = readdirSync(join(ROOT, 'packages')).filter((area) => statSync(join(ROOT, 'packages', area)).isDirectory())
  return areas
    .sort()
    .flatMap((area) => readdirSync(join(ROOT, 'packages', area)).sort().map((name) => `packages/${area}/${name}/README.md`))
    .filter((file) => file !== 'packages/client/settings-page/README.md' && existsSync(join(ROOT, file)))
}

const DOCS = ['README.md', 'README.zh-CN.md', 'docs/settings.md', ...packageReadmes()]
const blocks: DocBlock[] = DOCS.flatMap((file) => docBlocks(readFileSync(join(ROOT, file), 'utf8'), file))
const of = (kind: DocBlock['kind']) => blocks.filter((block) => block.kind === kind)
const named = (list: DocBlock[]) => list.map((block) => [blockPlace(block), block] as const)
const isInstall = (block: DocBlock) => installCommands(block) !== undefined

const temp = new TempDirs('dsh-docs')
const context: RunContext = { temp, blocks }

beforeAll(async () => {
  // The blocks run against the packages as built, like a published install, with the page the controller serves.
  const build = await buildPackages()
  if (!build.ok) throw new Error(`tsc -b failed:\n${build.stdout}\n${build.stderr}`)
  await ensurePageBuilt(PAGE_ASSETS)
}, 300_000)

afterAll(() => temp.removeAll())

describe('what the docs hold', () => {
  it('has no block it cannot place: each runs, is a sketch, is generated, or is plain text', () => {
    expect(of('unknown').map(blockPlace)).toEqual([])
    const sketches = of('sketch')
    for (const sketch of sketches) expect(sketch.reason, blockPlace(sketch)).toMatch(/\S/)
    console.info(`the docs test skips ${sketches.length} sketches:\n${sketches.map((sketch) => `  ${blockPlace(sketch)}: ${sketch.reason}`).join('\n')}`)
  })

  it('mounts every provider block in a deployment of its section', () => {
    expect(of('provider').filter((block) => mountedBy(blocks, block).length === 0).map(blockPlace)).toEqual([])
  })

  it('installs, wherever it says to, only packages of the documented install lists', () => {
    const sections = [INSTALL_SECTION, TYPESCRIPT_SECTION]
    const documented = blocks.filter((block) => block.file === 'docs/settings.md' && sections.includes(block.section) && isInstall(block))
    expect(documented.length).toBeGreaterThan(0)
    const listed = new Set(documented.flatMap((block) => installCommands(block)!.flatMap((command) => command.packages)))
    for (const block of of('command').filter(isInstall)) {
      for (const command of installCommands(block)!) expect(command.packages.filter((name) => !listed.has(name)), blockPlace(block)).toEqual([])
    }
  })

  it('type-checks every TypeScript block on its own against the built declarations', { timeout: 180_000 }, () => {
    const site = new Site(temp, 'typecheck')
    const files = blocks
      .filter((block) => ['plugin', 'provider', 'script', 'declaration'].includes(block.kind))
      .map((block) => {
        const name = `blocks/${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}/${blockFile(block)}`
        site.write(name, block.body)
        return join(site.dir, name)
      })
    expect(Object.fromEntries(typecheckEach(files))).toEqual({})
  })
})

describe('plugin blocks start in a real deployment', () => {
  it.each(named(of('plugin').filter((block) => mountedBy(blocks, block).length === 0)))('%s', { timeout: 120_000 }, async (_, block) => {
    await runPlugin(context, block)
  })
})

describe('deployment blocks start as written', () => {
  let postgres: PostgresServer | undefined
  afterAll(async () => postgres?.stop())

  it.each(named(of('deployment')))('%s', { timeout: 120_000 }, async (_, block) => {
    if (!block.body.includes('${DSH_DATABASE_URL}')) return runDeploymentBlock(context, block)
    // A deployment on PostgreSQL gets a throwaway server, where this machine has one (the provider's tests say so loudly otherwise).
    if (!postgresAvailable()) return
    postgres ??= await startPostgres()
    await runDeploymentBlock(context, block, { DSH_DATABASE_URL: postgres.url() })
  })
})

describe('script blocks run', () => {
  it.each(named(of('script')))('%s', { timeout: 120_000 }, async (_, block) => {
    await runScript(context, block)
  })
})

describe('command blocks run and print what the docs show', () => {
  // Installs run in scripts/pack/consumer.spec.ts, against the packed tarballs.
  it.each(named(of('command').filter((block) => !isInstall(block))))('%s', { timeout: 180_000 }, async (_, block) => {
    await runCommandBlock(context, block)
  })
})
