/**
 * The provider contract as a vitest suite. A provider author calls
 * {@link describeProviderConformance} in one of their test files with a way
 * to make stores; the suite boots hosts (a cordis root with the provider
 * plugged) on those stores and checks what the seam promises its users over
 * any provider: loading and layering, writes and group commit, revisions and
 * conflicts, outside edits, restarts, several hosts on one store, disposal
 * and read-only stores.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Context, type Fiber } from 'cordis'
import { createScope } from 'dsh-scope'
import Schema from 'schemastery'
import { afterEach, describe, expect, it } from 'vitest'
import { SettingsConflictError, SettingsUnavailableError } from './errors.ts'
import type { SettingsProvider } from './provider.ts'
import type { SettingsMigration } from './migration-types.ts'
import type { SettingsDocument, SettingsPartial, SettingsRegisterOptions, SettingsScope } from './types.ts'

/** One store the suite boots providers on: a temp file, a database, a shared in-memory backing. */
export interface ConformanceStore {
  /** Plug one provider of this store into `ctx` (a fresh root per host) and answer its fiber. */
  plug(ctx: Context): Fiber
  /** Free what the store holds once every provider on it was disposed. */
  dispose?(): void | Promise<void>
}

/** How {@link describeProviderConformance} makes stores and acts on them. */
export interface ProviderConformanceOptions<S extends ConformanceStore> {
  /**
   * Make a fresh store holding `document` (empty when absent). With
   * `writable: false` the store must refuse writes (a read-only file, a
   * read-only database role).
   */
  create(options: { document?: SettingsDocument; writable?: boolean }): S | Promise<S>
  /** Replace the stored document behind every provider's back, as another program would. Omit for stores nobody else writes. */
  edit?(store: S, document: SettingsDocument): void | Promise<void>
  /** Restart the store (its server, its connection) between two steps. Omit for stores with nothing to restart. */
  restart?(store: S): void | Promise<void>
  /** Providers on one store act as one store across hosts (store-owned revisions and a change feed). */
  hosts?: boolean
  /** Whether `create` can make a read-only store; default true. */
  readOnly?: boolean
  /** What is left of the store's resources (open handles, temp files) once every provider on it was disposed; must be empty. */
  leftovers?(store: S): string[] | Promise<string[]>
  /** How long to wait for a change to reach a provider (an outside edit, another host's write); default 10 s. */
  timeoutMs?: number
}

/** One booted host: a root context with the store's provider plugged and ready. */
interface Host {
  root: Context
  settings: SettingsProvider
  /** Register `ns` globally, or under the named scope, and answer the owner handle. */
  register<T>(ns: string, schema: Schema<T>, options?: { base?: SettingsPartial<T>; scope?: string; version?: number; migrations?: SettingsMigration[] }): Promise<SettingsScope<T>>
  dispose(): Promise<void>
}

const Alpha = Schema.object({
  a: Schema.number().default(1),
  b: Schema.string().default('b'),
  c: Schema.number().default(0),
})
interface Alpha {
  a: number
  b: string
  c: number
}

/** A map of numbers, so concurrent writers each add their own key and a lost write shows as a missing key. */
const Tally = Schema.dict(Schema.number())

/** Retry `check` until it passes or `timeoutMs` ran out, then throw its last failure. */
async function until(check: () => void | Promise<void>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await check()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await sleep(10)
    }
  }
}

/** The revision a host reports for a section, as a configuration page reads it. */
function revisionOf(host: Host, ns: string, scope?: string): number {
  const [view] = host.settings.describe({ ns, scope, redactSecrets: true })
  if (!view) throw new Error(`no descriptor for ${ns}`)
  return view.revision
}

/**
 * Declare the conformance suite for one provider. Every case makes its own
 * store and disposes every host and store it started, pass or fail.
 * @param name - the provider's name, shown in the suite's title.
 */
export function describeProviderConformance<S extends ConformanceStore>(name: string, options: ProviderConformanceOptions<S>): void {
  const timeoutMs = options.timeoutMs ?? 10_000
  // A case whose option the store lacks is not declared at all: it cannot apply, so it is neither passed nor skipped.
  const caseIf = (applies: boolean): typeof it => (applies ? it : ((() => {}) as unknown as typeof it))
  const cleanups: (() => unknown)[] = []

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function store(init: { document?: SettingsDocument; writable?: boolean } = {}): Promise<S> {
    const made = await options.create(init)
    cleanups.push(() => made.dispose?.())
    return made
  }

  async function host(on: S): Promise<Host> {
    const root = new Context()
    // The suite asserts on behavior; the provider's log lines stay out of the test output.
    root.logger.exporter({ export: () => {} })
    const fiber = on.plug(root)
    let disposed = false
    const dispose = async () => {
      if (disposed) return
      disposed = true
      await fiber.dispose()
    }
    cleanups.push(dispose)
    await fiber
    let settings!: SettingsProvider
    await root.inject(['settings'], (ctx) => {
      settings = ctx.settings
    })
    return {
      root,
      settings,
      async register(ns, schema, registerOptions = {}) {
        const parent = registerOptions.scope === undefined ? root : createScope(root, { name: registerOptions.scope }).ctx
        let handle!: SettingsScope<any>
        let failure: unknown
        const plugged = parent.plugin({
          inject: ['settings'],
          apply(ctx: Context) {
            try {
              const { base, version, migrations } = registerOptions
              handle = ctx.settings.register(ns, schema, { base, version, migrations } as SettingsRegisterOptions<any>)
            } catch (error) {
              failure = error
              throw error
            }
          },
        })
        await plugged.await().catch(() => {})
        if (failure !== undefined) throw failure
        return handle
      },
      dispose,
    }
  }

  describe(`settings provider conformance: ${name}`, () => {
    it('loads the stored document and layers defaults < base < global section < scope section over it', async () => {
      const on = await store({ document: { alpha: { a: 2 }, scopes: { 'preset/x': { alpha: { c: 5 } } } } })
      const h = await host(on)
      const global = await h.register('alpha', Alpha, { base: { b: 'base' } })
      const scoped = await h.register('alpha', Alpha, { base: { b: 'base' }, scope: 'preset/x' })
      expect(global.get()).toEqual({ a: 2, b: 'base', c: 0 })
      expect(scoped.get()).toEqual({ a: 2, b: 'base', c: 5 })
      expect(h.settings.get('alpha', 'preset/x')).toEqual({ a: 2, b: 'base', c: 5 })
    })

    it('stores a write so that a provider started afterwards on the same store reads it', async () => {
      const on = await store()
      const first = await host(on)
      const alpha = await first.register('alpha', Alpha)
      await alpha.update({ a: 7 })
      await first.settings.update('alpha', { c: 3 }, undefined, 'preset/x')
      await first.dispose()
      if (options.restart) await options.restart(on)
      const second = await host(on)
      expect((await second.register('alpha', Alpha)).get()).toEqual({ a: 7, b: 'b', c: 0 })
      expect((await second.register('alpha', Alpha, { scope: 'preset/x' })).get()).toEqual({ a: 7, b: 'b', c: 3 })
    })

    it('writes a section older than its kind back migrated, its version included, so a provider started afterwards reads it without migrating again', async () => {
      const on = await store({ document: { alpha: { old: 4 }, scopes: { 'preset/x': { alpha: { old: 6 } } } } })
      const versioned = { version: 1, migrations: [{ op: 'move' as const, from: 'old', to: 'a' }] }
      const first = await host(on)
      expect((await first.register('alpha', Alpha, versioned)).get()).toEqual({ a: 4, b: 'b', c: 0 })
      const stored = (scope?: string) => first.settings.describe({ ns: 'alpha', scope })[0]!.migration?.stored
      await until(() => expect([stored(), stored('preset/x')]).toEqual([1, 1]), timeoutMs)
      await first.dispose()
      if (options.restart) await options.restart(on)
      const second = await host(on)
      expect((await second.register('alpha', Alpha, { ...versioned, scope: 'preset/x' })).get()).toEqual({ a: 6, b: 'b', c: 0 })
      for (const scope of [undefined, 'preset/x']) {
        const [view] = second.settings.describe({ ns: 'alpha', scope })
        expect(view!.user).toEqual({ a: scope === undefined ? 4 : 6 })
        expect(view!.migration).toEqual({ version: 1, stored: 1, state: 'current', steps: [], changes: [] })
      }
    })

    it('lands every write of a burst across namespaces and scopes, none lost', async () => {
      const h = await host(await store())
      const tallies = [await h.register('tally-a', Tally), await h.register('tally-b', Tally), await h.register('tally-a', Tally, { scope: 'preset/x' })]
      await Promise.all(Array.from({ length: 60 }, (_, index) => tallies[index % 3]!.update({ [`k${index}`]: index })))
      const written = (which: number) => Object.fromEntries(Array.from({ length: 20 }, (_, step) => [`k${step * 3 + which}`, step * 3 + which]))
      expect(tallies[0]!.get()).toEqual(written(0))
      expect(tallies[1]!.get()).toEqual(written(1))
      // The scoped instance sees the global section under its own.
      expect(tallies[2]!.get()).toEqual({ ...written(0), ...written(2) })
    })

    it('moves a section revision with each change, keeps it for a write that changes nothing, and refuses a stale one storing nothing', async () => {
      const h = await host(await store())
      const alpha = await h.register('alpha', Alpha)
      const start = revisionOf(h, 'alpha')
      await h.settings.update('alpha', { a: 2 }, start)
      const second = revisionOf(h, 'alpha')
      expect(second).not.toBe(start)
      await h.settings.update('alpha', { a: 2 }, second)
      expect(revisionOf(h, 'alpha')).toBe(second)
      await expect(h.settings.update('alpha', { a: 3 }, start)).rejects.toBeInstanceOf(SettingsConflictError)
      expect(alpha.get().a).toBe(2)
      expect(revisionOf(h, 'alpha')).toBe(second)
      // Another section's revision is its own.
      await h.register('beta', Alpha)
      const beta = revisionOf(h, 'beta')
      await h.settings.update('beta', { a: 9 }, beta)
      expect(revisionOf(h, 'alpha')).toBe(second)
    })

    it('refuses a write its schema refuses, storing nothing and keeping the revision', async () => {
      const on = await store({ document: { alpha: { a: 4 } } })
      const h = await host(on)
      const alpha = await h.register('alpha', Alpha)
      const before = revisionOf(h, 'alpha')
      await expect(alpha.update({ a: 'four' as never })).rejects.toThrow()
      expect(revisionOf(h, 'alpha')).toBe(before)
      await h.dispose()
      const again = await host(on)
      expect((await again.register('alpha', Alpha)).get().a).toBe(4)
    })

    caseIf(!!options.edit)('brings a change made behind its back to get(), watchers and events exactly once', async () => {
      const on = await store({ document: { alpha: { a: 1 } } })
      const h = await host(on)
      const alpha = await h.register('alpha', Alpha)
      const watched: Alpha[] = []
      alpha.watch((next) => void watched.push(next))
      const updated: unknown[] = []
      const announced: number[] = []
      h.root.on('settings/updated', (ns, next) => void (ns === 'alpha' && updated.push(next)))
      h.root.on('settings/document-updated', (ns, revision) => void (ns === 'alpha' && announced.push(revision)))
      const before = revisionOf(h, 'alpha')
      await options.edit!(on, { alpha: { a: 1, b: 'edited' } })
      await until(() => expect(alpha.get().b).toBe('edited'), timeoutMs)
      await until(() => expect(watched).toHaveLength(1), timeoutMs)
      // Anything late (a second notification, a periodic re-check) would show up here.
      await sleep(300)
      expect(watched).toEqual([{ a: 1, b: 'edited', c: 0 }])
      expect(updated).toEqual([{ a: 1, b: 'edited', c: 0 }])
      expect(announced).toHaveLength(1)
      expect(announced[0]).not.toBe(before)
      expect(revisionOf(h, 'alpha')).toBe(announced[0])
      // A write afterwards keeps the edit and adds to it.
      await alpha.update({ c: 2 })
      expect(alpha.get()).toEqual({ a: 1, b: 'edited', c: 2 })
    })

    caseIf(!!options.restart)('keeps working when the store restarts between writes', async () => {
      const on = await store()
      const h = await host(on)
      const alpha = await h.register('alpha', Alpha)
      await alpha.update({ a: 2 })
      await options.restart!(on)
      await until(() => alpha.update({ b: 'after' }), timeoutMs)
      expect(alpha.get()).toEqual({ a: 2, b: 'after', c: 0 })
      const other = await host(on)
      expect((await other.register('alpha', Alpha)).get()).toEqual({ a: 2, b: 'after', c: 0 })
    })

    caseIf(!!options.hosts)('shows each host the other host’s writes', async () => {
      const on = await store()
      const [a, b] = [await host(on), await host(on)]
      const onA = await a.register('alpha', Alpha)
      const onB = await b.register('alpha', Alpha)
      await onA.update({ a: 5 })
      await until(() => expect(onB.get().a).toBe(5), timeoutMs)
      await onB.update({ b: 'from b' })
      await until(() => expect(onA.get()).toEqual({ a: 5, b: 'from b', c: 0 }), timeoutMs)
      expect(revisionOf(a, 'alpha')).toBe(revisionOf(b, 'alpha'))
    })

    caseIf(!!options.hosts)('honors a revision read on one host on the other, and refuses a stale one on both', async () => {
      const on = await store()
      const [a, b] = [await host(on), await host(on)]
      const onA = await a.register('alpha', Alpha)
      const onB = await b.register('alpha', Alpha)
      await onA.update({ a: 2 })
      const read = revisionOf(a, 'alpha')
      // Written through the other host with the revision read on the first, before or after it heard of the change.
      await b.settings.update('alpha', { c: 1 }, read)
      await expect(a.settings.update('alpha', { c: 2 }, read)).rejects.toBeInstanceOf(SettingsConflictError)
      await expect(b.settings.update('alpha', { c: 3 }, read)).rejects.toBeInstanceOf(SettingsConflictError)
      await until(() => expect(onA.get()).toEqual({ a: 2, b: 'b', c: 1 }), timeoutMs)
      expect(onB.get()).toEqual({ a: 2, b: 'b', c: 1 })
      expect(revisionOf(a, 'alpha')).toBe(revisionOf(b, 'alpha'))
    })

    caseIf(!!options.hosts)('lands concurrent writes from both hosts, none lost', async () => {
      const on = await store()
      const [a, b] = [await host(on), await host(on)]
      const [onA, onB] = [await a.register('tally', Tally), await b.register('tally', Tally)]
      await Promise.all(Array.from({ length: 40 }, (_, index) => (index % 2 ? onA : onB).update({ [`k${index}`]: index })))
      const expected = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`k${index}`, index]))
      await until(() => expect(onA.get()).toEqual(expected), timeoutMs)
      await until(() => expect(onB.get()).toEqual(expected), timeoutMs)
    })

    it('refuses writes once disposed and leaves nothing of its own behind', async () => {
      const on = await store()
      const h = await host(on)
      const alpha = await h.register('alpha', Alpha)
      await alpha.update({ a: 3 })
      const settings = h.settings
      await h.dispose()
      await expect(settings.update('alpha', { a: 4 })).rejects.toBeInstanceOf(SettingsUnavailableError)
      if (options.leftovers) expect(await options.leftovers(on)).toEqual([])
      const again = await host(on)
      expect((await again.register('alpha', Alpha)).get().a).toBe(3)
    })

    caseIf(options.readOnly !== false)('refuses writes to a read-only store and keeps what it holds', async () => {
      const on = await store({ document: { alpha: { a: 6 } }, writable: false })
      const h = await host(on)
      const alpha = await h.register('alpha', Alpha)
      expect(alpha.get().a).toBe(6)
      await expect(alpha.update({ a: 7 })).rejects.toMatchObject({ code: expect.stringMatching(/READ_ONLY/) })
      expect(alpha.get().a).toBe(6)
    })
  })
}
