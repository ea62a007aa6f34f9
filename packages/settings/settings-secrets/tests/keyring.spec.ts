// The keychain store against a real Secret Service: each case starts its own session bus (dbus-run-session) and,
// where it needs one, an unlocked gnome-keyring-daemon, with HOME and the XDG folders in a temp folder of its own.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { keyringFailureReason } from '../src/keyring.ts'

const APT = 'apt-get install -y gnome-keyring dbus libsecret-tools'
const CHILD = fileURLToPath(new URL('children/keyring-ops.ts', import.meta.url))
const VALUE = 'sk-live-7f3a9c'
/** A guard against a hung bus, not a speed check: a session that outlives it is killed and the case fails. */
const GUARD_MS = 30_000

type Op = ({ op: 'get' | 'delete'; name: string } | { op: 'set'; name: string; value: string } | { op: 'names' }) & { deployment?: string }
interface Outcome {
  op: string
  answer?: unknown
  error?: { name: string; code: string; reason: string; service: string; message: string }
}

const dirs: string[] = []
const groups: number[] = []
afterEach(() => {
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {}
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

beforeAll(() => {
  const missing = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
  if (missing.length) throw new Error(`the keyring tests need ${missing.join(', ')}: install them with \`${APT}\``)
})

/** A fresh home for one session (the keyring files live under it). */
function home(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-secrets-keyring-')))
  dirs.push(dir)
  for (const sub of ['data', 'cache', 'config', 'run']) mkdirSync(join(dir, sub), { mode: 0o700 })
  return dir
}

/** A session bus configuration with no service files: nothing answers for org.freedesktop.secrets. */
function emptyBusConfig(dir: string): string {
  const path = join(dir, 'bus.conf')
  writeFileSync(
    path,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir=${dir}/run</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  )
  return path
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

interface Session {
  dir: string
  /** Start and unlock gnome-keyring (password `pw`) before the child runs. */
  unlock?: boolean
  /** Run on a bus that has no Secret Service to activate. */
  noService?: boolean
  /** A shell command run after the child, inside the same session; its output follows the child's. */
  after?: string
}

/** Run `ops` on a KeyringSecretStore for `deployment` in a child process inside a fresh session bus. */
async function runSession(session: Session, deployment: string, ops: Op[]): Promise<{ outcomes: Outcome[]; after: string }> {
  const node = [process.execPath, '--conditions=source', '--import', 'tsx', CHILD, deployment, JSON.stringify(ops)].map(quote).join(' ')
  const unlock = session.unlock ? 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; ' : ''
  const script = `${unlock}${node}; echo KEYRING-AFTER; ${session.after ?? ''}`
  const args = [...(session.noService ? [`--config-file=${emptyBusConfig(session.dir)}`] : []), '--', 'bash', '-c', script]
  const { dir } = session
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
  }
  const child = spawn('dbus-run-session', args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('.', import.meta.url)) })
  groups.push(child.pid!)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const guard = setTimeout(() => child.kill('SIGKILL'), GUARD_MS)
  const code = await new Promise<number | null>((done) => child.on('close', done))
  clearTimeout(guard)
  const line = stdout.split('\n').find((text) => text.startsWith('KEYRING-OUTCOMES '))
  if (!line) throw new Error(`the keyring child printed no outcomes (exit ${code}):\n${stdout}\n${stderr}`)
  return { outcomes: JSON.parse(line.slice('KEYRING-OUTCOMES '.length)) as Outcome[], after: stdout.slice(stdout.indexOf('KEYRING-AFTER\n') + 14) }
}

function expectUnavailable(outcome: Outcome | undefined, service: string, reason?: string): void {
  expect(outcome?.error).toMatchObject({ name: 'SecretStoreUnavailableError', code: 'SECRET_STORE_UNAVAILABLE', service })
  if (reason) expect(outcome?.error?.reason).toBe(reason)
  expect(outcome?.error?.message).toMatch(/^no keyring is unlocked for .*: start one, or set `secrets: file`$/)
  expect(outcome?.error?.message).not.toContain(VALUE)
}

describe('KeyringSecretStore against a real Secret Service', () => {
  it('sets, gets, lists and deletes secrets in an unlocked keyring, filed under dsh-settings:<deployment>', async () => {
    const dir = home()
    const deployment = join(dir, 'settings.yaml')
    const service = `dsh-settings:${deployment}`
    const name = 'preset/coder/web-search["a.b"]'
    const { outcomes, after } = await runSession({ dir, unlock: true, after: `secret-tool lookup service ${quote(service)} username ${quote(name)}` }, deployment, [
      { op: 'get', name },
      { op: 'set', name, value: 'first' },
      { op: 'set', name, value: VALUE },
      { op: 'get', name },
      { op: 'set', name: 'web-search.ключ', value: '密钥 ✓' },
      { op: 'get', name: 'web-search.ключ' },
      { op: 'names' },
      { op: 'delete', name: 'web-search.ключ' },
      { op: 'delete', name: 'web-search.ключ' },
      { op: 'get', name: 'web-search.ключ' },
    ])
    expect(outcomes.map((outcome) => outcome.error)).toEqual(outcomes.map(() => undefined))
    expect(outcomes.map((outcome) => outcome.answer)).toEqual([null, null, null, VALUE, null, '密钥 ✓', [name, 'web-search.ключ'].sort(), true, false, null])
    // The value is in the Secret Service itself, as other tools see it.
    expect(after.trim()).toBe(VALUE)
  })

  it('keeps deployments apart: one deployment sees none of another\'s secrets', async () => {
    const dir = home()
    const { outcomes } = await runSession({ dir, unlock: true }, '/deployment/a', [
      { op: 'set', name: 'web.key', value: VALUE },
      { op: 'set', name: 'web.other', value: 'b', deployment: '/deployment/b' },
      { op: 'names' },
      { op: 'get', name: 'web.key', deployment: '/deployment/b' },
      { op: 'names', deployment: '/deployment/b' },
      { op: 'delete', name: 'web.key', deployment: '/deployment/b' },
      { op: 'get', name: 'web.key' },
    ])
    expect(outcomes.map((outcome) => outcome.answer)).toEqual([null, null, ['web.key'], null, ['web.other'], false, VALUE])
  })

  it('refuses with SecretStoreUnavailableError when the session has a Secret Service but no unlocked keyring', async () => {
    const dir = home()
    const { outcomes } = await runSession({ dir }, '/deployment', [
      { op: 'get', name: 'web.key' },
      { op: 'set', name: 'web.key', value: VALUE },
      { op: 'delete', name: 'web.key' },
      { op: 'names' },
    ])
    expect(outcomes).toHaveLength(4)
    for (const outcome of outcomes) expectUnavailable(outcome, 'dsh-settings:/deployment')
    // The activated daemon has no default keyring to hold a write.
    expect(outcomes.map((outcome) => outcome.error?.reason)).toEqual(['no-keyring', 'no-keyring', 'no-keyring', 'no-keyring'])
  })

  it('refuses with reason locked when the keyring holding the secret is locked, never answering undefined', async () => {
    const dir = home()
    const stored = await runSession({ dir, unlock: true }, '/deployment', [{ op: 'set', name: 'web.key', value: VALUE }])
    expect(stored.outcomes[0]).toEqual({ op: 'set', answer: null })
    // A new session over the same keyring files, with no unlock: the keyring exists and is locked.
    const { outcomes } = await runSession({ dir }, '/deployment', [
      { op: 'get', name: 'web.key' },
      { op: 'get', name: 'web.other' },
      { op: 'set', name: 'web.key', value: 'new' },
      { op: 'names' },
    ])
    expect(outcomes).toHaveLength(4)
    for (const outcome of outcomes) expectUnavailable(outcome, 'dsh-settings:/deployment', 'locked')
  })

  it('refuses with reason no-service when nothing on the bus provides a Secret Service', async () => {
    const dir = home()
    const { outcomes } = await runSession({ dir, noService: true }, '/deployment', [
      { op: 'get', name: 'web.key' },
      { op: 'set', name: 'web.key', value: VALUE },
      { op: 'delete', name: 'web.key' },
      { op: 'names' },
    ])
    expect(outcomes).toHaveLength(4)
    for (const outcome of outcomes) expectUnavailable(outcome, 'dsh-settings:/deployment', 'no-service')
  })
})

describe('keyringFailureReason', () => {
  it('reads the binding\'s messages into closed reasons', () => {
    expect(keyringFailureReason(new Error("Couldn't access platform storage: Secret Service: unlock prompt was dismissed"))).toBe('locked')
    expect(keyringFailureReason(new Error('zbus error: org.freedesktop.Secret.Error.IsLocked: Cannot get secret of a locked object'))).toBe('locked')
    expect(keyringFailureReason(new Error("Couldn't access platform storage: Secret Service: no result found"))).toBe('no-keyring')
    expect(keyringFailureReason(new Error('zbus error: org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files'))).toBe('no-service')
    expect(keyringFailureReason(new Error('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time'))).toBe('no-service')
    expect(keyringFailureReason(new Error('something else'))).toBe('failed')
    expect(keyringFailureReason(undefined)).toBe('failed')
  })
})
