/**
 * A migration step that throws on a stored value, end to end (fixtures/legacy-host.cordis.yml: the step
 * `splitHost` runs `JSON.parse` on a legacy `host`, and the section in preset/ops holds a token there). V8's
 * message quotes the value's first 10 characters (`"Zq8XkP2mVt"...`); the failure is told by step name and
 * error class only, and no prefix of the value (4 characters or more) reaches `settings check`'s output, a
 * running host's log, or an answer on the wire (describe, a refused write).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRemote } from 'dsh-remote/client'
import { describe, expect, it } from 'vitest'
import { runDsh } from '../src/main.ts'
import { useHosts, WORKSPACE } from './hosts.ts'

const DEPLOYMENT = 'packages/tools/dsh/tests/fixtures/legacy-host.cordis.yml'
/** Longer than 20 characters, so V8's `JSON.parse` message quotes only its first 10. */
const TOKEN = 'Zq8XkP2mVt7Yw3RnB5cLa9F2kQrT'
const DOCUMENT = ['legacy-host:', `  host: '{"name":"a.example","port":8080}'`, 'scopes:', '  preset/ops:', '    legacy-host:', `      host: ${TOKEN}`, ''].join('\n')
const FAILED = 'step "splitHost" (version 0 to 1) threw SyntaxError'
const hosts = useHosts()

/** Every prefix of the token 4 characters or longer that `text` holds. */
function prefixesIn(text: string): string[] {
  return Array.from({ length: TOKEN.length - 3 }, (_, index) => TOKEN.slice(0, index + 4)).filter((prefix) => text.includes(prefix))
}

/** A temp home holding the document. */
function homeWithDocument(): string {
  const dir = hosts.home('dsh-migration-secrets-')
  writeFileSync(join(dir, 'settings.yaml'), DOCUMENT, { mode: 0o600 })
  return dir
}

describe('a migration step that throws on a stored token', () => {
  it('is a migration-failed line naming the step and the error class in settings check, and nothing of the token', async () => {
    const dir = homeWithDocument()
    const out: string[] = []
    const err: string[] = []
    const code = await runDsh(['settings', 'check', DEPLOYMENT, join(dir, 'settings.yaml')], { out: (line) => out.push(line), err: (line) => err.push(line), cwd: WORKSPACE, env: {}, conditions: ['source'] })
    expect(out[0]).toBe(`${join(dir, 'settings.yaml')}:5:5: legacy-host in preset/ops $: the stored section cannot be migrated from version 0 to 1: ${FAILED} [migration-failed]`)
    expect(code).toBe(1)
    expect(prefixesIn([...out, ...err].join('\n'))).toEqual([])
  })

  it('is logged and answered on the wire by step name and error class, and nothing of the token', { timeout: 90_000 }, async () => {
    const dir = homeWithDocument()
    const host = await hosts.start(dir, DEPLOYMENT)
    const { url } = JSON.parse(readFileSync(join(dir, 'remote-host.json'), 'utf8')) as { url: string }
    const remote = createRemote({ url, token: readFileSync(join(dir, 'remote-token'), 'utf8').trim() }) as any
    const described = await remote.settings.describe('preset/ops')
    const view = (described.namespaces as { ns: string; problem?: { message: string } }[]).find((candidate) => candidate.ns === 'legacy-host')
    expect(view?.problem?.message).toBe(`the stored section cannot be migrated from version 0 to 1: ${FAILED}`)
    const refused = await remote.settings.update('legacy-host', { port: 1 }, null, 'preset/ops').then(
      () => undefined,
      (error: Error) => error,
    )
    expect(refused?.message).toContain(FAILED)
    await expect.poll(() => host.output()).toContain(`migration ${FAILED}`)
    expect(prefixesIn([host.output(), JSON.stringify(described), refused?.stack, JSON.stringify({ ...refused })].join('\n'))).toEqual([])
  })
})
