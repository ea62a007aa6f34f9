/**
 * `pnpm start` (scripts/start.ts on the default cordis.yml) as a second host
 * on a port another process holds: it binds the next free port and prints
 * that URL; with every port of its range held, it exits 1 naming the range.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { deferred, endChildren, type Deferred } from 'dsh-testing'
import { DEFAULT_PORT_SPAN } from '../src/index.ts'
import { tempDir } from './harness.ts'
import { holdPorts, type HeldPorts } from './held-ports.ts'

/** The checkout this test runs in (the tests folder is four levels below it). */
const WORKSPACE = resolve(fileURLToPath(import.meta.url), '../../../../..')
const DEPLOYMENT = resolve(WORKSPACE, 'cordis.yml')

const children: ChildProcess[] = []
const held: HeldPorts[] = []
const homes: string[] = []

afterEach(async () => {
  await endChildren(children)
  for (const ports of held.splice(0)) await ports.release()
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true })
})

/** A running `pnpm start`: the lines it printed so far, and a promise of each line to come. */
interface Started {
  child: ChildProcess
  stdout: string[]
  stderr(): string
  exited: Promise<number | null>
  /** Resolves once a stdout line holds `text`; rejects with the output when the child exits first. */
  printed(text: string): Promise<void>
}

/** `pnpm start` as package.json runs it, with its home in a temp folder and DSH_PORT set. */
async function start(port: number): Promise<Started> {
  const home = await tempDir('dsh-remote-start-')
  homes.push(home)
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', resolve(WORKSPACE, 'scripts/start.ts'), DEPLOYMENT], {
    cwd: WORKSPACE,
    env: { ...process.env, DSH_HOME: home, DSH_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  const stdout: string[] = []
  const waiting = new Map<string, Deferred>()
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  createInterface({ input: child.stdout! }).on('line', (line) => {
    stdout.push(line)
    for (const [text, waiter] of waiting) {
      if (!line.includes(text)) continue
      waiting.delete(text)
      waiter.resolve()
    }
  })
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)))
  void exited.then((code) => {
    for (const [text, waiter] of waiting) waiter.reject(new Error(`start exited (${code}) before printing ${JSON.stringify(text)}\n${stdout.join('\n')}\n${stderr}`))
  })
  const printed = (text: string) => {
    if (stdout.some((line) => line.includes(text))) return Promise.resolve()
    const waiter = deferred()
    waiting.set(text, waiter)
    return waiter.promise
  }
  return { child, stdout, stderr: () => stderr, exited, printed }
}

describe('pnpm start on a port another host holds', () => {
  it('binds the next free port and prints its URL; SIGTERM still exits 0', { timeout: 90_000 }, async () => {
    const ports = await holdPorts(1, 1)
    held.push(ports)
    const started = await start(ports.first)
    const next = `http://127.0.0.1:${ports.first + 1}`
    await started.printed(`page and API: ${next}/#token=`)
    expect(started.stdout).toContain(`[I] remote remote: port ${ports.first} is in use; took the next free one`)
    const page = await fetch(`${next}/`)
    expect(page.status).toBe(200)
    await page.body?.cancel()
    // start.ts handles signals once the deployment is running (it prints that line then).
    await started.printed(`running ${DEPLOYMENT}`)
    started.child.kill('SIGTERM')
    expect(await started.exited).toBe(0)
  })

  it('exits 1 naming the ports it tried when every port of its range is held', { timeout: 90_000 }, async () => {
    const ports = await holdPorts(DEFAULT_PORT_SPAN + 1)
    held.push(ports)
    const started = await start(ports.first)
    // A deadline for the failure message only: a host that runs on without its page never exits.
    const outcome = await Promise.race([started.exited, new Promise((done) => setTimeout(() => done('still running after 60 s'), 60_000))])
    expect(outcome).toBe(1)
    expect(started.stderr()).toContain(`cannot start ${DEPLOYMENT}: remote: every port from ${ports.first} to ${ports.first + DEFAULT_PORT_SPAN} is in use on 127.0.0.1`)
    expect(started.stdout.join('\n')).not.toContain('#token=')
  })
})
