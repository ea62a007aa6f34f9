/**
 * openSettingsDocument(signal), against dsh-settings-file on a temp home and fake openers.
 *
 * What these tests prove: the provider's document is prepared (created, mode 0600) and its path is
 * handed to the opener as the last argument after the configured leading arguments; `describe`
 * reports `document: true` for the file provider; an opener that exits 3 fails
 * `settings/unavailable` with the status in the message; one that cannot start fails the same way;
 * an already-aborted signal fails `cancelled` without preparing anything; an abort while the
 * opener runs kills it and what it started (both pids gone when the call settles); an abort while
 * `prepareDocument` is pending opens nothing; a failing `prepareDocument` is `internal` with the
 * original only in the log; a provider without a local document, and `opener: false`, are
 * `settings/unavailable`.
 */
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { Context, Fiber } from 'cordis'
import {
  boot,
  deferred,
  eventually,
  fakeOpeners,
  isAlive,
  plugController,
  plugProvider,
  remoteFailure,
  rootContext,
  tempDir,
  type FakeOpeners,
  type LogLine,
} from './harness.ts'
import { CANCELLED, RemoteError, type SettingsController, type SettingsControllerConfig } from '../src/index.ts'

let dir: string
let cleanup: () => Promise<void>
let openers: FakeOpeners
const fibers: Fiber[] = []

beforeEach(async () => {
  ;({ dir, cleanup } = await tempDir())
  openers = await fakeOpeners(dir)
})

afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
  await cleanup()
})

async function withFile(config: SettingsControllerConfig): Promise<{ controller: SettingsController; document: string; root: Context; logs: LogLine[] }> {
  const { root, logs } = rootContext()
  const home = join(dir, 'home')
  const { provider, fiber: providerFiber } = await plugProvider(root, FileSettingsProvider, { home, watch: false })
  const { controller, fiber } = await plugController(root, config)
  fibers.push(providerFiber, fiber)
  return { controller, document: provider.documentPath!, root, logs }
}

const signal = () => new AbortController().signal

describe('openSettingsDocument', () => {
  it('prepares the document and hands its path to the opener as the last argument', async () => {
    const { controller, document } = await withFile({ opener: [openers.record, '--new-window'] })
    expect(controller.describe().document).toBe(true)
    await expect(stat(document)).rejects.toThrow()
    await expect(controller.openSettingsDocument(signal())).resolves.toEqual({ opened: true })
    expect(await openers.argv()).toEqual(['--new-window', document])
    expect((await stat(document)).mode & 0o777).toBe(0o600)
  })

  it('fails with the exit status of an opener that exits non-zero', async () => {
    const { controller } = await withFile({ opener: [openers.fail] })
    const error = await remoteFailure(() => controller.openSettingsDocument(signal()), 'settings/unavailable')
    expect(error.message).toContain('exited with status 3')
    expect(error.details).toMatchObject({ status: 3 })
  })

  it('fails settings/unavailable for an opener that cannot start', async () => {
    const { controller } = await withFile({ opener: [join(dir, 'no-such-opener')] })
    const error = await remoteFailure(() => controller.openSettingsDocument(signal()), 'settings/unavailable')
    expect(error.message).toContain('could not start')
  })

  it('does not prepare or open anything for a signal aborted before the call', async () => {
    const { controller, document } = await withFile({ opener: [openers.record] })
    const aborted = AbortSignal.abort()
    await remoteFailure(() => controller.openSettingsDocument(aborted), CANCELLED)
    await expect(stat(document)).rejects.toThrow()
    expect(await openers.argv()).toBeUndefined()
  })

  it('kills a running opener, and what it started, when the signal aborts', async () => {
    const { controller } = await withFile({ opener: [openers.hang] })
    const abort = new AbortController()
    const call = controller.openSettingsDocument(abort.signal)
    call.catch(() => {})
    let pids: ReturnType<FakeOpeners['hangPids']>
    await eventually(() => {
      pids = openers.hangPids()
      expect(pids).toBeDefined()
    })
    expect(isAlive(pids!.opener)).toBe(true)
    expect(isAlive(pids!.grandchild)).toBe(true)
    abort.abort()
    await remoteFailure(() => call, CANCELLED)
    expect(isAlive(pids!.opener)).toBe(false)
    await eventually(() => expect(isAlive(pids!.grandchild)).toBe(false))
  })

  it('answers an abort with the signal’s own RemoteError reason, as the wire server aborts', async () => {
    const { controller } = await withFile({ opener: [openers.hang] })
    const abort = new AbortController()
    abort.abort(new RemoteError('remote/unavailable', 'the client went away'))
    await remoteFailure(() => controller.openSettingsDocument(abort.signal), 'remote/unavailable')
  })

  it('fails settings/unavailable when the host has no opener', async () => {
    const { controller, document } = await withFile({ opener: false })
    const error = await remoteFailure(() => controller.openSettingsDocument(signal()), 'settings/unavailable')
    expect(error.message).toContain('no native opener')
    await expect(stat(document)).rejects.toThrow()
  })
})

class SlowDocument extends MemorySettingsProvider {
  static gate = deferred<string>()
  static calls = 0
  override get documentPath(): string {
    return '/not/used/by/the/controller.yaml'
  }
  override async prepareDocument(): Promise<string> {
    SlowDocument.calls++
    return SlowDocument.gate.promise
  }
}

describe('openSettingsDocument with other providers', () => {
  it('fails settings/unavailable for a provider without a local document', async () => {
    const b = await boot({}, { opener: [openers.record] })
    fibers.push(b.providerFiber, b.controllerFiber)
    expect(b.controller.describe().document).toBe(false)
    const error = await remoteFailure(() => b.controller.openSettingsDocument(signal()), 'settings/unavailable')
    expect(error.message).toContain('no local document')
    expect(await openers.argv()).toBeUndefined()
  })

  it('opens nothing when the signal aborts while the document is being prepared', async () => {
    SlowDocument.gate = deferred<string>()
    SlowDocument.calls = 0
    const { root } = rootContext()
    const { fiber: providerFiber } = await plugProvider(root, SlowDocument)
    const { controller, fiber } = await plugController(root, { opener: [openers.record] })
    fibers.push(providerFiber, fiber)
    const abort = new AbortController()
    const call = controller.openSettingsDocument(abort.signal)
    call.catch(() => {})
    await eventually(() => expect(SlowDocument.calls).toBe(1))
    abort.abort()
    SlowDocument.gate.resolve(join(dir, 'prepared.yaml'))
    await remoteFailure(() => call, CANCELLED)
    expect(await openers.argv()).toBeUndefined()
  })

  it('answers a failing preparation as internal, logging the original', async () => {
    SlowDocument.gate = deferred<string>()
    const { root, logs } = rootContext()
    const { fiber: providerFiber } = await plugProvider(root, SlowDocument)
    const { controller, fiber } = await plugController(root, { opener: [openers.record] })
    fibers.push(providerFiber, fiber)
    SlowDocument.gate.reject(new Error('EACCES: /secret/home/settings.yaml'))
    const error = await remoteFailure(() => controller.openSettingsDocument(signal()), 'internal')
    expect(error.message).not.toContain('/secret/home')
    expect(logs.some((line) => line.text.includes('EACCES: /secret/home/settings.yaml'))).toBe(true)
    expect(await openers.argv()).toBeUndefined()
  })
})
