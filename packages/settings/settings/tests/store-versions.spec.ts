import { Context, type Fiber } from 'cordis'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { documentWith, SettingsChanges, SettingsConflictError, SettingsProvider, SettingsProviderContractError, SettingsSnapshot, type SettingsDocument, type SettingsStoreResult, type SettingsTransaction } from 'dsh-settings'
import { eventually, plugWithSettings } from 'dsh-testing'
import { SharedStore, SharedStoreProvider } from './providers/shared-store.ts'

const Alpha = Schema.object({ a: Schema.number().default(0), b: Schema.string().default('') })

const fibers: Fiber[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0).reverse()) await fiber.dispose()
})

/** Boot a provider on a fresh root; answers the root, the service and the plugged fiber. */
async function boot(plugin: any, config: unknown): Promise<{ root: Context; settings: SettingsProvider; fiber: Fiber }> {
  const root = new Context()
  root.logger.exporter({ export: () => {} })
  const fiber = root.plugin(plugin, config)
  fibers.push(fiber)
  await fiber
  let settings!: SettingsProvider
  await root.inject(['settings'], (ctx) => {
    settings = ctx.settings
  })
  return { root, settings, fiber }
}

const register = async (root: Context) => (await plugWithSettings(root, (ctx) => ctx.settings.register('alpha', Alpha))).value
const revisionOf = (settings: SettingsProvider, ns = 'alpha') => settings.describe({ ns, redactSecrets: true })[0]!.revision

describe('store-owned revisions', () => {
  it('are the store’s versions: 0 for a section never stored, the section’s own version after a write', async () => {
    const store = new SharedStore({ alpha: { a: 1 } })
    store.versions.set('\u0000alpha', { ns: 'alpha', version: 41 })
    store.version = 41
    const { root, settings } = await boot(SharedStoreProvider, { store })
    await register(root)
    await plugWithSettings(root, (ctx) => ctx.settings.register('beta', Alpha))
    expect(revisionOf(settings)).toBe(41)
    expect(revisionOf(settings, 'beta')).toBe(0)
    await settings.update('beta', { a: 2 }, 0)
    expect(revisionOf(settings, 'beta')).toBe(42)
    expect(revisionOf(settings)).toBe(41)
  })

  it('announce a section once per transaction, under the version the store gave it, however many queued writes changed it', async () => {
    const store = new SharedStore()
    const { root, settings } = await boot(SharedStoreProvider, { store })
    const alpha = await register(root)
    await alpha.update({ a: 1 }) // the queue is warm: the next three arrive as one group
    const announced: number[] = []
    const values: unknown[] = []
    root.on('settings/document-updated', (_ns, revision) => void announced.push(revision))
    root.on('settings/updated', (_ns, next) => void values.push(next))
    const versionBefore = store.version
    await Promise.all([alpha.update({ a: 2 }), alpha.update({ b: 'x' }), alpha.update({ a: 3 })])
    expect(store.version).toBe(versionBefore + 1)
    expect(announced).toEqual([store.version])
    expect(values).toEqual([{ a: 3, b: 'x' }])
    expect(revisionOf(settings)).toBe(store.version)
  })

  it('check expectedRevision against what the store holds inside the transaction, even before the feed told this host', async () => {
    const store = new SharedStore()
    store.feedDelayMs = 10_000 // no host hears of the other's writes during this test
    const a = await boot(SharedStoreProvider, { store })
    const b = await boot(SharedStoreProvider, { store })
    await register(a.root)
    await register(b.root)
    await a.settings.update('alpha', { a: 1 }, 0)
    // b has not heard, yet its stale read of 0 is refused, and the store's revision is honored.
    await expect(b.settings.update('alpha', { b: 'x' }, 0)).rejects.toBeInstanceOf(SettingsConflictError)
    await b.settings.update('alpha', { b: 'x' }, revisionOf(a.settings))
    expect(b.settings.get('alpha')).toEqual({ a: 1, b: 'x' })
    expect(store.section('alpha')).toEqual({ a: 1, b: 'x' })
  })

  it('drop a late echo of an older state: no value goes back, no event fires for it', async () => {
    const store = new SharedStore()
    store.feedDelayMs = 30
    // The feed carries the data as it was when written, so its echoes arrive older than what the host already committed.
    const { root, settings } = await boot(SharedStoreProvider, { store, trustFeed: true })
    const alpha = await register(root)
    const seen: unknown[] = []
    root.on('settings/updated', (_ns, next) => void seen.push(next))
    await alpha.update({ a: 1 })
    await alpha.update({ a: 2 })
    await alpha.update({ a: 3 })
    const revision = revisionOf(settings)
    // Every echo (of a: 1, 2 and 3) has arrived.
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(alpha.get().a).toBe(3)
    expect(revisionOf(settings)).toBe(revision)
    expect(seen.map((value) => (value as { a: number }).a)).toEqual([1, 2, 3])
  })

  it('take a newer change from the feed after an older echo, in either order', async () => {
    const store = new SharedStore()
    const { root, settings } = await boot(SharedStoreProvider, { store, trustFeed: true })
    const alpha = await register(root)
    const old = store.read()
    await store.exclusive(() => void store.writeDocument({ alpha: { a: 5 } }))
    await eventually(() => expect(alpha.get().a).toBe(5))
    const provider = settings as unknown as { publish(input: unknown): void }
    provider.publish(old)
    expect(alpha.get().a).toBe(5)
    expect(revisionOf(settings)).toBe(store.version)
  })

  it('refuse a bare document where a snapshot is due, and versions that are not revisions', async () => {
    const store = new SharedStore()
    const { settings } = await boot(SharedStoreProvider, { store })
    const provider = settings as unknown as { publish(input: unknown): void }
    expect(() => provider.publish({ alpha: { a: 1 } })).toThrow(SettingsProviderContractError)
    expect(() => provider.publish(new SettingsSnapshot({ alpha: { a: 1 } }, [{ ns: 'alpha', version: -1 }]))).toThrow(/non-negative safe integer/)
    expect(() => provider.publish(new SettingsSnapshot({ alpha: { a: 1 } }, [{ ns: 7 as never, version: 1 }]))).toThrow(SettingsProviderContractError)
  })

  it('take published changes with their versions, skipping an older one, and refuse a change without a version', async () => {
    const store = new SharedStore({ alpha: { a: 1 } })
    store.versions.set('\u0000alpha', { ns: 'alpha', version: 5 })
    const { root, settings } = await boot(SharedStoreProvider, { store })
    const alpha = await register(root)
    const provider = settings as unknown as { publish(input: unknown): void }
    provider.publish(new SettingsChanges([{ ns: 'alpha', section: { a: 7 }, version: 6 }]))
    expect(alpha.get().a).toBe(7)
    expect(revisionOf(settings)).toBe(6)
    provider.publish(new SettingsChanges([{ ns: 'alpha', section: { a: 2 }, version: 4 }]))
    expect(alpha.get().a).toBe(7)
    expect(revisionOf(settings)).toBe(6)
    expect(() => provider.publish(new SettingsChanges([{ ns: 'alpha', section: { a: 3 } }]))).toThrow(SettingsProviderContractError)
    expect(alpha.get().a).toBe(7)
  })

  it('derive a group again when the store moved under its reads: the other host’s change is kept, nothing is lost', async () => {
    const store = new SharedStore()
    store.feedDelayMs = 10_000 // this host hears of the other write only through its own store call
    const { root, settings } = await boot(SharedStoreProvider, { store })
    const alpha = await register(root)
    await store.exclusive(() => void store.writeDocument({ alpha: { b: 'theirs' } }))
    await alpha.update({ a: 1 })
    expect(alpha.get()).toEqual({ a: 1, b: 'theirs' })
    expect(store.section('alpha')).toEqual({ a: 1, b: 'theirs' })
    expect(revisionOf(settings)).toBe(store.version)
  })

  it('give up after the store moved under the group 64 times in a row, pausing a random while between passes, storing nothing (a provider that answers moved but never publishes)', async () => {
    let calls = 0
    class Restless extends SharedStoreProvider {
      protected override store(): Promise<SettingsStoreResult> {
        calls++
        return Promise.resolve({ moved: true })
      }
    }
    const store = new SharedStore()
    const { root } = await boot(Restless, { store })
    const alpha = await register(root)
    await expect(alpha.update({ a: 1 })).rejects.toMatchObject({ code: 'SETTINGS_STORE_BUSY' })
    expect(calls).toBe(64)
    expect(store.section('alpha')).toBeUndefined()
    expect(alpha.get().a).toBe(0)
  })

  it('fail every write of a transaction whose store answers no newer version for a stored section', async () => {
    class Forgetful extends SharedStoreProvider {
      protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
        const store = (this as unknown as { config: { store: SharedStore } }).config.store
        return store.exclusive(() => {
          store.write(transaction.changes)
          return { versions: [] }
        })
      }
    }
    const { root, settings } = await boot(Forgetful, { store: new SharedStore() })
    await register(root)
    await expect(settings.update('alpha', { a: 1 })).rejects.toThrow(/no newer store version for it/)
  })
})

describe('publish during a transaction', () => {
  /** A provider whose change feed delivers, while it stores, what it read before the write: a stale echo. */
  class EchoInside extends SharedStoreProvider {
    protected override store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
      const store = (this as unknown as { config: { store: SharedStore } }).config.store
      return store.exclusive(() => {
        const before = store.read()
        const versions = store.write(transaction.changes)
        this.publish(before)
        return { versions }
      })
    }
  }

  it('is taken before the commit: a stale echo changes nothing, one revision never names two states, and a stale writer is refused', async () => {
    const store = new SharedStore({ alpha: { a: 1 } })
    const { root, settings } = await boot(EchoInside, { store })
    const alpha = await register(root)
    const announced: number[] = []
    root.on('settings/document-updated', (_ns, revision) => void announced.push(revision))
    const read = revisionOf(settings)
    await settings.update('alpha', { a: 2 }, read)
    expect(alpha.get().a).toBe(2)
    expect(announced).toEqual([store.version])
    await expect(settings.update('alpha', { a: 3 }, read)).rejects.toBeInstanceOf(SettingsConflictError)
    expect(alpha.get().a).toBe(2)
  })

  it('with process revisions, an outside edit found while storing lands first and the write over it, each under its own revision', async () => {
    class EditInside extends SettingsProvider {
      stored: SettingsDocument = { alpha: { a: 1 }, beta: { a: 1 } }
      protected load(): SettingsDocument {
        return structuredClone(this.stored)
      }
      protected override async store(transaction: SettingsTransaction): Promise<SettingsStoreResult> {
        // Somebody else edited another section just before this write; the watcher reports it while the write is stored.
        this.stored = { ...this.stored, beta: { a: 9 } }
        this.publish(structuredClone(this.stored))
        this.stored = documentWith(this.stored, transaction.changes)
      }
    }
    const { root, settings } = await boot(EditInside, {})
    const alpha = await register(root)
    await plugWithSettings(root, (ctx) => ctx.settings.register('beta', Alpha))
    const announced: string[] = []
    root.on('settings/document-updated', (ns, revision) => void announced.push(`${ns}@${revision}`))
    await settings.update('alpha', { a: 2 })
    expect(alpha.get()).toEqual({ a: 2, b: '' })
    expect(settings.get('beta')).toEqual({ a: 9, b: '' })
    expect(announced.map((entry) => entry.split('@')[0])).toEqual(['beta', 'alpha'])
    expect(revisionOf(settings)).toBe(Number(announced[1]!.split('@')[1]))
  })
})

describe('the two ways of storing', () => {
  it('refuses to start a provider that implements neither, naming both ways', async () => {
    class Neither extends SettingsProvider {
      protected load(): SettingsDocument {
        return {}
      }
    }
    const root = new Context()
    root.logger.exporter({ export: () => {} })
    const fiber = root.plugin(Neither)
    fibers.push(fiber)
    const failure = await fiber.then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(SettingsProviderContractError)
    expect((failure as Error).message).toMatch(/persist\(document\)/)
    expect((failure as Error).message).toMatch(/store\(transaction\)/)
    expect(root.get('settings')).toBeUndefined()
  })

  class Persisting extends SettingsProvider {
    static stored: SettingsDocument[] = []
    static fail = false
    protected load(): SettingsDocument {
      return { alpha: { a: 1 } }
    }
    protected override async persist(document: SettingsDocument): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 5))
      if (Persisting.fail) throw new Error('store down')
      Persisting.stored.push(document)
    }
  }

  it('persist-only: a burst is one persist of the whole next document; a failed persist changes nothing and the next write starts from what was committed', async () => {
    Persisting.stored = []
    Persisting.fail = false
    const { root, settings } = await boot(Persisting, {})
    const alpha = await register(root)
    await plugWithSettings(root, (ctx) => ctx.settings.register('beta', Alpha))
    await alpha.update({ a: 2 }) // the queue is now warm: what follows arrives as one group
    await Promise.all([alpha.update({ b: 'x' }), settings.update('beta', { a: 5 }), alpha.update({ a: 3 })])
    expect(Persisting.stored).toEqual([{ alpha: { a: 2 } }, { alpha: { a: 3, b: 'x' }, beta: { a: 5 } }])
    const revision = revisionOf(settings)
    Persisting.fail = true
    await expect(alpha.update({ a: 4 })).rejects.toThrow('store down')
    expect(alpha.get()).toEqual({ a: 3, b: 'x' })
    expect(revisionOf(settings)).toBe(revision)
    Persisting.fail = false
    await alpha.update({ b: 'y' })
    expect(Persisting.stored.at(-1)).toEqual({ alpha: { a: 3, b: 'y' }, beta: { a: 5 } })
  })
})
