/**
 * A site: a throwaway consumer project the docs' blocks run in, as a user's
 * would. Its `node_modules` links this workspace's packages (their built
 * `dist`, as published: no `source` condition), `cordis`, `schemastery`,
 * `tsx`, `typescript` and Node's types; `dsh` and `tsc` are on its PATH; its home is `.dsh` inside it
 * (`DSH_HOME`), and its remote server takes any free port (`DSH_PORT=0`).
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parse, stringify } from 'yaml'
import { planDeployment, type Entry } from 'dsh-loader'
import type { TempDirs } from '../lib/temp-dirs.ts'
import { ROOT, workspacePackages } from '../pack/workspace.ts'
import { Background } from './processes.ts'

/** Third-party packages a site holds besides our own. */
const THIRD_PARTY = ['cordis', 'schemastery', 'tsx', 'typescript', '@types/node']
/** The probe plugin the test adds to a deployment to learn each entry's outcome. */
export const PROBE = join(ROOT, 'scripts', 'docs', 'probe-plugin.ts')
/** The `dsh` executable, built. */
const DSH_BIN = join(ROOT, 'packages', 'tools', 'dsh', 'dist', 'bin.js')
/** TypeScript's `tsc`, as `npm install typescript` gives a project. */
const TSC_BIN = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

/** Every specifier a deployment plugs, scope groups included, in order and without repeats. */
export function entrySpecifiers(entries: readonly Entry[]): string[] {
  const found = entries.flatMap((entry): string[] => (entry.kind === 'scope' ? entrySpecifiers(entry.entries) : [entry.specifier]))
  return [...new Set(found)]
}

/** A deployment's text with the probe entry added last (a `plugins:` map or cordis 4's list form). */
export function withProbe(deployment: string, baseDir: string, env: NodeJS.ProcessEnv): string {
  const specifiers = entrySpecifiers(planDeployment(deployment, env))
  const config = { baseDir, specifiers }
  const data = parse(deployment) as unknown
  if (Array.isArray(data)) return stringify([...data, { id: 'docs-probe', name: PROBE, config }])
  const map = data as { plugins: Record<string, unknown> }
  return stringify({ ...map, plugins: { ...map.plugins, [PROBE]: config } })
}


/** A running deployment of a site. */
export interface Host {
  process: Background
  /** The environment it runs with. */
  env: NodeJS.ProcessEnv
  /** The remote server's URL and token, when the deployment has one. */
  url?: string
  token?: string
}

/** One throwaway consumer project. */
export class Site {
  readonly dir: string
  readonly home: string
  private readonly hosts: Background[] = []

  constructor(temp: TempDirs, label: string) {
    this.dir = temp.create(label)
    this.home = join(this.dir, '.dsh')
    mkdirSync(this.home, { recursive: true, mode: 0o700 })
    const targets = new Map<string, string>(THIRD_PARTY.map((name) => [name, realpathSync(join(ROOT, 'node_modules', name))]))
    for (const pkg of workspacePackages()) if (pkg.manifest.name !== 'dsh-testing') targets.set(pkg.manifest.name, pkg.path)
    for (const [name, target] of targets) {
      const link = join(this.dir, 'node_modules', name)
      mkdirSync(dirname(link), { recursive: true })
      symlinkSync(target, link, 'dir')
    }
    mkdirSync(join(this.dir, 'node_modules', '.bin'))
    writeFileSync(join(this.dir, 'node_modules', '.bin', 'dsh'), `#!/bin/sh\nexec node ${JSON.stringify(DSH_BIN)} "$@"\n`, { mode: 0o755 })
    writeFileSync(join(this.dir, 'node_modules', '.bin', 'tsc'), `#!/bin/sh\nexec node ${JSON.stringify(TSC_BIN)} "$@"\n`, { mode: 0o755 })
    this.write('package.json', `${JSON.stringify({ name: 'docs-site', private: true, type: 'module' }, null, 2)}\n`)
  }

  /** Write a file of the project (folders made as needed). */
  write(name: string, text: string): void {
    mkdirSync(dirname(join(this.dir, name)), { recursive: true })
    writeFileSync(join(this.dir, name), text.endsWith('\n') ? text : `${text}\n`)
  }

  /** The environment commands run with: the site's home and PATH, no inherited Node options or remote address. */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: this.home, DSH_PORT: '0', NODE_OPTIONS: '', PATH: `${join(this.dir, 'node_modules', '.bin')}:${process.env.PATH}` }
    for (const name of ['DSH_URL', 'DSH_TOKEN', 'DSH_DATABASE_URL']) delete env[name]
    return { ...env, ...extra }
  }

  /**
   * Run `dsh start` on `cordis.yml` of the site with the probe added, and wait
   * until every entry has settled (each probe line is there) and, when the
   * deployment has a remote server, until it answers.
   */
  async start(extraEnv: NodeJS.ProcessEnv = {}): Promise<Host> {
    const deployment = readFileSync(join(this.dir, 'cordis.yml'), 'utf8')
    const env = this.env(extraEnv)
    this.write('cordis.probed.yml', withProbe(deployment, this.dir, env))
    const host = new Background(process.execPath, [DSH_BIN, 'start', 'cordis.probed.yml'], { cwd: this.dir, env })
    this.hosts.push(host)
    try {
      for (const specifier of entrySpecifiers(planDeployment(deployment, env))) {
        await host.waitFor(`an outcome for ${specifier}`, () => {
          // An entry that cannot even be imported (the probe included) never gets an outcome: say why at once.
          if (/^\[E\].*could not be loaded/m.test(host.output)) throw new Error(`an entry could not be loaded:\n${host.output}`)
          return host.output.includes(`docs-probe ${specifier}: `)
        })
      }
      if (!/^\s*-?\s*(?:name:\s*)?dsh-remote\b/m.test(deployment)) return { process: host, env }
      return { process: host, env, ...(await this.remote(host)) }
    } catch (error) {
      // A host that never came up is ended here: the caller's cleanup starts only once `start` answers.
      host.kill()
      await host.exited
      throw error
    }
  }

  /** The URL and token of the site's running remote server, once its record names this host. */
  async remote(host: Background): Promise<{ url: string; token: string }> {
    const record = join(this.home, 'remote-host.json')
    await host.waitFor('the remote host record', () => existsSync(record) && readFileSync(record, 'utf8').includes('"url"'))
    const { url } = JSON.parse(readFileSync(record, 'utf8')) as { url: string }
    return { url, token: readFileSync(join(this.home, 'remote-token'), 'utf8').trim() }
  }

  /** Interrupt every host still running (cleanup; a test that cares awaits its own `interrupt`). */
  async stopAll(): Promise<void> {
    await Promise.all(this.hosts.filter((host) => !host.done).map((host) => host.interrupt()))
  }
}
