import { Context, Service, type Fiber } from 'cordis'
import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { existsSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { createScope } from 'dsh-scope'
import type { SettingsProvider, SettingsRegisterOptions, SettingsSchema } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { RemoteExposeOptions, RemoteHandlers } from 'dsh-remote'
import SettingsController, { RemoteError, type SettingsControllerConfig } from '../src/index.ts'
import { logText } from 'dsh-testing'

export { deferred, eventually } from 'dsh-testing'

/** One captured log line. */
export interface LogLine {
  type: string
  text: string
}

/** A root context with captured logs. */
export function rootContext(): { root: Context; logs: LogLine[] } {
  const root = new Context()
  const logs: LogLine[] = []
  root.logger.exporter({ export: (message) => logs.push({ type: message.type, text: message.args.map(logText).join(' ') }) })
  return { root, logs }
}

/** Plug the controller and resolve with its service as a caller sees it, plus its fiber. */
export async function plugController(root: Context, config: SettingsControllerConfig = {}): Promise<{ controller: SettingsController; fiber: Fiber }> {
  const fiber = root.plugin(SettingsController, config)
  await fiber
  let controller!: SettingsController
  await root.inject(['settingsController'], (ctx) => {
    controller = ctx.settingsController
  })
  return { controller, fiber }
}

/** Plug a provider plugin and wait for its service. */
export async function plugProvider<P extends SettingsProvider>(root: Context, plugin: new (ctx: Context, config: any) => P, config: unknown = {}): Promise<{ provider: P; fiber: Fiber }> {
  const fiber = root.plugin(plugin as any, config)
  await fiber
  let provider!: P
  await root.inject(['settings'], (ctx) => {
    provider = ctx.settings as unknown as P
  })
  return { provider, fiber }
}

/** A booted deployment: memory provider plus controller. */
export interface Booted {
  root: Context
  logs: LogLine[]
  provider: MemorySettingsProvider
  providerFiber: Fiber
  controller: SettingsController
  controllerFiber: Fiber
  /** Register a kind on a fresh plugin, globally or inside a named scope. */
  register<T>(ns: string, schema: SettingsSchema<T>, options?: SettingsRegisterOptions<T>, scope?: string): Promise<Fiber>
}

/** Boot a memory provider and the controller. */
export async function boot(providerConfig: MemorySettingsProvider.Config = {}, config: SettingsControllerConfig = { opener: false }): Promise<Booted> {
  const { root, logs } = rootContext()
  const { provider, fiber: providerFiber } = await plugProvider(root, MemorySettingsProvider, providerConfig)
  const { controller, fiber: controllerFiber } = await plugController(root, config)
  return {
    root,
    logs,
    provider,
    providerFiber,
    controller,
    controllerFiber,
    register: (ns, schema, options, scope) => registerKind(root, ns, schema, options, scope),
  }
}

/** Register a kind on its own plugin fiber; rejects with the registration's failure. */
export async function registerKind<T>(root: Context, ns: string, schema: SettingsSchema<T>, options?: SettingsRegisterOptions<T>, scope?: string): Promise<Fiber> {
  const parent = scope === undefined ? root : createScope(root, { name: scope }).ctx
  let failure: unknown
  const fiber = parent.plugin({
    inject: ['settings'],
    apply(ctx: Context) {
      try {
        ctx.settings.register(ns, schema, options)
      } catch (error) {
        failure = error
        throw error
      }
    },
  })
  await fiber.await().catch(() => {})
  if (failure !== undefined) throw failure
  return fiber
}

/** Assert that `run` fails with a `RemoteError` of `code`, and return it. */
export async function remoteFailure(run: () => unknown, code: string): Promise<RemoteError> {
  let error: unknown
  try {
    await run()
  } catch (caught) {
    error = caught
  }
  expect(error, `expected a RemoteError ${code}`).toBeInstanceOf(RemoteError)
  expect((error as RemoteError).code, (error as RemoteError).message).toBe(code)
  return error as RemoteError
}

/** Assert that none of `secrets` appears anywhere in the JSON of `value`. */
export function expectNoSecrets(value: unknown, secrets: readonly string[]): void {
  const json = JSON.stringify(value)
  for (const secret of secrets) expect(json, `secret ${secret} leaked`).not.toContain(secret)
}

/** A temp directory removed by `cleanup`; its path is real (symlinks resolved). */
export async function tempDir(prefix = 'dsh-settings-controller-'): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)))
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) }
}

/** Fake native openers written into a directory, and what they leave behind. */
export interface FakeOpeners {
  /** Records its arguments (one per line) and exits 0. */
  record: string
  /** Exits with status 3. */
  fail: string
  /** Records its pid and a grandchild's pid, then waits on the grandchild (for abort tests). */
  hang: string
  /** The arguments the last `record` run received, or `undefined` when it never ran. */
  argv(): Promise<string[] | undefined>
  /** The pids `hang` recorded, once both are written. */
  hangPids(): { opener: number; grandchild: number } | undefined
}

/** Write the fake openers into `dir`. */
export async function fakeOpeners(dir: string): Promise<FakeOpeners> {
  const argvFile = join(dir, 'argv.txt')
  const pidFile = join(dir, 'pids.txt')
  const write = async (name: string, body: string) => {
    const path = join(dir, name)
    await writeFile(path, `#!/bin/sh\n${body}\n`)
    await chmod(path, 0o755)
    return path
  }
  return {
    record: await write('record-opener', `printf '%s\\n' "$@" > '${argvFile}'\nexit 0`),
    fail: await write('fail-opener', 'exit 3'),
    hang: await write('hang-opener', `sleep 30 &\nprintf '%s %s\\n' "$$" "$!" > '${pidFile}.tmp'\nmv '${pidFile}.tmp' '${pidFile}'\nwait`),
    async argv() {
      if (!existsSync(argvFile)) return undefined
      return (await readFile(argvFile, 'utf8')).split('\n').slice(0, -1)
    },
    hangPids() {
      if (!existsSync(pidFile)) return undefined
      const [opener, grandchild] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number)
      return { opener: opener!, grandchild: grandchild! }
    },
  }
}

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/**
 * A stand-in for dsh-remote's server with the same two-method contract:
 * exposure (with its options) is an effect on the caller's fiber, broadcasts are recorded.
 */
export class FakeRemoteServer extends Service {
  /** The live exposures, by service name. */
  readonly exposed = new Map<string, RemoteHandlers>()
  /** The options each live exposure was given (its registered error codes), by service name. */
  readonly options = new Map<string, RemoteExposeOptions>()
  /** Every broadcast, with its payload as the wire would encode it. */
  readonly events: { event: string; payload: unknown }[] = []

  constructor(ctx: Context) {
    super(ctx, 'remoteServer')
  }

  /** Record an exposure and its options until the caller's fiber (or the returned disposer) ends it. */
  expose(service: string, handlers: RemoteHandlers, options: RemoteExposeOptions = {}): () => void {
    // `this.ctx` is the caller's context here, so the exposure lives and dies with the caller.
    return this.ctx.effect(() => {
      this.exposed.set(service, handlers)
      this.options.set(service, options)
      return () => {
        if (this.exposed.get(service) !== handlers) return
        this.exposed.delete(service)
        this.options.delete(service)
      }
    }, `expose(${service})`)
  }

  /** When set, every broadcast throws it (a broken stream), as the real server's encoding failure would. */
  failure: Error | undefined

  /** Record one event, JSON round-tripped as a stream would carry it; throw {@link failure} when one is set. */
  broadcast(event: string, payload: unknown): void {
    if (this.failure) throw this.failure
    this.events.push({ event, payload: JSON.parse(JSON.stringify(payload)) })
  }
}


/**
 * Plug the recording remote server into a booted root, so every `settings/*`
 * event the controller forwards is kept; its fiber goes into `fibers` for the
 * test to dispose.
 */
export async function plugServer(b: Pick<Booted, 'root'>, fibers: Fiber[]): Promise<{ server: FakeRemoteServer; fiber: Fiber }> {
  const fiber = b.root.plugin(FakeRemoteServer)
  await fiber
  fibers.push(fiber)
  let server!: FakeRemoteServer
  await b.root.inject(['remoteServer'], (ctx) => {
    server = ctx.get('remoteServer') as unknown as FakeRemoteServer
  })
  // The controller's inject fiber loads asynchronously once the service appears.
  await new Promise((resolve) => setTimeout(resolve, 0))
  return { server, fiber }
}
