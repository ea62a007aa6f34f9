/**
 * An adapter-shaped plugin (fixtures/bridge.cordis.yml: a token beside a union
 * of protocols told apart by a constant): `dsh settings check` and `dsh
 * settings set` name the refused field inside the branch the section means
 * (`heartbeat` under `protocol: ws`), not the section as a whole, and never
 * the value; a deployment that has not written its document yet is checked
 * as an empty one.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { RemoteError } from 'dsh-remote'
import { connect } from '../src/values/connect.ts'
import { recordCatalog } from './catalog-host.ts'
import { dsh, useHosts, WORKSPACE } from './hosts.ts'

const DEPLOYMENT = 'packages/tools/dsh/tests/fixtures/bridge.cordis.yml'
const TOKEN = 'bridge-token-5d1e'
const hosts = useHosts()

/** A fresh home, holding `document` as its settings.yaml when given. */
function home(document?: string): string {
  const dir = hosts.home('dsh-bridge-')
  if (document !== undefined) writeFileSync(join(dir, 'settings.yaml'), document)
  return dir
}

/** {@link home}, with the schemas its host recorded when it last ran (a command with no host types and judges by them). */
async function recordedHome(document: string): Promise<string> {
  const dir = home(document)
  await recordCatalog(hosts, dir, DEPLOYMENT)
  return dir
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
    const dir = await recordedHome(before)
    const { code, out, err } = await dsh(dir, 'settings', 'set', 'chat-bridge.heartbeat', 'abc', '-d', DEPLOYMENT)
    expect(code).toBe(1)
    expect(out).toEqual([])
    expect(err.join('\n')).toContain('chat-bridge.heartbeat expects a number')
    expect(err.join('\n')).not.toMatch(/abc|bridge-token/)
    expect(readFileSync(join(dir, 'settings.yaml'), 'utf8')).toBe(before)
  })

  it('the controller\'s refusal carries the field as details.path', async () => {
    const dir = await recordedHome(`chat-bridge:\n  token: ${TOKEN}\n  protocol: ws\n`)
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
