/**
 * How the docs test runs a TypeScript or YAML block: a plugin in a real
 * deployment (the section's, else the default one), a deployment as written,
 * a script under tsx. Each runs in a site of its own (`site.ts`) and is held
 * to what the docs promise: every plugin of the deployment starts (or waits
 * for setup where the block says so), no error is logged, the namespaces the
 * block registers are listed by the running host, the page is served where
 * the deployment mounts the remote server and the controller, and the settings
 * document ends up as the section shows it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { planDeployment } from 'dsh-loader'
import { dataEqual } from 'dsh-settings/equal'
import { REFERENCE_TAGS } from 'dsh-settings-secrets'
import type { TempDirs } from '../lib/temp-dirs.ts'
import type { DocBlock } from './blocks.ts'
import { runShell } from './processes.ts'
import { blockFile, deploymentFor, defaultDeployment, mountedBy, pluginDeployment, registeredNamespaces, sectionDocuments, sectionOf, waitsForSetup } from './sections.ts'
import { entrySpecifiers, Site, type Host } from './site.ts'

/** The kinds of block a site writes as files. */
const FILE_KINDS = new Set(['plugin', 'provider', 'script', 'declaration', 'file'])

/** What a runner needs: where to make temp folders, and every block of the docs. */
export interface RunContext {
  temp: TempDirs
  blocks: readonly DocBlock[]
}

/** A label for a block's temp folder. */
function label(block: DocBlock): string {
  return `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}`.toLowerCase()
}

/** A site holding `deployment` as its `cordis.yml`, the TypeScript files of `block`'s section and the section's starting document. */
export function prepareSite(context: RunContext, block: DocBlock, deployment: string): Site {
  const site = new Site(context.temp, label(block))
  site.write('cordis.yml', deployment)
  const section = sectionOf(context.blocks, block)
  for (const other of section) if (FILE_KINDS.has(other.kind) && (other.name || other === block)) site.write(blockFile(other), other.body)
  const { initial } = sectionDocuments(section)
  if (initial) site.write('.dsh/settings.yaml', initial.body)
  return site
}

/** Call one method of the host's `settings` service over the wire. */
export async function callSettings(host: Host, method: string, args: unknown[]): Promise<unknown> {
  const response = await fetch(`${host.url}/remote/settings/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  })
  const body = (await response.json()) as { value?: unknown; error?: unknown }
  if (!response.ok) throw new Error(`settings.${method} answered ${response.status}: ${JSON.stringify(body.error)}`)
  return body.value
}

/** Every entry's outcome as the probe logged it, by specifier. */
function outcomes(host: Host, specifiers: readonly string[]): Map<string, string> {
  const found = new Map<string, string>()
  for (const specifier of specifiers) {
    const line = host.process.output.split('\n').find((candidate) => candidate.includes(`docs-probe ${specifier}: `))
    found.set(specifier, line!.slice(line!.indexOf(`docs-probe ${specifier}: `) + `docs-probe ${specifier}: `.length))
  }
  return found
}

/** Throw unless the host's plugins, log, wire and document are what the section says. */
async function checkHost(context: RunContext, site: Site, host: Host, block: DocBlock, plugins: readonly DocBlock[]): Promise<void> {
  const deployment = readFileSync(join(site.dir, 'cordis.yml'), 'utf8')
  const specifiers = entrySpecifiers(planDeployment(deployment, host.env))
  const waiting = new Set(plugins.filter(waitsForSetup).map((plugin) => `./${blockFile(plugin)}`))
  for (const [specifier, outcome] of outcomes(host, specifiers)) {
    const wanted = waiting.has(specifier) ? /^failed SETTINGS_NEEDS_SETUP:/ : /^active$/
    if (!wanted.test(outcome)) throw new Error(`${specifier}: ${outcome}\n${host.process.output}`)
  }
  const errors = host.process.output.split('\n').filter((line) => line.startsWith('[E]'))
  if (errors.length > 0) throw new Error(`the host logged errors:\n${host.process.output}`)
  if (host.url && /dsh-settings-controller/.test(deployment)) {
    const described = (await callSettings(host, 'describe', [])) as { namespaces: { ns: string; needsSetup?: boolean }[] }
    for (const plugin of plugins) {
      for (const ns of registeredNamespaces(plugin)) {
        const view = described.namespaces.find((candidate) => candidate.ns === ns)
        if (!view || (view.needsSetup ?? false) !== waitsForSetup(plugin)) throw new Error(`${ns} is not listed as the block says: ${JSON.stringify(view)}`)
      }
    }
    await checkPage(host)
  }
  const { after } = sectionDocuments(sectionOf(context.blocks, block))
  if (after) await host.process.waitFor('the document the section shows', () => documentIs(site, after), 20_000)
}

/** Throw unless the host serves the settings page at `/` (the controller offers it shortly after the server starts). */
async function checkPage(host: Host): Promise<void> {
  let status = 0
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((done) => setTimeout(done, 100))) {
    const response = await fetch(`${host.url}/`)
    status = response.status
    const text = await response.text()
    if (status !== 200) continue
    if (!text.includes('<title>Settings</title>')) throw new Error('/ is not the settings page')
    return
  }
  throw new Error(`/ answered ${status}, not the settings page`)
}

/** Whether the site's settings document holds what a document block shows. */
function documentIs(site: Site, block: DocBlock): boolean {
  const path = join(site.home, 'settings.yaml')
  return existsSync(path) && dataEqual(parseReferences(readFileSync(path, 'utf8')) ?? {}, parseReferences(block.body) ?? {})
}

/** A reference reads as what it is (`{ $secret: name }`), so a block showing `!secret a` matches only that reference. */
const REFERENCES = Object.entries(REFERENCE_TAGS).map(([kind, tag]) => ({ tag, resolve: (name: string) => ({ [`$${kind}`]: name }) }))

function parseReferences(text: string): unknown {
  return parse(text, { customTags: REFERENCES })
}

/** Start `site`'s deployment, check it, and stop it: it must exit 0. */
async function runSite(context: RunContext, site: Site, block: DocBlock, plugins: readonly DocBlock[], extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
  const host = await site.start(extraEnv)
  try {
    await checkHost(context, site, host, block, plugins)
  } finally {
    const code = await host.process.interrupt()
    if (code !== 0) throw new Error(`dsh start exited ${code}:\n${host.process.output}`)
  }
}

/** A plugin block that no deployment of its section mounts: in the default deployment. */
export async function runPlugin(context: RunContext, block: DocBlock): Promise<void> {
  await runSite(context, prepareSite(context, block, pluginDeployment(block)), block, [block])
}

/** A deployment block, as written (its `${VAR}`s from `env`). */
export async function runDeploymentBlock(context: RunContext, block: DocBlock, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const plugins = sectionOf(context.blocks, block).filter((other) => other.kind === 'plugin' && mountedBy(context.blocks, other).includes(block))
  await runSite(context, prepareSite(context, block, block.body), block, plugins, env)
}

/** A script block, under tsx; one that reads `DSH_URL` gets a running deployment (its section's or the default one). */
export async function runScript(context: RunContext, block: DocBlock): Promise<void> {
  const site = prepareSite(context, block, deploymentFor(context.blocks, block)?.body ?? defaultDeployment())
  let host: Host | undefined
  try {
    const env: NodeJS.ProcessEnv = {}
    if (/\bDSH_(?:URL|TOKEN)\b/.test(block.body)) {
      host = await site.start()
      Object.assign(env, { DSH_URL: host.url, DSH_TOKEN: host.token })
    }
    const result = await runShell(`node --import tsx ./${blockFile(block)}`, { cwd: site.dir, env: site.env(env) })
    if (result.code !== 0) throw new Error(`the script exited ${result.code}:\n${result.output}`)
  } finally {
    if (host) await host.process.interrupt()
  }
}
