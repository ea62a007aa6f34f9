/**
 * `dsh settings check` on a deployment whose plugin needs setup
 * (fixtures/setup.cordis.yml): each required value that neither the document
 * nor the deployment gives is a `missing-value` problem at its path (exit 1),
 * the plugin is not also reported as failing, and a document that gives them
 * passes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runDsh } from '../src/main.ts'

const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/setup.cordis.yml`

async function check(document: string): Promise<{ code: number; out: string[] }> {
  const out: string[] = []
  const code = await runDsh(['settings', 'check', DEPLOYMENT, document], { out: (line) => out.push(line), err: (line) => out.push(line), cwd: WORKSPACE, env: {}, conditions: ['source'] })
  return { code, out }
}

describe('dsh settings check: a plugin that needs setup', () => {
  it('reports each missing value by path, and not the plugin as failing', async () => {
    const file = `${FIXTURES}/setup.yaml`
    const { code, out } = await check(file)
    const rule = 'a value is required and no layer gives one: the plugin waits for setup [missing-value]'
    expect(out).toEqual([`${file}:2:1: bot $.token: ${rule}`, `${file}:4:3: bot $.server.host: ${rule}`, `settings check: 2 problems in ${file} against ${DEPLOYMENT} (namespaces: bot; scopes: (none))`])
    expect(code).toBe(1)
  })

  it('passes once the document gives the values', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-check-setup-'))
    try {
      const file = join(dir, 'settings.yaml')
      await writeFile(file, 'bot:\n  token: typed-token-41d\n  server:\n    host: chat.example\n')
      const { code, out } = await check(file)
      expect(out.at(-1)).toMatch(/^settings check: no problems in /)
      expect(out.join('\n')).not.toContain('typed-token-41d')
      expect(code).toBe(0)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
