/**
 * A plugin waiting for setup logs one info line at start, naming its section
 * and the paths it lacks: no stack, no "failed". A plugin that really fails
 * still logs as an error.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { eventually } from 'dsh-testing'
import { afterEach, describe, expect, it } from 'vitest'
import { runDeployment, type Deployment } from '../src/run.ts'
import { waitingAsInfo } from '../src/waiting.ts'

/** Package names (dsh-settings-file, schemastery) resolve from the deployment's folder: it lives under the workspace. */
const WORKSPACE_CACHE = resolve(fileURLToPath(import.meta.url), '../../../../../node_modules/.cache/dsh-loader-tests')

const WAITING = `import Schema from 'schemastery'
export const name = 'chat-bridge'
export const inject = ['settings']
export function apply(ctx) {
  ctx.settings.register('chat-bridge', Schema.object({
    token: Schema.string().role('secret').required(),
    server: Schema.object({ host: Schema.string().required() }).default({}),
  }))
  ctx.logger('chat-bridge').info('connected')
}
`

const BROKEN = `export const name = 'broken'
export function apply() { throw new Error('the broken plugin cannot start') }
`

const dirs: string[] = []
const running: Deployment[] = []
afterEach(async () => {
  for (const deployment of running.splice(0)) await deployment.stop()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function deploy(...entries: string[]): Promise<string[]> {
  await mkdir(WORKSPACE_CACHE, { recursive: true })
  const dir = await realpath(await mkdtemp(join(WORKSPACE_CACHE, 'waiting-')))
  dirs.push(dir)
  await writeFile(join(dir, 'waiting.mjs'), WAITING)
  await writeFile(join(dir, 'broken.mjs'), BROKEN)
  const file = join(dir, 'cordis.yml')
  await writeFile(file, ['plugins:', '  dsh-settings-file:', `    path: ${join(dir, 'settings.yaml')}`, '    watch: false', ...entries, ''].join('\n'))
  const lines: string[] = []
  running.push(await runDeployment(file, { watch: false, write: (line) => lines.push(...line.split('\n')) }))
  return lines
}

describe('a plugin waiting for setup', () => {
  it('logs one info line naming its section and the missing paths, with no stack and no "failed"', async () => {
    const lines = await deploy('  ./waiting.mjs: {}')
    const expected = '[I] chat-bridge settings "chat-bridge" needs setup: a value is required at $.token, $.server.host (the plugin waits, and starts once they are given)'
    await eventually(() => expect(lines).toContain(expected))
    await running[0]!.stop()
    expect(lines.filter((line) => line.includes('chat-bridge'))).toEqual([expected])
    expect(lines.filter((line) => line.startsWith('[E]') || /failed|^\s+at /.test(line))).toEqual([])
  })

  it('leaves a plugin that fails for another reason logged as an error', async () => {
    const lines = await deploy('  ./waiting.mjs: {}', '  ./broken.mjs: {}')
    await eventually(() => expect(lines).toContain('[E] loader plugin ./broken.mjs failed: the broken plugin cannot start'))
    expect(lines.filter((line) => line.startsWith('[E]') && line.includes('chat-bridge'))).toEqual([])
  })
})

describe('waitingAsInfo', () => {
  const record = (type: string, args: unknown[]) => ({ id: 1, type, name: 'bridge', level: 1, ts: 0, content: '', args }) as unknown as Parameters<typeof waitingAsInfo>[0]
  const waiting = Object.assign(new Error('settings "bridge" needs setup: a value is required at $["50%"]'), { code: 'SETTINGS_NEEDS_SETUP', ns: 'bridge', missing: [['50%']] })

  it('turns only an error record holding just a waiting registration into info', () => {
    expect(waitingAsInfo(record('error', [waiting]))).toMatchObject({ type: 'info', args: ['%s (the plugin waits, and starts once they are given)', waiting.message] })
    for (const other of [record('error', [new Error('boom')]), record('warn', [waiting]), record('error', ['reload failed:', waiting])]) expect(waitingAsInfo(other)).toBe(other)
  })
})
