/**
 * The deployment the page bench opens in chromium: the page built once into a
 * temp folder, then per size a memory provider holding a sample section for
 * every namespace, dsh-remote's server on 127.0.0.1 (a free port, a fixed
 * token) serving that folder, the settings controller, and one plugin
 * registering `count` namespaces: `bench-target` (a small schema whose
 * `limit` the save measurement edits) first, then the corpus's published
 * Configs in turn, each under a name of its own.
 */
import { randomBytes } from 'node:crypto'
import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import RemoteServer from 'dsh-remote'
import SettingsController from 'dsh-settings-controller'
import { buildPage } from 'dsh-settings-page/build'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import { corpusEntries, corpusSchema, sampleSection } from 'dsh-testing/corpus'
import { mount, removeTemp, tempDir } from './harness.ts'

/** The namespace whose field the save measurement edits. */
export const TARGET_NS = 'bench-target'

/** The target's schema: one number to edit, and a few fields beside it. */
function targetSchema() {
  return Schema.object({
    limit: Schema.natural().max(1_000_000).default(10).description('Results per query.'),
    engine: Schema.union(['bing', 'google']).default('bing'),
    label: Schema.string().default(''),
  })
}

/** The page's assets, built once for every size. */
export interface PageAssets {
  dir: string
  remove(): Promise<void>
}

/** Build the page into a temp folder with its own Vite settings. */
export async function buildPageAssets(): Promise<PageAssets> {
  const dir = await tempDir('page-assets')
  try {
    await buildPage(dir)
  } catch (error) {
    await removeTemp(dir)
    throw error
  }
  return { dir, remove: () => removeTemp(dir) }
}

/** A running deployment the page can open. */
export interface PageDeployment {
  /** The page's address with its token in the fragment. */
  pageUrl: string
  /** The namespaces registered, in registration order. */
  names: readonly string[]
  dispose(): Promise<void>
}

/** `count` namespaces with their schemas and sample sections: the target, then the corpus in turn. */
function plugins(count: number): { names: string[]; schemas: Schema[]; document: Record<string, unknown> } {
  const entries = corpusEntries()
  const names = [TARGET_NS]
  const schemas: Schema[] = [targetSchema()]
  const document: Record<string, unknown> = {}
  for (let index = 0; names.length < count; index++) {
    const entry = entries[index % entries.length]!
    const round = Math.floor(index / entries.length)
    const ns = round === 0 ? entry.ns : `${entry.ns}-${round}`
    // One schema object per namespace, as every plugin builds its own.
    const schema = corpusSchema(entry)
    names.push(ns)
    schemas.push(schema)
    document[ns] = sampleSection(schema).section
  }
  return { names, schemas, document }
}

/** Boot the provider, server, controller and the registering plugin; the page is served from `assets`. */
export async function startPageDeployment(assets: string, count: number): Promise<PageDeployment> {
  const home = await tempDir('page-home')
  const root = new Context()
  const fibers: Fiber[] = []
  const dispose = async () => {
    for (const fiber of [...fibers].reverse()) await fiber.dispose().catch(() => {})
    await removeTemp(home)
  }
  try {
    const { names, schemas, document } = plugins(count)
    const token = randomBytes(32).toString('base64url')
    const plug = async (fiber: Fiber) => {
      fibers.push(fiber)
      await fiber.await()
    }
    await plug(root.plugin(MemorySettingsProvider, { document }))
    await plug(root.plugin(RemoteServer, { home, port: 0, token, static: assets }))
    await plug(root.plugin(SettingsController, { home, opener: false, page: false }))
    let url!: string
    await root.inject(['remoteServer', 'settingsController'], (ctx) => {
      url = ctx.remoteServer.url
    })
    const { fiber } = await mount(root, (ctx) => names.forEach((ns, index) => ctx.settings.register(ns, schemas[index]!)))
    fibers.push(fiber)
    return { pageUrl: `${url}/#token=${token}`, names, dispose }
  } catch (error) {
    await dispose()
    throw error
  }
}
