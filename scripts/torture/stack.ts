/**
 * The real settings stack booted in this process, for the fuzz and the secret
 * scan: the YAML file provider on a temp document, the settings controller,
 * and the remote server on 127.0.0.1 (port 0), wired as `cordis.yml` wires
 * them. Every log line is captured as the deployment's console prints it, every
 * answer of the wire client is recorded as raw text, and the event stream can
 * be read frame by frame, so a scan sees exactly the bytes a user would.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context, Logger, type Fiber } from 'cordis'
import RemoteServer, { createRemote, TOKEN_FILE, type Remote } from 'dsh-remote'
import { createScope, type Scope } from 'dsh-scope'
import type { SettingsProvider, SettingsRegisterOptions, SettingsSchema, SettingsScope } from 'dsh-settings'
import SettingsController, { type SettingsRemote } from 'dsh-settings-controller'
import FileSettingsProvider from 'dsh-settings-file'
import { formatLogValue } from 'dsh-loader'

/** One answer the wire client received, as text. */
export interface Answer {
  url: string
  status: number
  body: string
}

/** What {@link bootStack} boots. */
export interface StackOptions {
  /** The initial text of the document; absent: no document at start. */
  document?: string
  /** Watch the document (hand edits are published); off by default, so only writes read the file. */
  watch?: boolean
  /** A folder of page assets for the server to serve at `/`. */
  assets?: string
  /** The provider's `settleMs`; at its default (100) every read of a hand-written document that shrank waits to read it again, which the fuzz would pay hundreds of times. */
  settleMs?: number
}

/** A booted stack; see the module comment. */
export interface Stack {
  root: Context
  dir: string
  file: string
  url: string
  token: string
  settings: SettingsProvider
  controller: SettingsController
  /** The typed wire client; its answers land in {@link Stack.answers}. */
  remote: Remote<{ settings: SettingsRemote }>
  /** Every answer so far, in order; append-only, so a caller can search from where it stopped. */
  answers: Answer[]
  /** Every log line so far, formatted as `pnpm start` prints it (no colors, no truncation, debug included). */
  logs: string[]
  /** Register `ns` on a fresh plugin fiber, globally or in the named scope; rejects with the registration's failure. */
  register<T>(ns: string, schema: SettingsSchema<T>, options?: SettingsRegisterOptions<T>, scope?: string): Promise<{ fiber: Fiber; handle: SettingsScope<T> }>
  /** Open `/remote/events` and keep every byte of it in `text` until `stop`. Resolves once the stream answered. */
  openEvents(): Promise<{ text(): string; stop(): void }>
  readDocument(): Promise<string>
  writeDocument(text: string | Buffer): Promise<void>
  dispose(): Promise<void>
}

/** The same exporter as dsh-loader's `runDeployment`, at every level and without a length cap. */
function captureLogs(root: Context): string[] {
  const lines: string[] = []
  const exporter = {
    colors: false as const,
    levels: { default: 3 },
    maxLength: Number.POSITIVE_INFINITY,
    formatters: { o: formatLogValue, O: formatLogValue },
    export: (message: Parameters<typeof Logger.format>[1]) => void lines.push(`[${message.type[0]!.toUpperCase()}] ${message.name} ${Logger.format(exporter, message)}`),
  }
  root.logger.exporter(exporter)
  return lines
}

/** Wait for a fiber and make its failure a rejection (cordis only records it on the fiber). */
async function settled(fiber: Fiber): Promise<Fiber> {
  await fiber.await()
  return fiber
}

async function serviceOf<K extends 'settings' | 'settingsController' | 'remoteServer'>(root: Context, name: K): Promise<Context[K]> {
  let found!: Context[K]
  const probe = root.inject([name], (ctx) => void (found = ctx[name]))
  await probe
  await probe.dispose()
  return found
}

/** Boot the stack with its document at `<dir>/settings.yaml` and the server's home in `dir`. */
export async function bootStack(dir: string, options: StackOptions = {}): Promise<Stack> {
  const file = join(dir, 'settings.yaml')
  if (options.document !== undefined) await writeFile(file, options.document, { mode: 0o600 })
  const root = new Context()
  const logs = captureLogs(root)
  const fibers: Fiber[] = []
  const scopes = new Map<string, Scope>()
  const streams = new Set<AbortController>()
  const watch = options.watch ?? false
  const dispose = async () => {
    for (const stream of streams) stream.abort()
    // A fiber a case already disposed answers `dispose()` without a promise: wrap every call.
    for (const fiber of fibers.reverse()) await Promise.resolve().then(() => fiber.dispose()).catch(() => {})
    for (const scope of scopes.values()) await Promise.resolve().then(() => scope.dispose()).catch(() => {})
  }
  try {
    fibers.push(await settled(root.plugin(FileSettingsProvider, { path: file, watch, debounceMs: 50, recheckMs: watch ? 500 : 0, lockTimeoutMs: 5000, settleMs: options.settleMs ?? 100 })))
    fibers.push(await settled(root.plugin(RemoteServer, { home: dir, port: 0, ...(options.assets ? { static: options.assets } : {}) })))
    fibers.push(await settled(root.plugin(SettingsController, { home: dir, opener: false })))
    const settings = await serviceOf(root, 'settings')
    const controller = await serviceOf(root, 'settingsController')
    const { url } = await serviceOf(root, 'remoteServer')
    const token = (await readFile(join(dir, TOKEN_FILE), 'utf8')).trim()
    const answers: Answer[] = []
    // Record every answer's raw text before the client parses it: a scan must see the bytes, not a rebuilt error.
    const recording = async (input: string, init: RequestInit): Promise<Response> => {
      const response = await globalThis.fetch(input, init)
      const body = await response.clone().text()
      answers.push({ url: input, status: response.status, body })
      return response
    }
    const register = async <T>(ns: string, schema: SettingsSchema<T>, registerOptions?: SettingsRegisterOptions<T>, scope?: string) => {
      let parent = root
      if (scope !== undefined) {
        if (!scopes.has(scope)) scopes.set(scope, createScope(root, { name: scope }))
        parent = scopes.get(scope)!.ctx
      }
      let failure: unknown
      let handle!: SettingsScope<T>
      const fiber = parent.plugin({
        name: `torture-${ns}`,
        inject: ['settings'],
        apply: (ctx: Context) => {
          try {
            handle = ctx.settings.register(ns, schema, registerOptions)
          } catch (error) {
            failure = error
            throw error
          }
        },
      })
      await fiber.await().catch(() => {})
      if (failure !== undefined) throw failure
      fibers.push(fiber)
      return { fiber, handle }
    }
    const openEvents = async () => {
      const abort = new AbortController()
      streams.add(abort)
      const response = await globalThis.fetch(`${url}/remote/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal })
      let text = ''
      const decoder = new TextDecoder()
      const reader = response.body!.getReader()
      void (async () => {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          text += decoder.decode(value, { stream: true })
        }
      })().catch(() => {})
      return { text: () => text, stop: () => (abort.abort(), void streams.delete(abort)) }
    }
    return {
      root,
      dir,
      file,
      url,
      token,
      settings,
      controller,
      remote: createRemote<{ settings: SettingsRemote }>({ url, token, fetch: recording }),
      answers,
      logs,
      register,
      openEvents,
      readDocument: () => readFile(file, 'utf8'),
      writeDocument: (text) => writeFile(file, text, { mode: 0o600 }),
      dispose,
    }
  } catch (error) {
    await dispose()
    throw error
  }
}
