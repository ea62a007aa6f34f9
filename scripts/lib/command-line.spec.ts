/**
 * `pnpm bench` and `pnpm torture` read their command lines strictly: `--help`
 * prints the usage and runs nothing, anything unknown exits 2 with the usage.
 * Each is spawned as `pnpm bench`/`pnpm torture` run it.
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')

function run(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  return new Promise((done) => child.once('close', (code) => done({ code, stdout, stderr })))
}

describe.each([
  ['pnpm bench', 'scripts/bench/index.ts', '--scale'],
  ['pnpm torture', 'scripts/torture/index.ts', '--quick'],
])('%s', (command, script, known) => {
  it('prints its usage for --help and -h, and runs nothing', { timeout: 60_000 }, async () => {
    for (const flag of ['--help', '-h']) {
      const result = await run(script, [known, flag])
      expect(result.code).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`^usage: ${command}`))
      expect(result.stdout).toContain(known)
      // Nothing ran: the usage is all it printed (it ends with the exit codes), no progress line, no table.
      expect(result.stderr).toBe('')
      expect(result.stdout).toMatch(/usage error\.\n$/)
      expect(result.stdout).not.toMatch(/^\|/m)
    }
  })

  it('refuses an unknown option or an argument with exit 2 and the usage on stderr', { timeout: 60_000 }, async () => {
    for (const args of [['--frobnicate'], ['stray'], [known, '--verbose']]) {
      const result = await run(script, args)
      expect({ args, code: result.code }).toEqual({ args, code: 2 })
      expect(result.stderr).toContain(`usage: ${command}`)
      expect(result.stdout).toBe('')
    }
  })
})

describe('pnpm torture --only', () => {
  it('refuses a scenario that does not exist, naming the known ones', { timeout: 60_000 }, async () => {
    const result = await run('scripts/torture/index.ts', ['--quick', '--only', 'kill-storm,nope'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('unknown scenario nope; known: kill-storm, hand-edits')
    expect(result.stderr).not.toContain('torture: kill storm')
  })
})
