/**
 * A first setup through the command (fixtures/setup-journey.cordis.yml: the
 * published Slack adapter's Config, nothing stored): `dsh settings set` gives
 * the values one at a time, each write is taken while the section is still
 * incomplete, and the last one starts the plugin with exactly those values,
 * through a running host (its plugin starts at once) and through the provider
 * with no host running, by the schemas the host recorded when it last ran (the next host starts it). The secrets typed appear in
 * no line the command or the host prints.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { dsh as runCommand, useHosts, type Ran } from './hosts.ts'
import { recordCatalog } from './catalog-host.ts'
import { dshWithInput } from './stdin.ts'
import { storedSettings } from './stored.ts'

const DEPLOYMENT = 'packages/tools/dsh/tests/fixtures/setup-journey.cordis.yml'
const hosts = useHosts()
/** A fresh home with no settings document. */
const home = () => hosts.home('dsh-setup-journey-')
const startHost = (dir: string) => hosts.start(dir, DEPLOYMENT)

/** Every line a command printed, to scan for secrets. */
const printed: string[] = []

/** `dsh <args>` in process, as `pnpm dsh` runs it, with `DSH_HOME` set; every line it prints is kept to scan. */
async function dsh(dir: string, ...args: string[]): Promise<Ran> {
  const ran = await runCommand(dir, ...args)
  printed.push(...ran.out, ...ran.err)
  return ran
}

/** The values the plugin's `register` returned, one per start, with the process it started in. */
function starts(dir: string): { pid: number; value: Record<string, unknown> }[] {
  const file = join(dir, 'starts.jsonl')
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

/** Stop a host with SIGTERM and wait for its exit code. */
async function stopHost(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((done) => child.once('exit', done))
  child.kill('SIGTERM')
  return exited
}

/** The http form of the Slack adapter, one value a command, unique secrets per run. */
function journey(tag: string): { steps: [string, string][]; secrets: string[]; expected: Record<string, unknown> } {
  const token = `xapp-typed-${tag}-${process.pid}-${Date.now()}`
  const botToken = `xoxb-typed-${tag}-${process.pid}-${Date.now()}`
  const steps: [string, string][] = [
    ['slack.protocol', 'http'],
    ['slack.signing', `signing-${tag}`],
    ['slack.token', token],
    ['slack.botToken', botToken],
  ]
  return { steps, secrets: [token, botToken], expected: { protocol: 'http', signing: `signing-${tag}`, token, botToken } }
}

/** The adapter's secret fields. */
const SECRETS = new Set(['slack.token', 'slack.botToken'])

/**
 * `dsh settings set <address> <value>`, which must be taken (exit 0). A write
 * that leaves the section incomplete may add notes saying the plugin still
 * waits; the last one must leave none.
 */
async function taken(dir: string, address: string, value: string, last: boolean): Promise<{ out: string[]; err: string[] }> {
  // A secret is given on standard input, never as an argument.
  const set = SECRETS.has(address) ? await dshWithInput(dir, `${value}\n`, 'settings', 'set', address, '-d', DEPLOYMENT) : await dsh(dir, 'settings', 'set', address, value, '-d', DEPLOYMENT)
  if (SECRETS.has(address)) printed.push(...set.out, ...set.err)
  expect({ address, code: set.code, other: set.err.filter((line) => !line.startsWith('note: ')) }).toEqual({ address, code: 0, other: [] })
  if (last) expect(set.err.filter((line) => line.includes('not in effect'))).toEqual([])
  return set
}

/** The stored settings, secrets read from the store where the provider keeps them. */
const stored = storedSettings

describe('dsh settings set: setting up a waiting adapter from nothing', () => {
  it('through a running host: each value is taken while the section is incomplete, and the last one starts the host’s plugin with them', { timeout: 120_000 }, async () => {
    printed.length = 0
    const dir = home()
    const host = await startHost(dir)
    expect(starts(dir)).toEqual([])
    expect(existsSync(join(dir, 'settings.yaml'))).toBe(false)
    const { steps, secrets, expected } = journey('host')
    for (const [index, [address, value]] of steps.entries()) {
      const set = await taken(dir, address, value, index === steps.length - 1)
      expect(set.out[0]).toContain('via the running host')
      // Not started before the section is complete.
      if (index < steps.length - 1) expect(starts(dir)).toEqual([])
    }
    await expect.poll(() => starts(dir).length, { timeout: 15_000 }).toBe(1)
    const [start] = starts(dir)
    expect(start!.pid).toBe(host.child.pid)
    expect(start!.value).toMatchObject(expected)
    expect(stored(dir).slack).toEqual(expected)
    // Secrets print as (set) when read back, and never in any line printed or logged.
    expect(JSON.parse((await dsh(dir, 'settings', 'get', 'slack', '--json', '-d', DEPLOYMENT)).out.join('\n'))).toMatchObject({ token: { secret: true, set: true }, botToken: { secret: true, set: true }, protocol: 'http' })
    expect(await stopHost(host.child)).toBe(0)
    for (const secret of secrets) {
      expect(printed.filter((line) => line.includes(secret))).toEqual([])
      expect(host.output()).not.toContain(secret)
    }
  })

  it('with no host running: the values go through the provider one at a time, and the next host starts the plugin with them', { timeout: 120_000 }, async () => {
    printed.length = 0
    const dir = home()
    // The host ran once (the plugin waited: nothing stored) and recorded the schemas a command types and judges by.
    await recordCatalog(hosts, dir, DEPLOYMENT)
    expect(starts(dir)).toEqual([])
    const { steps, secrets, expected } = journey('provider')
    for (const [index, [address, value]] of steps.entries()) {
      const set = await taken(dir, address, value, index === steps.length - 1)
      expect(set.out[0]).toContain('via the provider')
      if (index < steps.length - 1) expect(starts(dir)).toEqual([])
    }
    expect(stored(dir).slack).toEqual(expected)
    // The command runs no plugin's code: the plugin starts in the next host, with the values given.
    expect(starts(dir)).toEqual([])

    const host = await startHost(dir)
    await expect.poll(() => starts(dir).length, { timeout: 15_000 }).toBe(1)
    expect(starts(dir)[0]).toMatchObject({ pid: host.child.pid, value: expected })
    expect(await stopHost(host.child)).toBe(0)
    for (const secret of secrets) {
      expect(printed.filter((line) => line.includes(secret))).toEqual([])
      expect(host.output()).not.toContain(secret)
    }
  })
})
