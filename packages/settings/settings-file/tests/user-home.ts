/**
 * A user's home for tests of a host run as root over it (`sudo`): a temp folder given to an
 * unprivileged uid (it need not exist in /etc/passwd), and that user's own host as a real child
 * process running with that uid. Where the tests do not run as root, nothing can be given away:
 * the "user" is this process's own uid and the child runs as it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chown, lstat, mkdtemp, readdir, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach } from 'vitest'
import { endChildren } from 'dsh-testing'

/** Whether the tests run as root (then the root-run cases are staged for real). */
export const AS_ROOT = process.geteuid?.() === 0

/** The user who owns the home: nobody:nogroup under root, else this process's own ids. */
export const USER = AS_ROOT ? { uid: 65534, gid: 65534 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }

/** The checkout (tests are four levels below it), where a child resolves the workspace's packages. */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')

/** One file's owner, by its path under the home. */
export interface Owned {
  path: string
  uid: number
  gid: number
}

/**
 * Per test: `home.dir`, a fresh folder owned by {@link USER}, removed after the test with every
 * child process started through `home.run`.
 */
export function userHome(): { dir: string; run(script: string, args: string[]): Promise<ChildResult> } {
  const children: ChildProcess[] = []
  const home = {
    dir: '',
    run: (script: string, args: string[]) => runAsUser(children, home.dir, script, args),
  }
  beforeEach(async () => {
    home.dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-user-home-')))
    await chown(home.dir, USER.uid, USER.gid)
  })
  afterEach(async () => {
    await endChildren(children.splice(0))
    await rm(home.dir, { recursive: true, force: true })
  })
  return home
}

/** What a child reported. */
export interface ChildResult {
  code: number | null
  /** The payload of its `@@result` line, when it printed one. */
  result: Record<string, unknown> | undefined
  stderr: string
}

/** Run `tests/children/<script>` with `args` as {@link USER} (uid and gid set only under root), until it exits. */
async function runAsUser(children: ChildProcess[], home: string, script: string, args: string[]): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(WORKSPACE, 'packages/settings/settings-file/tests/children', script), ...args], {
    cwd: WORKSPACE,
    env: { ...process.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(AS_ROOT ? { uid: USER.uid, gid: USER.gid } : {}),
  })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail)
    child.once('exit', (exit) => done(exit))
  })
  const line = stdout.split('\n').find((text) => text.startsWith('@@result '))
  return { code, result: line ? (JSON.parse(line.slice('@@result '.length)) as Record<string, unknown>) : undefined, stderr }
}

/**
 * Every file and folder under `dir` (not `dir` itself) with its owner, by `lstat` (a symlink is not followed).
 * A name gone between the listing and its look (the editor schema writer's temp, renamed into place meanwhile) is skipped.
 */
export async function ownersUnder(dir: string): Promise<Owned[]> {
  const found: Owned[] = []
  for (const name of await readdir(dir)) {
    const path = join(dir, name)
    const info = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (!info) continue
    found.push({ path, uid: info.uid, gid: info.gid })
    if (info.isDirectory()) found.push(...(await ownersUnder(path)))
  }
  return found
}
