/**
 * A store's refusal of a write reaches the wire as settings/rejected with the
 * place it names: `details.path` (inside the section) when the store's error
 * carries one, as a validation error does. Against a stub store, and against
 * dsh-settings-file on a temp home for its size cap and for the data YAML
 * holds (`<<` keys, keys past 1024 characters), which once surfaced as `internal`.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context, Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import FileSettingsProvider from 'dsh-settings-file'
import { SettingsStoreError, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { MemorySettingsProvider } from 'dsh-settings/memory'
import type { SettingsController } from '../src/index.ts'
import { plugController, plugProvider, registerKind, remoteFailure, rootContext, tempDir, type LogLine } from './harness.ts'

const Search = Schema.object({ engine: Schema.string().default('bing'), note: Schema.string().default('') })

const fibers: Fiber[] = []

afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

/** A store that refuses every write with `error`. */
function refusingStore(error: Error) {
  return class RefusingStore extends MemorySettingsProvider {
    protected override store(_transaction: SettingsTransaction): Promise<SettingsStoreResult> {
      return Promise.reject(error)
    }
  }
}

/** A store refusal with a place, shaped as dsh-settings-file's SettingsDocumentCannotHoldError. */
class CannotHold extends SettingsStoreError {
  readonly path: string[]
  constructor(path: string[]) {
    super('SETTINGS_DOCUMENT_CANNOT_HOLD', `settings document /home/me/settings.yaml cannot hold the value at $.nested["<<"] of section "search"`, '/home/me/settings.yaml')
    this.path = path
  }
}

async function withStore(error: Error): Promise<SettingsController> {
  const { root } = rootContext()
  const { fiber: providerFiber } = await plugProvider(root, refusingStore(error))
  const { controller, fiber } = await plugController(root, { opener: false })
  fibers.push(providerFiber, fiber)
  fibers.push(await registerKind(root, 'search', Search))
  return controller
}

describe('a store refusal with a place', () => {
  it('is settings/rejected with the path in details, beside the reason', async () => {
    const controller = await withStore(new CannotHold(['nested', '<<']))
    const error = await remoteFailure(() => controller.update('search', { note: 'sk-LEAK' }), 'settings/rejected')
    expect(error.message).toBe('settings document /home/me/settings.yaml cannot hold the value at $.nested["<<"] of section "search"')
    expect(error.details).toEqual({ ns: 'search', path: ['nested', '<<'], reason: 'SETTINGS_DOCUMENT_CANNOT_HOLD' })
    expect(JSON.stringify(error)).not.toContain('sk-LEAK')
  })

  it('sends an empty path (the section itself) as it is', async () => {
    const controller = await withStore(new CannotHold([]))
    const error = await remoteFailure(() => controller.update('search', { note: 'x' }), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', path: [], reason: 'SETTINGS_DOCUMENT_CANNOT_HOLD' })
  })

  it('leaves out a path that is not a list of strings', async () => {
    const odd = new SettingsStoreError('SETTINGS_ODD', 'settings store refused', 'store')
    Object.assign(odd, { path: '$.nested' })
    const controller = await withStore(odd)
    const error = await remoteFailure(() => controller.update('search', { note: 'x' }), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', reason: 'SETTINGS_ODD' })
  })

  it('keeps path and position side by side', async () => {
    const both = Object.assign(new CannotHold(['a']), { position: { line: 2, column: 3 } })
    const controller = await withStore(both)
    const error = await remoteFailure(() => controller.update('search', { note: 'x' }), 'settings/rejected')
    expect(error.details).toEqual({ ns: 'search', path: ['a'], reason: 'SETTINGS_DOCUMENT_CANNOT_HOLD', position: { line: 2, column: 3 } })
  })
})

describe('dsh-settings-file behind the controller', () => {
  let dir: string
  let cleanup: () => Promise<void>

  beforeEach(async () => {
    ;({ dir, cleanup } = await tempDir())
  })
  afterEach(async () => {
    for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
    await cleanup()
  })

  async function withFile(config: FileSettingsProvider.Config): Promise<{ controller: SettingsController; root: Context; logs: LogLine[]; file: string }> {
    const { root, logs } = rootContext()
    const file = join(dir, 'settings.yaml')
    const { fiber: providerFiber } = await plugProvider(root, FileSettingsProvider, { path: file, watch: false, ...config })
    const { controller, fiber } = await plugController(root, { opener: false })
    fibers.push(providerFiber, fiber)
    fibers.push(await registerKind(root, 'search', Search))
    return { controller, root, logs, file }
  }

  it('refuses a write past the size cap as settings/rejected naming the cap, never internal', async () => {
    const { controller, logs, file } = await withFile({ maxDocumentBytes: 256 })
    await controller.update('search', { engine: 'google' })
    const before = await readFile(file, 'utf8')
    const error = await remoteFailure(() => controller.update('search', { note: 'n'.repeat(300) }), 'settings/rejected')
    expect(error.message).toMatch(/over the cap of 256 bytes \(maxDocumentBytes\); nothing was written$/)
    expect(error.details).toEqual({ ns: 'search', reason: 'SETTINGS_DOCUMENT_TOO_LARGE' })
    expect(await readFile(file, 'utf8')).toBe(before)
    expect(logs.filter((line) => line.type === 'error')).toEqual([])
  })

  it('writes a << key and a key past 1024 characters so that they read back, where they once failed as internal', async () => {
    const { controller, file } = await withFile({})
    await writeFile(file, '# mine\nsearch:\n  engine: bing\n')
    const long = 'k'.repeat(1100)
    const view = await controller.update('search', { nested: { '<<': { x: 1 } }, [long]: 1 })
    // Neither key is declared by the schema: the view names them, and the document holds them.
    expect(view.undeclared).toEqual([
      { path: ['nested'], layer: 'global' },
      { path: [long], layer: 'global' },
    ])
    const text = await readFile(file, 'utf8')
    expect(text).toBe(`# mine\nsearch:\n  engine: bing\n  nested:\n    "<<":\n      x: 1\n  ? ${long}\n  : 1\n`)
  })
})
