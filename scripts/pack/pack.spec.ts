/**
 * What npm consumers get. The manifests follow the packaging rules (peers,
 * ranges, metadata, a publish-time exports map); after `tsc -b` each published
 * package is packed with `pnpm pack` and its tarball inspected, then all of them
 * are laid out in a temp consumer project, imported and run there by plain Node,
 * and type-checked against their declarations.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Script } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TempDirs } from '../lib/temp-dirs.ts'
import { assembleConsumer, buildPackages, packPackage, runCommand, runPlainNode, type ConsumerLayout, type Packed } from './packing.ts'
import {
  DEPENDENCY_FIELDS,
  exportTargets,
  importedPackages,
  installedDependency,
  isWorkspaceName,
  publishedPackages,
  readJson,
  REPOSITORY_URL,
  ROOT,
  satisfiesCaret,
  sourceFiles,
  withoutSource,
  workspacePackages,
  type Manifest,
  type WorkspacePackage,
} from './workspace.ts'

/** Packages whose identity must be shared with the host app: one copy in a deployment, hence peers. */
const SHARED = ['cordis', 'schemastery']
/**
 * Our packages whose classes cross plugin boundaries (`instanceof` on the seam's
 * errors, on `RemoteError`): a plugin that imports one takes it as a peer too.
 */
const SHARED_OF_OURS = ['dsh-settings', 'dsh-remote']
/** What the `dsh` package ships beside `tsc`'s output: the launcher, the bundled `get` path and its V8 code cache. */
const DSH_BUNDLED = ['dist/bin.cjs', 'dist/get.bundle.cjs', 'dist/get.bundle.cache']

const rootManifest = readJson<Manifest>(join(ROOT, 'package.json'))
const all = workspacePackages()
const published = publishedPackages()
const plugins = all.filter((pkg) => pkg.manifest.cordis !== undefined)
const byDir = (list: WorkspacePackage[]) => list.map((pkg) => [pkg.dir, pkg] as const)

/** Named exports each published entry point must offer; an entry point not listed must offer at least one. */
const EXPECTED_EXPORTS: Record<string, string[]> = {
  'dsh-settings-home': ['resolveHome', 'resolveDocumentPath', 'expandHome'],
  'dsh-scope': ['createScope', 'scopeOf', 'SCOPE_ID_PATTERN'],
  'dsh-settings': ['SettingsProvider', 'SettingsValidationError', 'dataEqual', 'installSettingsSection'],
  'dsh-settings/memory': ['MemorySettingsProvider', 'default'],
  'dsh-settings/equal': ['dataEqual'],
  'dsh-settings-file': ['FileSettingsProvider', 'default', 'settingsErrorOf', 'SettingsNotAFileError', 'SettingsNotAMapError'],
  'dsh-settings-file/codec': ['parseSettings', 'renderChanges', 'DocumentError', 'DocumentNotAMapError'],
  'dsh-settings-file/store': ['readDocumentText', 'NotAFileError', 'acquireLock', 'DocumentStore'],
  'dsh-settings-file/fast-read': ['readPlainData', 'readPlainText', 'readDocumentText'],
  'dsh-settings-secrets': ['KeyringSecretStore', 'resolveReference', 'secretName', 'encryptSecret'],
  'dsh-settings-postgres': ['PostgresSettingsProvider', 'SettingsDatabaseError', 'default'],
  'dsh-settings/conformance': ['describeProviderConformance'],
  'dsh-loader': ['DeploymentLoader', 'runDeployment', 'importPlugin'],
  'dsh-remote': ['RemoteServer', 'RemoteClient', 'RemoteError', 'createRemote', 'default'],
  'dsh-remote/client': ['createRemote', 'RemoteError'],
  'dsh-remote/client-plugin': ['RemoteClient'],
  'dsh-settings-page-assets': ['PAGE_ASSETS'],
  dsh: ['runDsh', 'runStart', 'runCheck', 'checkSettings', 'EXIT'],
  'dsh-settings-controller': ['SettingsController', 'RemoteError', 'default'],
}

/** Give the consumer project Node's types, as an app compiling for Node installs them itself. */
function linkTypesNode(app: string): void {
  const link = join(app, 'node_modules', '@types', 'node')
  if (existsSync(link)) return
  mkdirSync(join(app, 'node_modules', '@types'), { recursive: true })
  symlinkSync(realpathSync(join(ROOT, 'node_modules', '@types', 'node')), link, 'dir')
}

/** Quoted names inside an array literal's text. */
function quotedNames(text: string): string[] {
  return [...text.matchAll(/'([^']+)'/g)].map((match) => match[1]!)
}

describe('package manifests', () => {
  it('the root LICENSE is MIT, held by the dsh-settings authors', () => {
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8')
    expect(text).toMatch(/^MIT License/)
    expect(text).toContain('Copyright (c) 2026 the dsh-settings authors')
  })

  it('build output and the packed LICENSE copies stay out of git', () => {
    const paths = published.flatMap((pkg) => [join(pkg.dir, 'dist', 'index.js'), join(pkg.dir, 'LICENSE')])
    // `git check-ignore` prints the ignored ones among its arguments.
    const ignored = execFileSync('git', ['check-ignore', ...paths], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n')
    expect(ignored.sort()).toEqual([...paths].sort())
  })

  it('no workspace package depends on itself through others, in any dependency field (pnpm install warns of such a cycle)', () => {
    const edges = new Map(all.map((pkg) => [pkg.manifest.name, DEPENDENCY_FIELDS.flatMap((field) => Object.keys(pkg.manifest[field] ?? {})).filter(isWorkspaceName)]))
    const cycles: string[] = []
    const visit = (name: string, path: string[]) => {
      if (path.includes(name)) return void cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '))
      for (const next of edges.get(name) ?? []) visit(next, [...path, name])
    }
    for (const name of edges.keys()) visit(name, [])
    expect([...new Set(cycles)]).toEqual([])
  })

  it.each(byDir(all))('%s: engines, license, repository and keywords', (dir, pkg) => {
    const { manifest } = pkg
    expect(manifest.engines).toEqual({ node: '>=20' })
    expect(manifest.license).toBe('MIT')
    expect(manifest.repository).toEqual({ type: 'git', url: REPOSITORY_URL, directory: dir })
    expect(manifest.keywords?.length).toBeGreaterThan(0)
    if (importedPackages(pkg).has('cordis')) expect(manifest.keywords).toContain('cordis')
    if (manifest.cordis) expect(manifest.keywords).toEqual(expect.arrayContaining(['cordis', 'plugin']))
  })

  it.each(byDir(all))('%s: cordis and schemastery are peers, pinned exactly for the workspace', (_, pkg) => {
    const { manifest } = pkg
    const imported = importedPackages(pkg)
    for (const name of SHARED) {
      expect(manifest.dependencies?.[name], `${name} in dependencies`).toBeUndefined()
      if (!imported.has(name)) continue
      expect(manifest.peerDependencies?.[name], `${name} peer range`).toBe(`^${rootManifest.devDependencies?.[name]}`)
      expect(manifest.devDependencies?.[name], `${name} dev pin`).toBe(rootManifest.devDependencies?.[name])
    }
  })

  it.each(byDir(plugins))('%s: takes the seam and the wire it imports as peers, like cordis', (_, pkg) => {
    const imported = importedPackages(pkg)
    for (const name of SHARED_OF_OURS.filter((name) => imported.has(name) && name !== pkg.manifest.name)) {
      expect(pkg.manifest.dependencies?.[name], `${name} in dependencies`).toBeUndefined()
      expect(pkg.manifest.peerDependencies?.[name], `${name} peer`).toBe('workspace:^')
    }
  })

  it.each(byDir(all))('%s: runtime ranges are carets the installed versions satisfy; workspace links take workspace:^', (_, pkg) => {
    const { manifest } = pkg
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (isWorkspaceName(name)) expect(range, `${field}.${name}`).toBe('workspace:^')
      }
    }
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      if (isWorkspaceName(name)) continue
      const installed = installedDependency(pkg, name)
      expect(installed, `${name} is installed`).toBeDefined()
      const { version } = readJson<Manifest>(join(installed!, 'package.json'))
      expect(satisfiesCaret(version, range), `${name}@${version} satisfies ${range}`).toBe(true)
    }
  })

  it.each(byDir(published))('%s: every package its sources import is declared for consumers', (_, pkg) => {
    const declared = new Set(Object.keys({ ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies }))
    const undeclared = [...importedPackages(pkg)].filter((name) => !declared.has(name) && name !== pkg.manifest.name)
    expect(undeclared).toEqual([])
  })

  it.each(byDir(published))('%s: the package description is in English and in Chinese', (_, pkg) => {
    const [english, chinese] = (pkg.manifest.description ?? '').split(' · ')
    expect(english).toMatch(/^[\x20-\x7e]+$/)
    expect(chinese).toMatch(/[\u4e00-\u9fff]/)
  })

  it.each(byDir(published))('%s: the published exports map is the workspace one without source', (_, pkg) => {
    const { manifest } = pkg
    expect(manifest.exports?.['./package.json']).toBe('./package.json')
    expect(manifest.publishConfig?.exports).toEqual(withoutSource(manifest.exports!))
    // The page's package also ships the built page, and dsh its bundled executable; each prepack builds it after placing the LICENSE.
    const page = manifest.name === 'dsh-settings-page-assets'
    const built: Record<string, string> = {
      'dsh-settings-page-assets': ' && node --conditions=source --import tsx ../../../scripts/build-page.ts',
      dsh: ' && node --import tsx ../../../scripts/pack/bundle-bin.ts',
    }
    expect(manifest.files).toEqual(['dist', '!dist/**/*.map', '!dist/.tsbuildinfo', ...(page ? ['page', '!page/**/*.map'] : [])])
    expect(manifest.scripts?.prepack).toBe(`node --import tsx ../../../scripts/pack/prepack.ts${built[manifest.name] ?? ''}`)
    expect(manifest.sideEffects).toBe(false)
  })

  it.each(byDir(plugins))('%s: the cordis metadata declares every service its sources name', (_, pkg) => {
    // `service`, as cordis's and Koishi's manifest readers read it (never `services`), and a description in English and Chinese.
    expect(Object.keys(pkg.manifest.cordis!).sort()).toEqual(['description', 'service'])
    const services = pkg.manifest.cordis!.service!
    expect(Object.keys(services).sort()).toEqual(['implements', 'optional', 'required'])
    expect(pkg.manifest.cordis!.description?.en?.length).toBeGreaterThan(0)
    expect(pkg.manifest.cordis!.description?.zh).toMatch(/[\u4e00-\u9fff]/)
    const provided = new Set<string>()
    const injected = new Set<string>()
    const required = new Set<string>()
    for (const file of sourceFiles(pkg)) {
      const text = readFileSync(file, 'utf8')
      for (const match of text.matchAll(/super\(\s*ctx\s*,\s*'([^']+)'/g)) provided.add(match[1]!)
      for (const match of text.matchAll(/\bctx\.provide\(\s*'([^']+)'/g)) provided.add(match[1]!)
      for (const match of text.matchAll(/export const inject\s*=\s*\[([^\]]*)\]|static (?:readonly )?inject\s*=\s*\[([^\]]*)\]/g)) {
        for (const name of quotedNames(match[1] ?? match[2] ?? '')) required.add(name)
      }
      for (const match of text.matchAll(/\binject(?:\s*[:=]\s*|\(\s*)\[([^\]]*)\]/g)) for (const name of quotedNames(match[1]!)) injected.add(name)
      for (const match of text.matchAll(/\b(?:ctx|context)\.get\(\s*'([^']+)'/g)) injected.add(match[1]!)
    }
    const implemented = services.implements ?? []
    expect(implemented).toEqual(expect.arrayContaining([...provided]))
    expect(services.required).toEqual(expect.arrayContaining([...required]))
    const declared = [...(services.required ?? []), ...(services.optional ?? []), ...implemented]
    expect(declared).toEqual(expect.arrayContaining([...injected]))
  })
})

/** The plugin a package's main entry offers the loader: its default export, or the module itself when it has `apply`. */
async function mainPlugin(pkg: WorkspacePackage): Promise<boolean> {
  const main = pkg.manifest.exports?.['.']
  const source = typeof main === 'string' ? main : (main?.source as string | undefined)
  if (source === undefined) return false
  const entry = (await import(pathToFileURL(join(pkg.path, source)).href)) as { default?: unknown; apply?: unknown }
  const isPlugin = (value: unknown) => typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as { apply?: unknown }).apply === 'function')
  return isPlugin(entry.default) || typeof entry.apply === 'function'
}

describe('what the metadata claims', () => {
  it.each(byDir(plugins))('%s: a cordis block means the main entry exports a plugin', async (_, pkg) => {
    expect(await mainPlugin(pkg)).toBe(true)
  })

  it('a package whose main entry exports no plugin carries no cordis block', async () => {
    for (const pkg of all.filter((candidate) => candidate.manifest.cordis === undefined)) {
      expect({ name: pkg.manifest.name, plugin: await mainPlugin(pkg) }).toEqual({ name: pkg.manifest.name, plugin: false })
    }
  })
})

describe('packed packages', () => {
  const temp = new TempDirs('dsh-pack')
  let packed: Packed[] = []
  let layout: ConsumerLayout

  beforeAll(async () => {
    const build = await buildPackages()
    if (!build.ok) throw new Error(`tsc -b failed:\n${build.stdout}\n${build.stderr}`)
    const root = temp.create('consumer')
    packed = await Promise.all(published.map((pkg) => packPackage(pkg, join(root, 'tarballs'), join(root, 'packages'))))
    layout = assembleConsumer(root, packed)
  }, 180_000)

  afterAll(() => temp.removeAll())

  const packedOf = (pkg: WorkspacePackage): Packed => {
    const entry = packed.find((candidate) => candidate.pkg.dir === pkg.dir)
    if (!entry) throw new Error(`${pkg.dir} was not packed`)
    return entry
  }

  it.each(byDir(published))('%s: ships built JavaScript with declarations, README and LICENSE, and nothing else', (_, pkg) => {
    const { files } = packedOf(pkg)
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']))
    const rest = files.filter((file) => !['package.json', 'README.md', 'LICENSE'].includes(file))
    // The page's package also ships the built page: its index.html and the assets it loads.
    const shipsPage = pkg.manifest.name === 'dsh-settings-page-assets'
    if (shipsPage) expect(rest).toEqual(expect.arrayContaining(['page/index.html', expect.stringMatching(/^page\/assets\/.+\.js$/)]))
    // The command's package also ships its launcher and the bundled `get` path with its code cache.
    const bundled = pkg.manifest.name === 'dsh' ? DSH_BUNDLED : []
    if (bundled.length > 0) expect(rest).toEqual(expect.arrayContaining(bundled))
    expect(
      rest.filter(
        (file) =>
          !/^dist\/.+\.(js|d\.ts)$/.test(file) &&
          !bundled.includes(file) &&
          !(shipsPage && /^page\/[^.][^/]*(\/[^.][^/]*)*$/.test(file) && !file.endsWith('.map')),
      ),
    ).toEqual([])
    const scripts = rest.filter((file) => file.startsWith('dist/') && file.endsWith('.js'))
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of scripts) expect(files, `declarations of ${script}`).toContain(script.replace(/\.js$/, '.d.ts'))
    expect(readFileSync(join(packedOf(pkg).dir, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROOT, 'LICENSE'), 'utf8'))
  })

  it('the packed dsh launcher runs `settings get` from its bundle, and V8 accepts the shipped code cache', async () => {
    const dsh = packed.find((entry) => entry.manifest.name === 'dsh')!
    expect(dsh.manifest.bin).toEqual({ dsh: './dist/bin.cjs' })
    const bundle = join(dsh.dir, 'dist', 'get.bundle.cjs')
    // The same wrapper the launcher compiles: V8 refuses a cache recorded for other bytes.
    const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8').replace(/^#!.*/, '')}\n})`
    const script = new Script(source, { filename: bundle, cachedData: readFileSync(join(dsh.dir, 'dist', 'get.bundle.cache')) })
    expect(script.cachedDataRejected).toBe(false)
    const help = await runCommand(process.execPath, [join(dsh.dir, 'dist', 'bin.cjs'), 'settings', 'get', '--help'], layout.app)
    expect(help.ok).toBe(true)
    expect(help.stdout).toMatch(/^usage: dsh settings get /)
  })

  it.each(byDir(published))('%s: its manifest points only at shipped files and names no workspace range', (_, pkg) => {
    const { manifest, files } = packedOf(pkg)
    expect(manifest.publishConfig).toBeUndefined()
    const targets = exportTargets(manifest.exports!)
    expect(targets.filter((entry) => entry.conditions.includes('source'))).toEqual([])
    for (const { target } of targets) expect(files, `exports target ${target}`).toContain(target.replace(/^\.\//, ''))
    for (const target of [manifest.main, manifest.types]) expect(files).toContain(target!.replace(/^\.\//, ''))
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) expect(range, `${field}.${name}`).not.toMatch(/^workspace:/)
    }
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
      const ours = packed.find((entry) => entry.manifest.name === name)
      if (ours) expect(satisfiesCaret(ours.manifest.version, range), `${name}@${ours.manifest.version} satisfies ${range}`).toBe(true)
    }
  })

  it('the consumer project resolves one copy of every shared package', () => {
    const targets = new Map<string, Set<string>>()
    for (const links of layout.links.values()) {
      for (const [name, target] of links) targets.set(name, (targets.get(name) ?? new Set()).add(target))
    }
    for (const name of SHARED) expect(targets.get(name)?.size, name).toBe(1)
  })

  it('plain Node imports every entry point of every packed package from the consumer project', async () => {
    const entries = packed.flatMap(({ manifest }) =>
      Object.keys(manifest.exports!)
        .filter((subpath) => subpath !== './package.json')
        .map((subpath) => manifest.name + subpath.slice(1)),
    )
    const script = `
      import { createRequire } from 'node:module'
      const require = createRequire(process.cwd() + '/')
      const report = {}
      for (const entry of JSON.parse(process.argv[1])) {
        try {
          const module = await import(entry)
          report[entry] = { exports: Object.keys(module), file: require.resolve(entry) }
        } catch (error) {
          report[entry] = { error: String(error && error.stack || error) }
        }
      }
      console.log(JSON.stringify(report))
    `
    const result = await runPlainNode(script, layout.app, [JSON.stringify(entries)])
    expect(result.ok, result.stderr).toBe(true)
    const report = JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, { exports?: string[]; file?: string; error?: string }>
    for (const entry of entries) {
      const found = report[entry]!
      expect(found.error, entry).toBeUndefined()
      // Loaded from the extracted tarball's dist, not from the workspace's sources.
      expect(found.file, entry).toMatch(/\/packages\/[^/]+\/dist\/(?:[^/]+\/)?[^/]+\.js$/)
      expect(found.file!.startsWith(ROOT), entry).toBe(false)
      expect(found.exports, entry).toEqual(expect.arrayContaining(EXPECTED_EXPORTS[entry] ?? []))
      expect(found.exports!.length, entry).toBeGreaterThan(0)
    }
    for (const name of Object.keys(EXPECTED_EXPORTS)) expect(entries, 'an expected entry point is published').toContain(name)
  })

  it('in the consumer, the packed provider, controller and remote errors work together across packages', async () => {
    const script = `
      import { Context } from 'cordis'
      import Schema from 'schemastery'
      import { MemorySettingsProvider } from 'dsh-settings/memory'
      import SettingsController from 'dsh-settings-controller'
      import { RemoteError } from 'dsh-remote'
      const root = new Context()
      root.logger.exporter({ export: () => {} })
      await root.plugin(MemorySettingsProvider, { document: { demo: { port: 8080 } } })
      await root.plugin(SettingsController, {})
      await root.plugin({
        inject: ['settings'],
        apply: (ctx) => void ctx.settings.register('demo', Schema.object({ port: Schema.natural().max(65535).default(80) })),
      })
      let controller
      await root.inject(['settingsController'], (ctx) => { controller = ctx.settingsController })
      const report = { value: controller.describe().namespaces.find((view) => view.ns === 'demo')?.value }
      try {
        await controller.update('demo', { port: -1 })
        report.refused = false
      } catch (error) {
        report.refused = { remoteError: error instanceof RemoteError, code: error.code }
      }
      console.log(JSON.stringify(report))
      process.exit(0)
    `
    const result = await runPlainNode(script, layout.app)
    expect(result.ok, result.stderr).toBe(true)
    const report = JSON.parse(result.stdout.trim().split('\n').pop()!) as unknown
    // The controller recognizes the seam's error classes and the app recognizes the controller's:
    // one copy of dsh-settings and dsh-remote, as the peer dependencies promise.
    expect(report).toEqual({ value: { port: 8080 }, refused: { remoteError: true, code: 'settings/rejected' } })
  })

  it('a TypeScript consumer type-checks against the packed declarations alone', async () => {
    // The published `types` conditions, and every declaration file checked (no skipLibCheck): an
    // unresolvable or undeclared type import fails here. Bundler resolution, because cordis's own
    // declarations use extensionless relative imports that nodenext refuses.
    const files = packed.flatMap(({ manifest }) =>
      Object.keys(manifest.exports!)
        .filter((subpath) => subpath !== './package.json')
        .map((subpath, index) => `import * as ${manifest.name.replace(/-/g, '_')}_${index} from '${manifest.name + subpath.slice(1)}'\nvoid ${manifest.name.replace(/-/g, '_')}_${index}`),
    )
    const usage = `
      import { Context } from 'cordis'
      import Schema from 'schemastery'
      import FileSettingsProvider from 'dsh-settings-file'
      import SettingsController from 'dsh-settings-controller'

      export function deploy(root: Context): void {
        root.plugin(FileSettingsProvider, { home: '/tmp/unused', watch: false })
        root.plugin(SettingsController, {})
        root.inject(['settings', 'settingsController'], (ctx) => {
          // Both services come typed through the packages' augmentations of the app's one cordis.
          const ui = ctx.settings.register('ui-theme', Schema.object({ dark: Schema.boolean().default(false) }))
          const dark: boolean = ui.get().dark
          void dark
          void ctx.settingsController.describe()
        })
      }
    `
    writeFileSync(join(layout.app, 'entries.ts'), `${files.join('\n')}\n`)
    writeFileSync(join(layout.app, 'usage.ts'), usage)
    const compilerOptions = { module: 'esnext', moduleResolution: 'bundler', target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] }
    writeFileSync(join(layout.app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['entries.ts', 'usage.ts'] }))
    linkTypesNode(layout.app)
    const result = await runCommand(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', layout.app], layout.app)
    expect(result.ok, `${result.stdout}\n${result.stderr}`).toBe(true)
  })

  it('every published package was packed and installed in the consumer project', () => {
    expect(packed.map((entry) => entry.manifest.name).sort()).toEqual(published.map((pkg) => pkg.manifest.name).sort())
    for (const entry of packed) expect(existsSync(join(layout.app, 'node_modules', entry.manifest.name, 'package.json'))).toBe(true)
  })
})
