/**
 * An adapter-shaped plugin (fixtures/bridge.cordis.yml: a token beside a union
 * of protocols told apart by a constant): `dsh settings check` and `dsh
 * settings set` name the refused field inside the branch the section means
 * (`heartbeat` under `protocol: ws`), not the section as a whole, and never
 * the value; a deployment that has not written its document yet is checked
 * as an empty one.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { RemoteError } from 'dsh-remote'
import { runDsh } from '../src/main.ts'
import { connect } from '../src/values/connect.ts'

const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const DEPLOYMENT = 'packages/tools/dsh/tests/fixtures/bridge.cordis.yml'
const TOKEN = 'bridge-token-5d1e'

const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A fresh home, holding `document` as its settings.yaml when given. */
function home(document?: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-bridge-')))
  temps.push(dir)
  if (document !== undefined) writeFileSync(join(dir, 'settings.yaml'), document)
  return dir
}

async function dsh(dir: string, ...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runDsh(args, { out: (line) => out.push(...line.split('\n')), err: (line) => err.push(...line.split('\n')), cwd: WORKSPACE, env: { DSH_HOME: dir, DSH_PORT: '0' }, conditions: ['source'] })
  return { code, out, err }
}

describe('dsh settings on an adapter-shaped plugin', () => {
  it('check reports a value its protocol\'s branch refuses at that field\'s line and column', async () => {
    const dir = home(`chat-bridge:\n  token: ${TOKEN}\n  protocol: ws\n  heartbeat: fast\n`)
    const document = join(dir, 'settings.yaml')
    const { code, out, err } = await dsh(dir, 'settings', 'check', DEPLOYMENT)
    expect(out).toEqual([
      `${document}:4:14: chat-bridge $.heartbeat: expected number [invalid-value]`,
      `settings check: 1 problem in ${document} against ${DEPLOYMENT} (namespaces: chat-bridge; scopes: (none))`,
    ])
    expect(err).toEqual([])
    expect(code).toBe(1)
  })

  it('check reports a protocol no branch takes at the protocol field, with the protocols there are', async () => {
    const dir = home(`chat-bridge:\n  token: ${TOKEN}\n  protocol: htp\n`)
    const { code, out } = await dsh(dir, 'settings', 'check', DEPLOYMENT)
    expect(out[0]).toBe(`${join(dir, 'settings.yaml')}:3:13: chat-bridge $.protocol: expected "http" | "ws" [invalid-value]`)
    expect(out.join('\n')).not.toContain('htp')
    expect(code).toBe(1)
  })

  it('set refuses with exit 1 a value the branch refuses, naming the field and what it wants, never the value', async () => {
    const before = `chat-bridge:\n  token: ${TOKEN}\n  protocol: ws\n`
    const dir = home(before)
    const { code, out, err } = await dsh(dir, 'settings', 'set', 'chat-bridge.heartbeat', 'abc', '-d', DEPLOYMENT)
    expect(code).toBe(1)
    expect(out).toEqual([])
    expect(err.join('\n')).toContain('is invalid at $.heartbeat: expected number')
    expect(err.join('\n')).not.toMatch(/abc|bridge-token/)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(before)
  })

  it('the controller\'s refusal carries the field as details.path', async () => {
    const dir = home(`chat-bridge:\n  token: ${TOKEN}\n  protocol: ws\n`)
    const access = await connect(resolve(WORKSPACE, DEPLOYMENT), { out: () => {}, err: () => {}, cwd: WORKSPACE, env: { DSH_HOME: dir }, conditions: ['source'] })
    try {
      const refusal = await access.mutate('chat-bridge', [{ op: 'set', path: ['heartbeat'], value: 'abc' }]).then(
        () => undefined,
        (error: unknown) => error,
      )
      expect(refusal).toBeInstanceOf(RemoteError)
      expect((refusal as RemoteError).details).toMatchObject({ ns: 'chat-bridge', path: ['heartbeat'] })
      expect(JSON.stringify({ message: (refusal as RemoteError).message, details: (refusal as RemoteError).details })).not.toContain('abc')
    } finally {
      await access.close()
    }
  })

  it('check reads a document not written yet as empty: each value the plugin lacks at 1:1, exit 1', async () => {
    const dir = home()
    const document = join(dir, 'settings.yaml')
    const { code, out, err } = await dsh(dir, 'settings', 'check', DEPLOYMENT)
    const rule = 'a value is required and no layer gives one: the plugin waits for setup [missing-value]'
    expect(out).toEqual([
      `${document}:1:1: chat-bridge $.token: ${rule}`,
      `${document}:1:1: chat-bridge $.protocol: ${rule}`,
      `settings check: 2 problems in ${document} against ${DEPLOYMENT} (namespaces: chat-bridge; scopes: (none))`,
    ])
    expect(err).toEqual([`note: the settings document ${document} does not exist yet (the file provider writes it at its first write): checked as an empty document, each problem at line 1, column 1`])
    expect(code).toBe(1)
  })

  it('check still refuses with exit 2 a missing deployment file, and a missing document named on the command line', async () => {
    const dir = home()
    const missingDeployment = await dsh(dir, 'settings', 'check', join(dir, 'cordis.yml'))
    expect(missingDeployment.code).toBe(2)
    expect(missingDeployment.err[0]).toMatch(/cannot read the deployment file .*: ENOENT$/)
    const missingDocument = await dsh(dir, 'settings', 'check', DEPLOYMENT, join(dir, 'named.yaml'))
    expect(missingDocument.code).toBe(2)
    expect(missingDocument.err[0]).toMatch(/cannot read the settings document .*named\.yaml: ENOENT$/)
  })
})
