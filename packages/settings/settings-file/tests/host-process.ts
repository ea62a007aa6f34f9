/**
 * A real host in a child process: `scripts/start.ts` (what `pnpm start` runs) on a deployment file
 * written for the test, with the file provider's document in a temp folder. The deployment file
 * lives under the workspace, so its package names resolve as the default deployment's do.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach } from 'vitest'
import { endChildren } from 'dsh-testing'

/** The checkout (the tests folder is four levels below it). */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const DEPLOYMENTS = join(WORKSPACE, 'node_modules/.cache/dsh-settings-file-tests')

/** A host started by {@link hostFixture}. */
export interface Host {
  child: ChildProcess
  stdout(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Wait until the host printed `text` (fails with what it printed when it exits first or takes over 60 s). `start` has waited for its running line. */
  waitFor(text: string | RegExp): Promise<void>
  /** The address and token of its remote API, once it printed them. */
  remote(): Promise<{ url: string; token: string }>
  /** Call a method of a service it exposes: the HTTP status and the decoded answer. Fails rather than wait over 15 s. */
  call(service: string, method: string, args: unknown[]): Promise<{ status: number; body: unknown }>
}

/**
 * Per test: `folder()`, a settings folder (`$DSH_TEST_DIR` in the deployment, and `$DSH_HOME` below it),
 * and `start(plugins)`, a host running the deployment whose `plugins:` map is `plugins`. The hosts are
 * killed and the folders removed after each test.
 */
export function hostFixture(): { folder(): Promise<string>; start(plugins: string): Promise<Host> } {
  const children: ChildProcess[] = []
  const dirs: string[] = []
  let dir = ''
  const made = async (parent: string, prefix: string) => {
    await mkdir(parent, { recursive: true })
    const made = await realpath(await mkdtemp(join(parent, prefix)))
    dirs.push(made)
    return made
  }
  afterEach(async () => {
    await endChildren(children.splice(0))
    for (const made of dirs.splice(0)) await rm(made, { recursive: true, force: true })
    dir = ''
  })
  const folder = async () => (dir ||= await made(tmpdir(), 'dsh-host-settings-'))
  return {
    folder,
    async start(plugins: string): Promise<Host> {
      await folder()
      const deployment = join(await made(DEPLOYMENTS, 'host-'), 'cordis.yml')
      await writeFile(deployment, `plugins:\n${plugins}`)
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(WORKSPACE, 'scripts/start.ts'), deployment], {
        cwd: WORKSPACE,
        env: { ...process.env, DSH_TEST_DIR: dir, DSH_HOME: join(dir, 'home') },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      let stdout = ''
      let stderr = ''
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })))
      let gone = false
      void exited.then(() => (gone = true))
      const waitFor = async (text: string | RegExp) => {
        const deadline = Date.now() + 60_000
        const found = () => (typeof text === 'string' ? stdout.includes(text) : text.test(stdout))
        while (!found()) {
          if (gone || Date.now() > deadline) throw new Error(`the host did not print ${String(text)}${gone ? ' before exiting' : ''}\nstdout:\n${stdout}\nstderr:\n${stderr}`)
          await new Promise((done) => setTimeout(done, 25))
        }
      }
      const remote = async () => {
        const pattern = /API: (http:\/\/[^/\s]+)\/#token=(\S+)/
        await waitFor(pattern)
        const [, url, token] = pattern.exec(stdout)!
        return { url: url!, token: token! }
      }
      // Printed once the deployment is plugged, in the same turn as the signal handlers are installed: a signal
      // sent from then on stops the host cleanly.
      await waitFor('(edit it to re-plug changed entries; Ctrl-C stops)')
      return {
        child,
        stdout: () => stdout,
        exited,
        waitFor,
        remote,
        async call(service, method, args) {
          const { url, token } = await remote()
          const response = await fetch(`${url}/remote/${service}/${method}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ args }),
            signal: AbortSignal.timeout(15_000),
          })
          return { status: response.status, body: await response.json() }
        },
      }
    },
  }
}
