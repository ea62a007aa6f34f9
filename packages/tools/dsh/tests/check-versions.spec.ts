/**
 * `dsh settings check` on a deployment whose plugin versions its settings
 * (fixtures/versioned.cordis.yml): a section stored at an older version and a
 * key the plugin does not use are warnings (exit 0), each at its place and
 * without any stored value; a migration step that fails on a section is a
 * problem naming the step (exit 1).
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runDsh } from '../src/main.ts'

const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const FIXTURES = 'packages/tools/dsh/tests/fixtures'
const DEPLOYMENT = `${FIXTURES}/versioned.cordis.yml`

/** Run `dsh settings check <deployment> <document>` in process. */
async function check(document: string): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runDsh(['settings', 'check', DEPLOYMENT, document], { out: (line) => out.push(line), err: (line) => err.push(line), cwd: WORKSPACE, env: {}, conditions: ['source'] })
  return { code, out, err }
}

/** Every value planted in a fixture (after a key, before a comment): none may reach the output. */
function planted(file: string): string[] {
  const values = [...readFileSync(join(WORKSPACE, file), 'utf8').matchAll(/^\s*[\w$-]+: (\S+?)(?:\s+#.*)?$/gm)].map((match) => match[1]!).filter((value) => value.length > 8)
  expect(values.length).toBeGreaterThan(1)
  return values
}

const UNUSED = 'not used by this plugin: its schema declares no such key, so the value is kept but never read (remove it, or move it where the plugin reads it) [undeclared-key]'

describe('dsh settings check: versioned sections and keys nobody declares', () => {
  it('warns about a section that would migrate and about keys the plugin does not use, and exits 0', async () => {
    const file = `${FIXTURES}/versioned.yaml`
    const { code, out, err } = await check(file)
    expect(out).toEqual([
      `${file}:1:1: warning: versioned: stored at version 0 of the plugin's settings, which is at version 2: it migrates when the plugin starts (rename $.apiKey to $.token; splitHost) [would-migrate]`,
      `${file}:5:3: warning: versioned $.legacy: ${UNUSED}`,
      `${file}:11:7: warning: versioned in preset/ops $.tokn: ${UNUSED}`,
      `settings check: no problems, 3 warnings in ${file} against ${DEPLOYMENT} (namespaces: versioned; scopes: preset/ops)`,
    ])
    expect(err).toEqual([])
    expect(code).toBe(0)
    for (const value of planted(file)) expect(out.join('\n')).not.toContain(value)
  })

  it('reports a migration step that fails on a stored section as a problem naming the step, and exits 1', async () => {
    const file = `${FIXTURES}/versioned-failing.yaml`
    const { code, out } = await check(file)
    expect(out).toEqual([
      `${file}:1:1: versioned $: the stored section cannot be migrated from version 1 to 2: step "splitHost" (version 1 to 2) threw Error [migration-failed]`,
      `settings check: 1 problem in ${file} against ${DEPLOYMENT} (namespaces: versioned; scopes: preset/ops)`,
    ])
    expect(code).toBe(1)
    for (const value of planted(file)) expect(out.join('\n')).not.toContain(value)
  })
})
