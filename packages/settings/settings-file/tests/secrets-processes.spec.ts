// Secrets across processes: a writer killed between the store write and the document write leaves a working
// document; the keyring store against a real Secret Service (gnome-keyring under dbus-run-session).
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { bootFile, fileFixture } from './file-harness.ts'

const CHILD = fileURLToPath(new URL('children/secret-writer.ts', import.meta.url))
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url))
const OLD = 'sk-old-5e5e5e5e'
const NEW = 'sk-new-7a7a7a7a'
/** A guard against a hung child or bus, not a speed check. */
const GUARD_MS = 30_000

const fx = fileFixture()
const groups: number[] = []
afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {}
  }
})

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  result: Record<string, unknown> | undefined
  output: string
}

/** Run `command` (its own process group) and collect the child's `@@result` line. */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const child = spawn(command, args, { cwd: PACKAGE_DIR, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  groups.push(child.pid!)
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => child.on('close', (c, s) => done([c, s])))
  clearTimeout(guard)
  const line = output.split('\n').find((text) => text.startsWith('@@result '))
  return { code, signal, result: line ? JSON.parse(line.slice('@@result '.length)) : undefined, output }
}

const node = (...args: string[]) => [process.execPath, '--conditions=source', '--import', 'tsx', CHILD, ...args]

describe('a writer killed between the store write and the document write', () => {
  it('leaves a working document: the plugin keeps its value, the next write goes through', { timeout: 60_000 }, async () => {
    const file = join(fx.dir, 'settings.yaml')
    const text = `# mine\nweb-search:\n  apiKey: ${OLD}\n`
    await writeFile(file, text)
    const [command, ...args] = node(file, 'file', NEW, 'check')
    const killed = await run(command!, args)
    expect(killed.signal).toBe('SIGKILL')
    // The store took the secret; the document was never replaced (its old text, inline value and all).
    expect(await readFile(join(fx.dir, 'secrets.yaml'), 'utf8')).toContain(NEW)
    expect(await readFile(file, 'utf8')).toBe(text)
    fx.harness = await bootFile({ path: file, watch: false })
    let handle!: { get(): { apiKey?: string }; update(patch: object): Promise<void> }
    await fx.harness.root.inject(['settings'], (ctx) => {
      handle = ctx.settings.register('web-search', Schema.object({ apiKey: Schema.string().role('secret') }))
    })
    expect(handle.get().apiKey).toBe(OLD)
    await handle.update({ apiKey: NEW })
    expect(await readFile(file, 'utf8')).toBe('# mine\nweb-search:\n  apiKey: !secret web-search.apiKey\n')
    expect(handle.get().apiKey).toBe(NEW)
  })
})

const KEYRING_TOOLS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool']

/** Run the writer in a fresh session bus (with an unlocked gnome-keyring when `unlock`), HOME and XDG folders under `dir`. */
async function inSession(dir: string, unlock: boolean, file: string, after = ''): Promise<Run> {
  for (const sub of ['data', 'cache', 'config', 'run']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 })
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`
  const start = unlock ? 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ' : ''
  const script = `${start}${node(file, 'keyring', NEW).map(quote).join(' ')}; echo KEYRING-AFTER; ${after}`
  const env = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config'), XDG_RUNTIME_DIR: join(dir, 'run') }
  return run('dbus-run-session', ['--', 'bash', '-c', script], env)
}

describe("secrets: 'keyring' against a real Secret Service", () => {
  it('stores a written secret in the keyring, filed under the document\'s real path, with the reference in the document', { timeout: 60_000 }, async () => {
    const missing = KEYRING_TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
    expect(missing, 'install gnome-keyring dbus libsecret-tools').toEqual([])
    const file = join(realpathSync(fx.dir), 'settings.yaml')
    const lookup = `secret-tool lookup service 'dsh-settings:${file}' username web-search.apiKey`
    const session = await inSession(fx.dir, true, file, lookup)
    expect(session.result, session.output).toEqual({ after: NEW })
    expect(await readFile(file, 'utf8')).toContain('apiKey: !secret web-search.apiKey')
    expect(await readFile(file, 'utf8')).not.toContain(NEW)
    expect(session.output.slice(session.output.indexOf('KEYRING-AFTER') + 14).trim()).toBe(NEW)
  })

  it('fails the start with SECRET_STORE_UNAVAILABLE when no keyring is unlocked, naming what to do', { timeout: 60_000 }, async () => {
    const file = join(realpathSync(fx.dir), 'settings.yaml')
    await writeFile(file, 'web-search:\n  engine: bing\n')
    const session = await inSession(fx.dir, false, file)
    expect(session.result?.error, session.output).toMatchObject({ code: 'SECRET_STORE_UNAVAILABLE' })
    expect(String((session.result?.error as { message: string }).message)).toMatch(/no keyring is unlocked .*set `secrets: file`/)
  })
})
